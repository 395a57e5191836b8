//! `terminal`: one shell command per call, with the session's state carried between calls as
//! if one shell ran them all: a `cd` and the exported variables persist. Each command runs
//! in a fresh `bash -c` whose EXIT trap writes its final directory and environment to two
//! private temp files, which become the next command's starting point. A command that is
//! killed (timeout, cancel) changes neither.
//!
//! `workdir` runs one command elsewhere without moving the session: its final directory is
//! not kept (its exported variables are). `pty`, `notify_on_complete` and `watch_patterns`
//! are accepted and ignored; `background=true` is refused, there being no process registry
//! here to poll a background job with.
//!
//! Under the workspace's sandbox (lib/sandbox) every command is contained, its output has
//! known secret values redacted, and a refusal by the sandbox is named in `error` in one
//! line the model can act on; `sandbox_denied: true` marks such a result for the approval
//! layer (`--approvals on-failure`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::output::{MAX_OUTPUT_CHARS, clean, truncate_with_hidden};
use super::shell::{End, run};
use super::{Workspace, args, paths};

/// Longest foreground timeout the model may ask for.
const MAX_TIMEOUT_SECS: i64 = 600;

/// Runs one command under the workspace's sandbox.
pub fn terminal(ws: &mut Workspace, args: &Map<String, Value>, cancel: &AtomicBool) -> Value {
    run_command(ws, args, cancel, true)
}

/// Runs one command outside the sandbox (after the user said so, `--approvals on-failure`):
/// the environment stays the allowlisted one and output is still redacted.
pub fn terminal_uncontained(
    ws: &mut Workspace,
    args: &Map<String, Value>,
    cancel: &AtomicBool,
) -> Value {
    run_command(ws, args, cancel, false)
}

fn run_command(
    ws: &mut Workspace,
    args: &Map<String, Value>,
    cancel: &AtomicBool,
    contained: bool,
) -> Value {
    let Some(command) = args::string(args, "command").filter(|c| !c.trim().is_empty()) else {
        return json!({"error": "command is required"});
    };
    if args::flag(args, "background", false) {
        return json!({"error": "background=true is not supported here: run the command in the foreground (timeout up to 600s), or detach it yourself with its output sent to a file (nohup cmd > log 2>&1 &) and check the file later."});
    }
    let timeout = match args::int(args, "timeout") {
        Some(t) if t > MAX_TIMEOUT_SECS => {
            return json!({"error": format!(
                "Foreground timeout {t}s exceeds the maximum of {MAX_TIMEOUT_SECS}s. Use background=true with notify_on_complete=true for long-running commands."
            )});
        }
        Some(t) => t.max(1) as u64,
        None => ws.default_timeout,
    };
    let workdir = args::string(args, "workdir").filter(|w| !w.is_empty());
    let dir = match workdir {
        Some(w) => paths::resolve(ws.cwd(), w),
        None => {
            // A command may delete the directory the session stands in; a shell would carry
            // on there, so carry on from the nearest directory that still exists.
            if let Some(alive) = ws.cwd.ancestors().find(|d| d.is_dir()) {
                ws.cwd = alive.to_path_buf();
            }
            ws.cwd().to_path_buf()
        }
    };
    if !dir.is_dir() {
        return failure(format!(
            "Working directory does not exist: {}",
            dir.display()
        ));
    }
    let sandbox = ws.sandbox.clone();
    let temp_base = sandbox
        .as_ref()
        .map_or_else(std::env::temp_dir, |s| s.temp_dir().to_path_buf());
    let side = match SideFiles::create(&temp_base) {
        Ok(s) => s,
        Err(e) => return failure(format!("Cannot create the shell's state files: {e}")),
    };
    let script = format!(
        "trap '__hermes_rc=$?; builtin pwd > \"{}\" 2>/dev/null; env -0 > \"{}\" 2>/dev/null; exit $__hermes_rc' EXIT\n{command}\n",
        side.cwd.display(),
        side.env.display()
    );
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(script).current_dir(&dir);
    if let Some(env) = &ws.env {
        cmd.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    }
    if let Some(sandbox) = sandbox.as_ref().filter(|_| contained)
        && let Err(e) = sandbox.contain(&mut cmd, Some(timeout.saturating_add(5)))
    {
        return failure(format!("The sandbox could not be prepared: {e}"));
    }
    let ran = match run(cmd, Duration::from_secs(timeout), cancel) {
        Ok(r) => r,
        Err(e) => {
            let why = sandbox
                .as_ref()
                .map_or_else(|| e.to_string(), |s| s.spawn_error(&e));
            return failure(format!("Failed to run bash: {why}"));
        }
    };
    let mut text = clean(&ran.output);
    if let Some(sandbox) = &sandbox {
        text = sandbox.redact(&text);
    }
    let denial = sandbox
        .as_ref()
        .filter(|_| contained)
        .and_then(|s| s.denial(&text, &dir));
    let output = truncate_with_hidden(&text, MAX_OUTPUT_CHARS, ran.dropped);
    match ran.end {
        End::Exited(code) => {
            side.carry_over(ws, workdir.is_none());
            match denial {
                Some(line) => json!({"output": output, "exit_code": code, "error": line,
                    "sandbox_denied": true}),
                None => json!({"output": output, "exit_code": code, "error": null}),
            }
        }
        End::TimedOut => {
            let note = format!("[Command timed out after {timeout}s]");
            let output = if output.is_empty() {
                note
            } else {
                format!("{output}\n\n{note}")
            };
            json!({"output": output, "exit_code": 124, "error": null})
        }
        End::Cancelled => json!({
            "output": output,
            "exit_code": 130,
            "error": "Command interrupted: the user cancelled it",
        }),
    }
}

