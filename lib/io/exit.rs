//! Exit codes and error reporting, the same for every binary: 0 done, 1 a negative answer,
//! 2 an error. Errors print as `hermes-<bin>: error: <chain>` and a closed stdout pipe is a
//! quiet success, so `hermes-x | head -1` never complains.

use std::process::ExitCode;

/// How a command ended when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done (0).
    Success,
    /// The command's negative answer (1): no hits, a failing verdict, a refused action.
    Negative,
    /// Something failed but the run went on (2): a bad line skipped with `--keep-going`,
    /// one unreadable item among many.
    PartialFailure,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Negative => 1,
            Exit::PartialFailure => 2,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// The exit code of a command that failed outright.
pub const ERROR_CODE: u8 = 2;

/// `--help` text shared by every binary.
pub const EXIT_CODES_HELP: &str = "\
Exit codes: 0 done; 1 negative answer (no hits, failing verdict, refused action); 2 bad usage,
bad input or an I/O error. A closed stdout pipe ends quietly with 0.

Environment: HERMES_HOME (default ~/.hermes; --home overrides it), HERMES_NOW (an ISO-8601
timestamp used as the current time, for tests and previews), NO_COLOR.";

/// An error a person can fix, with the hint that tells them how.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Hinted {
    pub message: String,
    pub hint: String,
}

impl Hinted {
    pub fn new(message: impl Into<String>, hint: impl Into<String>) -> Hinted {
        Hinted {
            message: message.into(),
            hint: hint.into(),
        }
    }
}

/// Runs a binary's body and turns its outcome into the process exit code.
pub fn run(bin: &str, body: impl FnOnce() -> anyhow::Result<Exit>) -> ExitCode {
    match body() {
        Ok(exit) => exit.into(),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            report(bin, &err);
            ExitCode::from(ERROR_CODE)
        }
    }
}

/// An error and its causes on one line, `: `-separated, each said once: a cause whose text
/// its parent's message already carries (an OS error, a YAML error, a wrapped error shown
/// with `{0}`) is not repeated.
pub fn chain_text(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// Prints an error and its causes on one line, then the hint if one is attached.
pub fn report(bin: &str, err: &anyhow::Error) {
    eprintln!("{bin}: error: {}", chain_text(err));
    if let Some(hinted) = err.chain().find_map(|e| e.downcast_ref::<Hinted>()) {
        eprintln!("hint: {}", hinted.hint);
    } else if let Some(hint) = err
        .chain()
        .find_map(|e| e.downcast_ref::<crate::home::NoHome>())
        .and_then(crate::home::NoHome::hint)
    {
        eprintln!("hint: {hint}");
    }
}

/// After a command that may write: says so when it created the home (it did not exist
/// before the command ran), so a typo in `--home`/`HERMES_HOME` does not go unnoticed.
pub fn note_created_home(bin: &str, home: &crate::home::Home, existed: bool, quiet: bool) {
    if let Some(note) = created_home_note(bin, home, existed, quiet) {
        eprintln!("{note}");
    }
}

/// The words of [`note_created_home`], apart from stderr so that the rule can be tested.
fn created_home_note(
    bin: &str,
    home: &crate::home::Home,
    existed: bool,
    quiet: bool,
) -> Option<String> {
    (!existed && !quiet && home.root().is_dir())
        .then(|| format!("{bin}: created the Hermes home {}", home.root().display()))
}

/// Prints a warning on stderr.
pub fn warn(bin: &str, message: impl std::fmt::Display) {
    eprintln!("{bin}: warning: {message}");
}

/// Whether the error, anywhere in its chain, is a write to a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_is_found_under_context() {
        let err = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing results");
        assert!(is_broken_pipe(&err));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read x: {0}")]
        struct Wraps(#[source] std::io::Error);
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let shown = io.to_string();
        let err = anyhow::Error::new(Wraps(io)).context("loading");
        assert_eq!(chain_text(&err), format!("loading: cannot read x: {shown}"));
    }

    #[test]
    fn run_turns_the_outcome_into_the_exit_code() {
        assert_eq!(run("hermes-x", || Ok(Exit::Success)), ExitCode::SUCCESS);
        assert_eq!(run("hermes-x", || Ok(Exit::Negative)), ExitCode::from(1));
        assert_eq!(
            run("hermes-x", || Ok(Exit::PartialFailure)),
            ExitCode::from(2)
        );
        assert_eq!(
            run("hermes-x", || Err(anyhow::anyhow!("no such skill"))),
            ExitCode::from(2)
        );
        // A closed stdout pipe is a quiet success, not an error.
        assert_eq!(
            run("hermes-x", || Err(anyhow::Error::new(
                std::io::Error::from(std::io::ErrorKind::BrokenPipe)
            )
            .context("writing results"))),
            ExitCode::SUCCESS
        );
        assert_eq!(ExitCode::from(Exit::Negative), ExitCode::from(1));
    }

    #[test]
    fn a_broken_pipe_inside_a_json_error_is_found() {
        let pipe = serde_json::Error::io(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&anyhow::Error::new(pipe).context("writing")));
        let other = serde_json::Error::io(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(!is_broken_pipe(&anyhow::Error::new(other)));
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!is_broken_pipe(&anyhow::Error::new(denied)));
    }

    #[test]
    fn the_created_home_is_noted_only_when_the_command_made_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = crate::home::Home::at(dir.path());
        let note = format!("hermes-x: created the Hermes home {}", dir.path().display());
        assert_eq!(
            created_home_note("hermes-x", &home, false, false),
            Some(note)
        );
        assert_eq!(created_home_note("hermes-x", &home, true, false), None);
        assert_eq!(created_home_note("hermes-x", &home, false, true), None);
        // A command that failed before making it: nothing to note.
        let missing = crate::home::Home::at(dir.path().join("never-made"));
        assert_eq!(created_home_note("hermes-x", &missing, false, false), None);
    }

    #[test]
    fn exit_codes() {
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Negative.code(), 1);
        assert_eq!(Exit::PartialFailure.code(), 2);
    }
}
