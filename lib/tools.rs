//! The model-facing local tools of the agent: `read_file`, `write_file`, `patch`,
//! `search_files` and `terminal`. Each takes the model's JSON arguments and answers with the
//! JSON object Hermes Agent 0.19.0 answers with (same keys, same order, same texts where the
//! reference pins them), ready for `io::pyjson::tool_result`. Nothing here asks for approval:
//! the caller decides that before calling `terminal`.
//!
//! Session state (the shell's directory and exported variables, what `read_file` has already
//! shown) lives in a [`Workspace`] owned by the caller, one per conversation.

mod args;
pub(crate) mod diff;
mod ignore;
mod lines;
mod lint;
mod output;
mod patch;
mod paths;
mod read;
mod reads;
mod refuse;
mod schema;
mod search;
mod shell;
mod terminal;
#[cfg(test)]
mod testing;
mod v4a;
mod write;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value};

pub use patch::patch;
pub use read::read_file;
pub use schema::schemas;
pub use search::search_files;
pub use terminal::{terminal, terminal_uncontained};
pub use write::write_file;

/// The tool names this module answers, in the order `schemas()` lists them.
pub const NAMES: [&str; 5] = [
    "read_file",
    "write_file",
    "patch",
    "search_files",
    "terminal",
];

/// Foreground timeout of `terminal` when the model gives none (`terminal.timeout`).
pub const DEFAULT_TIMEOUT_SECS: u64 = 180;

/// The state one conversation's tools share.
pub struct Workspace {
    cwd: PathBuf,
    hermes_home: PathBuf,
    /// The shell's exported variables after the last command; `None` until a command has
    /// run, so the first one inherits our own environment.
    env: Option<Vec<(String, String)>>,
    default_timeout: u64,
    reads: reads::ReadLog,
    /// What contains the commands; `None` only for callers that run none of the model's.
    sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
}

impl Workspace {
    /// A workspace whose shell starts in `cwd` (a relative one is taken against our own
    /// current directory); `hermes_home` is the HERMES_HOME whose `config.yaml` and `.env`
    /// the file tools refuse to write. Commands start with this process's environment.
    pub fn new(cwd: PathBuf, hermes_home: PathBuf) -> Workspace {
        let cwd = match std::env::current_dir() {
            Ok(here) if cwd.is_relative() => here.join(cwd),
            _ => cwd,
        };
        Workspace {
            cwd: paths::normalize(&cwd),
            hermes_home,
            env: None,
            default_timeout: DEFAULT_TIMEOUT_SECS,
            reads: reads::ReadLog::default(),
            sandbox: None,
        }
    }

    /// The shell's current directory, against which relative paths resolve.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn hermes_home(&self) -> &Path {
        &self.hermes_home
    }

    /// Sets the `terminal` timeout used when the model passes none (config
    /// `terminal.timeout`).
    pub fn set_default_timeout(&mut self, secs: u64) {
        self.default_timeout = secs.max(1);
    }

    /// Replaces the environment the next command starts with (for instance this process's
    /// minus the model provider's API keys); later commands inherit what it exports.
    /// Under a sandbox only the variables its allowlist passes are kept.
    pub fn set_env(&mut self, vars: Vec<(String, String)>) {
        self.env = Some(match &self.sandbox {
            Some(sandbox) => sandbox.child_env(vars),
            None => vars,
        });
    }

    /// Adds one variable to the next command's environment as it is, past the sandbox's
    /// allowlist (a secret the user entered for a skill).
    pub fn add_env(&mut self, name: &str, value: &str) {
        let env = self.env.get_or_insert_with(Vec::new);
        env.retain(|(k, _)| k != name);
        env.push((name.to_string(), value.to_string()));
    }

    /// Contains every command from now on; the environment is filtered through the
    /// sandbox's allowlist at once.
    pub fn set_sandbox(&mut self, sandbox: std::sync::Arc<crate::sandbox::Sandbox>) {
        self.sandbox = Some(sandbox);
        let vars = self
            .env
            .take()
            .unwrap_or_else(|| std::env::vars().collect());
        self.set_env(vars);
    }

    pub fn sandbox(&self) -> Option<&crate::sandbox::Sandbox> {
        self.sandbox.as_deref()
    }

    /// Forgets which file regions `read_file` has shown, so the next read returns content
    /// again. Call it when the context that held those reads is compressed away.
    pub fn forget_reads(&mut self) {
        self.reads = reads::ReadLog::default();
    }
}