fn failure(error: String) -> Value {
    json!({"output": "", "exit_code": -1, "error": error})
}

/// The two files the EXIT trap writes, removed when dropped.
struct SideFiles {
    cwd: PathBuf,
    env: PathBuf,
    _files: [tempfile::NamedTempFile; 2],
}

impl SideFiles {
    /// Two new files in `base` (the sandbox's private temp dir), created exclusively under
    /// random names and private (the environment may hold secrets a user passed on), so a
    /// file left by a killed run, or planted by anyone, never blocks or feeds a later one.
    fn create(base: &Path) -> std::io::Result<SideFiles> {
        let mut base = base.to_path_buf();
        // The paths go into a shell script between double quotes inside single quotes.
        if base.to_string_lossy().contains(['"', '\'', '$', '`', '\\']) {
            base = PathBuf::from("/tmp");
        }
        let file = |suffix: &str| {
            tempfile::Builder::new()
                .prefix("hermes-terminal-")
                .suffix(suffix)
                .tempfile_in(&base)
        };
        let (cwd, env) = (file(".cwd")?, file(".env")?);
        Ok(SideFiles {
            cwd: cwd.path().to_path_buf(),
            env: env.path().to_path_buf(),
            _files: [cwd, env],
        })
    }

    /// Takes the shell's final directory (when `keep_cwd`) and environment into `ws`. An
    /// empty file means the trap did not run (the command replaced its EXIT trap, or `env`
    /// was not on its PATH): the state is kept as it was.
    fn carry_over(&self, ws: &mut Workspace, keep_cwd: bool) {
        if keep_cwd && let Ok(text) = std::fs::read_to_string(&self.cwd) {
            let dir = text.strip_suffix('\n').unwrap_or(&text);
            if !dir.is_empty() && Path::new(dir).is_dir() {
                ws.cwd = paths::normalize(Path::new(dir));
            }
        }
        if let Ok(bytes) = std::fs::read(&self.env)
            && !bytes.is_empty()
        {
            ws.env = Some(parse_env(&bytes));
        }
    }
}

