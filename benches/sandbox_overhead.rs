//! Benchmark helper (not installed): what the sandbox adds to starting one command. Runs
//! `true` bare and under the default policy (workspace-write, network off) in turns, and
//! prints each side's median and the difference per command.
//!
//! Usage: `sandbox-overhead [RUNS]` (default 400).

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use hermes_loop::sandbox::{Mode, Network, Places, Policy, Sandbox};

fn main() -> ExitCode {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400);
    let workspace = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("sandbox-overhead: {e}");
            return ExitCode::from(2);
        }
    };
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let hermes_home = home.as_deref().unwrap_or(Path::new("/")).join(".hermes");
    let policy = Policy::for_session(
        Mode::WorkspaceWrite,
        Network::Off,
        &Places {
            workspace: workspace.path(),
            hermes_home: &hermes_home,
            user_home: home.as_deref(),
        },
    );
    let sandbox = match Sandbox::new(policy) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sandbox-overhead: {e}");
            return ExitCode::from(2);
        }
    };
    let time = |contained: bool| -> Option<Duration> {
        let start = Instant::now();
        let mut cmd = Command::new("true");
        cmd.current_dir(workspace.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        if contained {
            sandbox.contain(&mut cmd, Some(60)).ok()?;
        }
        let status = cmd.status().ok()?;
        status.success().then(|| start.elapsed())
    };
    let (mut bare, mut contained) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        match (time(false), time(true)) {
            (Some(b), Some(c)) => {
                bare.push(b);
                contained.push(c);
            }
            _ => {
                eprintln!("sandbox-overhead: a run failed");
                return ExitCode::from(2);
            }
        }
    }
    let start = Instant::now();
    for _ in 0..runs {
        let mut cmd = Command::new("true");
        let _ = sandbox.contain(&mut cmd, Some(60));
    }
    let prepare = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    bare.sort();
    contained.sort();
    let median = |v: &[Duration]| v[v.len() / 2].as_secs_f64() * 1000.0;
    let (b, c) = (median(&bare), median(&contained));
    println!(
        "sandbox overhead ({} runs, `true`, {}): bare {b:.3} ms, contained {c:.3} ms, +{:.3} ms per command (preparing the rules: {prepare:.3} ms)",
        runs,
        sandbox.describe().mechanism,
        c - b
    );
    ExitCode::SUCCESS
}