// By hand, so that a debug print of the workspace cannot leak the API keys in its
// environment.
impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("cwd", &self.cwd)
            .field("hermes_home", &self.hermes_home)
            .field("env_vars", &self.env.as_ref().map(Vec::len))
            .field("default_timeout", &self.default_timeout)
            .field("sandbox", &self.sandbox.as_ref().map(|s| s.describe()))
            .finish_non_exhaustive()
    }
}

/// Runs the tool called `name`, or `None` when `name` is not one of [`NAMES`].
pub fn call(
    ws: &mut Workspace,
    name: &str,
    args: &Map<String, Value>,
    cancel: &AtomicBool,
) -> Option<Value> {
    Some(match name {
        "read_file" => read_file(ws, args),
        "write_file" => write_file(ws, args),
        "patch" => patch(ws, args),
        "search_files" => search_files(ws, args),
        "terminal" => terminal(ws, args, cancel),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::tools::testing::map;

    #[test]
    fn call_dispatches_by_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut ws = Workspace::new(dir.path().to_path_buf(), dir.path().join("hh"));
        let never = AtomicBool::new(false);
        assert_eq!(call(&mut ws, "memory", &Map::new(), &never), None);
        assert_eq!(
            call(&mut ws, "read_file", &map(json!({"path": "x"})), &never)
                .map(|v| v["error"].clone()),
            Some(json!("File not found: x"))
        );
    }

    #[test]
    fn call_reaches_each_tool_by_its_name() {
        let (_dir, mut ws) = crate::tools::testing::workspace(&[("a.txt", "one\n")]);
        let never = AtomicBool::new(false);
        let wrote = call(
            &mut ws,
            "write_file",
            &map(json!({"path": "b.txt", "content": "two\n"})),
            &never,
        );
        assert_eq!(wrote.map(|v| v["bytes_written"].clone()), Some(json!(4)));
        assert_eq!(
            std::fs::read_to_string(ws.cwd().join("b.txt"))
                .ok()
                .as_deref(),
            Some("two\n")
        );
        let patched = call(
            &mut ws,
            "patch",
            &map(json!({"path": "a.txt", "old_string": "one", "new_string": "uno"})),
            &never,
        );
        assert_eq!(patched.map(|v| v["success"].clone()), Some(json!(true)));
        let found = call(
            &mut ws,
            "search_files",
            &map(json!({"pattern": "uno", "path": "."})),
            &never,
        );
        assert_eq!(found.map(|v| v["total_count"].clone()), Some(json!(1)));
        let ran = call(
            &mut ws,
            "terminal",
            &map(json!({"command": "echo hi"})),
            &never,
        );
        assert_eq!(ran.map(|v| v["output"].clone()), Some(json!("hi")));
    }

    #[test]
    fn the_default_timeout_is_the_one_set_and_never_zero() {
        let (_dir, mut ws) = crate::tools::testing::workspace(&[]);
        let never = AtomicBool::new(false);
        ws.set_default_timeout(0);
        let out = call(
            &mut ws,
            "terminal",
            &map(json!({"command": "sleep 5; echo late"})),
            &never,
        );
        assert_eq!(
            out.map(|v| v["output"].clone()),
            Some(json!("[Command timed out after 1s]"))
        );
    }

    #[test]
    fn debug_shows_the_workspace_but_not_its_environment() {
        let mut ws = Workspace::new(PathBuf::from("/w"), PathBuf::from("/h"));
        ws.set_env(vec![("API_KEY".into(), "sk-secret".into())]);
        ws.set_default_timeout(7);
        assert_eq!(
            format!("{ws:?}"),
            r#"Workspace { cwd: "/w", hermes_home: "/h", env_vars: Some(1), default_timeout: 7, sandbox: None, .. }"#
        );
    }

    #[test]
    fn set_env_is_what_the_next_command_sees() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut ws = Workspace::new(dir.path().to_path_buf(), dir.path().join("hh"));
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        ws.set_env(vec![
            ("PATH".into(), path),
            ("ONLY_THIS".into(), "1".into()),
        ]);
        let out = terminal(
            &mut ws,
            &map(json!({"command": "echo \"$ONLY_THIS-${HOME:-nohome}\""})),
            &AtomicBool::new(false),
        );
        assert_eq!(out["output"], "1-nohome");
        let shown = format!("{ws:?}");
        assert!(!shown.contains("ONLY_THIS"), "{shown}");
    }
}