/// `env -0` output as pairs. `SHLVL` goes back to our own value, or each call would nest
/// one level deeper; `_` is the shell's scratch variable.
fn parse_env(bytes: &[u8]) -> Vec<(String, String)> {
    let ours = std::env::var("SHLVL").ok();
    let mut out: Vec<(String, String)> = bytes
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let text = String::from_utf8_lossy(entry);
            let (k, v) = text.split_once('=')?;
            (!k.is_empty() && k != "_" && k != "SHLVL").then(|| (k.to_string(), v.to_string()))
        })
        .collect();
    if let Some(level) = ours {
        out.push(("SHLVL".to_string(), level));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::pyjson::tool_result;
    use std::sync::atomic::Ordering;

    use crate::tools::testing::map;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        crate::tools::testing::workspace(&[])
    }

    fn sh(ws: &mut Workspace, args: Value) -> String {
        tool_result(&terminal(ws, &map(args), &AtomicBool::new(false)))
    }

    #[test]
    fn echo() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            sh(&mut ws, json!({"command": "echo hi"})),
            r#"{"output": "hi", "exit_code": 0, "error": null}"#
        );
    }

    #[test]
    fn cd_persists_across_calls() {
        let (_dir, mut ws) = workspace();
        let start = ws.cwd().display().to_string();
        assert_eq!(
            sh(&mut ws, json!({"command": "pwd; cd /; pwd"})),
            format!(r#"{{"output": "{start}\n/", "exit_code": 0, "error": null}}"#)
        );
        assert_eq!(ws.cwd(), Path::new("/"));
        assert_eq!(
            sh(&mut ws, json!({"command": "pwd; false"})),
            r#"{"output": "/", "exit_code": 1, "error": null}"#
        );
    }

    #[test]
    fn exported_variables_persist_and_workdir_does_not_move_the_session() {
        let (_dir, mut ws) = workspace();
        let start = ws.cwd().to_path_buf();
        sh(
            &mut ws,
            json!({"command": "export HERMES_TEST_X=42; cd /tmp; exit 0"}),
        );
        assert_eq!(ws.cwd(), Path::new("/tmp"));
        assert_eq!(
            sh(
                &mut ws,
                json!({"command": "pwd; echo $HERMES_TEST_X", "workdir": start.display().to_string()})
            ),
            format!(
                r#"{{"output": "{}\n42", "exit_code": 0, "error": null}}"#,
                start.display()
            )
        );
        assert_eq!(ws.cwd(), Path::new("/tmp"));
    }

    #[test]
    fn timeout_gives_124() {
        // Not killed at the deadline, the command would print its last line and exit 0.
        let (_dir, mut ws) = workspace();
        assert_eq!(
            sh(
                &mut ws,
                json!({"command": "sleep 5; echo late", "timeout": 1})
            ),
            r#"{"output": "[Command timed out after 1s]", "exit_code": 124, "error": null}"#
        );
    }

    #[test]
    fn timeout_keeps_what_was_printed_before_it() {
        let (_dir, mut ws) = workspace();
        let start = ws.cwd().to_path_buf();
        assert_eq!(
            sh(
                &mut ws,
                json!({"command": "echo partial; cd /; sleep 5", "timeout": 1})
            ),
            r#"{"output": "partial\n\n[Command timed out after 1s]", "exit_code": 124, "error": null}"#
        );
        // A killed command leaves the session where it was.
        assert_eq!(ws.cwd(), start);
    }

    #[test]
    fn a_syntax_error_reports_bash_and_exit_2() {
        let (_dir, mut ws) = workspace();
        let out = terminal(
            &mut ws,
            &map(json!({"command": "if then"})),
            &AtomicBool::new(false),
        );
        assert_eq!(out["exit_code"], 2);
        assert!(
            out["output"]
                .as_str()
                .unwrap_or("")
                .contains("syntax error near unexpected token `then'"),
            "{out}"
        );
    }

    #[test]
    fn foreground_timeout_above_600_is_refused() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            sh(&mut ws, json!({"command": "true", "timeout": 601})),
            r#"{"error": "Foreground timeout 601s exceeds the maximum of 600s. Use background=true with notify_on_complete=true for long-running commands."}"#
        );
        assert_eq!(
            sh(&mut ws, json!({"command": "echo ok", "timeout": 600})),
            r#"{"output": "ok", "exit_code": 0, "error": null}"#
        );
    }

    #[test]
    fn the_side_files_are_private_and_removed_when_dropped() {
        use std::os::unix::fs::PermissionsExt;
        let Ok(files) = SideFiles::create(&std::env::temp_dir()) else {
            panic!("side files")
        };
        let paths = [files.cwd.clone(), files.env.clone()];
        for path in &paths {
            let mode = std::fs::metadata(path).map(|m| m.permissions().mode() & 0o777);
            assert_eq!(mode.ok(), Some(0o600), "{}", path.display());
        }
        drop(files);
        for path in &paths {
            assert!(!path.exists(), "{} was left behind", path.display());
        }
    }

    #[test]
    fn files_left_by_a_killed_run_never_block_the_next() {
        // A run killed with -9 leaves its files; a later process may get the same pid.
        let base = std::env::temp_dir();
        let pid = std::process::id();
        let stale: Vec<PathBuf> = (0..4)
            .flat_map(|n| {
                ["cwd", "env"].map(|ext| base.join(format!("hermes-terminal-{pid}-{n}.{ext}")))
            })
            .collect();
        for path in &stale {
            let _ = std::fs::write(path, "stale");
        }
        let (_dir, mut ws) = workspace();
        let out = sh(&mut ws, json!({"command": "echo fine"}));
        for path in &stale {
            let _ = std::fs::remove_file(path);
        }
        assert_eq!(out, r#"{"output": "fine", "exit_code": 0, "error": null}"#);
    }

    #[test]
    fn a_final_directory_that_is_gone_is_not_taken() {
        let (_dir, mut ws) = workspace();
        let start = ws.cwd().to_path_buf();
        assert_eq!(
            sh(
                &mut ws,
                json!({"command": "mkdir gone && cd gone && rmdir ../gone"})
            ),
            r#"{"output": "", "exit_code": 0, "error": null}"#
        );
        assert_eq!(ws.cwd(), start);
    }

    #[test]
    fn background_is_refused_clearly() {
        let (_dir, mut ws) = workspace();
        let out = terminal(
            &mut ws,
            &map(json!({"command": "sleep 1", "background": true})),
            &AtomicBool::new(false),
        );
        assert!(
            out["error"]
                .as_str()
                .unwrap_or("")
                .starts_with("background=true is not supported here")
        );
    }

    #[test]
    fn long_output_is_cut_with_exact_counts() {
        let (_dir, mut ws) = workspace();
        let out = terminal(
            &mut ws,
            &map(json!({"command": "seq 1 30000"})),
            &AtomicBool::new(false),
        );
        let text = out["output"].as_str().unwrap_or("");
        assert_eq!(text.chars().count(), 50_000);
        assert!(text.starts_with("1\n2\n3\n"));
        assert!(text.ends_with("29999\n30000"));
        assert!(text.contains(
            "\n\n... [OUTPUT TRUNCATED - 118,968 chars omitted out of 168,893 total] ...\n\n"
        ));
        assert_eq!(out["exit_code"], 0);
    }

    #[test]
    fn ansi_colour_is_stripped() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            sh(
                &mut ws,
                json!({"command": "printf '\\033[31mred\\033[0m\\n\\n'"})
            ),
            r#"{"output": "red", "exit_code": 0, "error": null}"#
        );
    }

    #[test]
    fn cancel_kills_the_process_group() {
        // The flag is set once the command has started (it leaves a file); not killed, the
        // command would go on to print its last line and exit 0.
        let (_dir, mut ws) = workspace();
        let ready = ws.cwd().join("ready");
        let cancel = std::sync::Arc::new(AtomicBool::new(false));
        let flag = std::sync::Arc::clone(&cancel);
        let setter = std::thread::spawn(move || {
            // Bounded, so a command that fails before the file exists still lets the test
            // end (and fail on what it printed).
            for _ in 0..6000 {
                if ready.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            flag.store(true, Ordering::Relaxed);
        });
        let out = terminal(
            &mut ws,
            &map(json!({"command": "echo started; touch ready; sleep 20 | cat; echo late"})),
            &cancel,
        );
        let _ = setter.join();
        assert_eq!(
            tool_result(&out),
            r#"{"output": "started", "exit_code": 130, "error": "Command interrupted: the user cancelled it"}"#
        );
    }

    #[test]
    fn a_deleted_session_directory_falls_back_to_its_parent() {
        let (_dir, mut ws) = workspace();
        let parent = ws.cwd().to_path_buf();
        sh(&mut ws, json!({"command": "mkdir gone && cd gone"}));
        assert_eq!(ws.cwd(), parent.join("gone"));
        std::fs::remove_dir(parent.join("gone")).expect("rmdir");
        assert_eq!(
            sh(&mut ws, json!({"command": "pwd"})),
            format!(
                r#"{{"output": "{}", "exit_code": 0, "error": null}}"#,
                parent.display()
            )
        );
    }

    #[test]
    fn a_missing_workdir_is_an_error() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            sh(
                &mut ws,
                json!({"command": "true", "workdir": "/nonexistent-dir-x"})
            ),
            r#"{"output": "", "exit_code": -1, "error": "Working directory does not exist: /nonexistent-dir-x"}"#
        );
    }

    #[test]
    fn env_parsing_drops_scratch_variables() {
        let parsed = parse_env(b"A=1\0_=/usr/bin/env\0B=x=y\0SHLVL=7\0");
        assert_eq!(parsed[0], ("A".to_string(), "1".to_string()));
        assert_eq!(parsed[1], ("B".to_string(), "x=y".to_string()));
        assert!(!parsed.iter().any(|(k, v)| k == "_" || v == "7"));
    }
}
