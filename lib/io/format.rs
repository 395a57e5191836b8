//! The output format choice: `--format text|json|jsonl`, text on a terminal, jsonl otherwise.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};

/// What a binary prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: aligned, coloured on a terminal.
    Text,
    /// The whole answer as one pretty-printed JSON value.
    Json,
    /// One JSON object per line.
    Jsonl,
}

impl Format {
    /// The flag's value, or the default for where stdout goes.
    pub fn resolve(flag: Option<Format>) -> Format {
        flag.unwrap_or_else(|| {
            if std::io::stdout().is_terminal() {
                Format::Text
            } else {
                Format::Jsonl
            }
        })
    }
}

/// `--color`: `auto` colours a terminal when `NO_COLOR` is unset or empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The process's `--color` choice: one flag read once at start, so a global rather than a
/// parameter threaded through every renderer.
static COLOR_CHOICE: AtomicU8 = AtomicU8::new(0);

/// Records `--color` for [`stdout_color`] (called once, by [`crate::cli::parse`]).
pub fn set_color_choice(choice: ColorChoice) {
    let code = match choice {
        ColorChoice::Auto => 0,
        ColorChoice::Always => 1,
        ColorChoice::Never => 2,
    };
    COLOR_CHOICE.store(code, Ordering::Relaxed);
}

pub fn color_choice() -> ColorChoice {
    match COLOR_CHOICE.load(Ordering::Relaxed) {
        1 => ColorChoice::Always,
        2 => ColorChoice::Never,
        _ => ColorChoice::Auto,
    }
}

/// Whether text written to stdout may carry colour: `--color always`, or with `auto` a
/// terminal and `NO_COLOR` unset or empty.
pub fn stdout_color() -> bool {
    colored(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    )
}

/// The same rule for stderr (notes, the agent's dim status lines).
pub fn stderr_color() -> bool {
    colored(
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    )
}

/// The rule, given what the process sees (`no_color`: the variable's value), so that a test
/// does not have to change the environment the other tests read.
fn colored(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    match color_choice() {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// Serialises a duration in seconds rounded to the millisecond: nanosecond digits in a
/// record are noise a person has to read past.
pub fn milliseconds<S: serde::Serializer>(seconds: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((seconds * 1000.0).round() / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_color_flag_wins_over_the_terminal() {
        // The only test that sets the process's choice; it puts `auto` back.
        let set = Some(OsStr::new("1"));
        set_color_choice(ColorChoice::Always);
        assert_eq!(color_choice(), ColorChoice::Always);
        assert!(colored(false, set));
        assert!(stdout_color());
        assert!(stderr_color());
        set_color_choice(ColorChoice::Never);
        assert_eq!(color_choice(), ColorChoice::Never);
        assert!(!colored(true, None));
        assert!(!stdout_color());
        assert!(!stderr_color());
        set_color_choice(ColorChoice::Auto);
        assert_eq!(color_choice(), ColorChoice::Auto);
        assert!(colored(true, None));
        assert!(colored(true, Some(OsStr::new(""))));
        assert!(!colored(true, set));
        assert!(!colored(false, None));
    }

    #[test]
    fn durations_are_rounded_to_the_millisecond() {
        #[derive(serde::Serialize)]
        struct Timed {
            #[serde(serialize_with = "milliseconds")]
            seconds: f64,
        }
        let shown = |seconds| serde_json::to_string(&Timed { seconds }).expect("serialise");
        assert_eq!(shown(1.234_567_8), r#"{"seconds":1.235}"#);
        assert_eq!(shown(0.000_4), r#"{"seconds":0.0}"#);
        assert_eq!(shown(12.0), r#"{"seconds":12.0}"#);
    }
}
