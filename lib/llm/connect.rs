//! The transport of a run from its flags: the replay provider answering from a cassette, or
//! HTTP to the resolved endpoint, recorded to a cassette when asked.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use super::Transport;
use super::cassette::{Placeholders, Recorder, Replayer};
use super::endpoint::{self, Endpoint, Env, Overrides};
use super::http::{HttpSettings, HttpTransport};
use crate::home::{Config, Home};
use crate::io::exit::Hinted;

/// What a binary's flags say about the model.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub overrides: Overrides,
    pub record: Option<PathBuf>,
    pub replay: Option<PathBuf>,
    /// No "replaying …" note on stderr.
    pub quiet: bool,
}

/// The transport and the endpoint it stands for. `bin` names the program in notes.
pub fn open(
    bin: &str,
    home: &Home,
    config: &Config,
    options: &ConnectOptions,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<(Box<dyn Transport>, Endpoint)> {
    let env = Env::load(&home.env_file());
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    if let Some(path) = &options.replay {
        let replayer = Replayer::open(path, placeholders(home, &cwd)).map_err(|e| {
            anyhow::Error::new(Hinted::new(
                e,
                "record one with --record FILE against a live endpoint",
            ))
        })?;
        let ep = replayer.endpoint(endpoint::resolve(config, &options.overrides, &env).ok());
        if !options.quiet {
            eprintln!(
                "{bin}: replaying {} ({} recorded call(s)); no model is contacted",
                path.display(),
                replayer.len()
            );
        }
        return Ok((Box::new(replayer), ep));
    }
    let ep = endpoint::resolve(config, &options.overrides, &env)
        .map_err(|e| anyhow::Error::new(Hinted::new(e.to_string(), e.hint())))?;
    let read_timeout = env
        .get("HERMES_STREAM_READ_TIMEOUT")
        .and_then(|v| v.parse::<f64>().ok());
    let http = HttpTransport::new(HttpSettings::for_endpoint(&ep, read_timeout), interrupt)?;
    let transport: Box<dyn Transport> = match &options.record {
        Some(path) => Box::new(
            Recorder::create(path, Box::new(http), placeholders(home, &cwd))
                .with_context(|| format!("cannot write the cassette {}", path.display()))?,
        ),
        None => Box::new(http),
    };
    Ok((transport, ep))
}

/// The machine-specific values a cassette hides.
pub fn placeholders(home: &Home, cwd: &Path) -> Placeholders {
    let user_home = std::env::var("HOME").unwrap_or_default();
    Placeholders::new(&[
        ("hermes_home", &home.root().display().to_string()),
        ("cwd", &cwd.display().to_string()),
        ("home", &user_home),
        ("os_release", &os_release()),
    ])
}

/// The kernel release, as the system prompt's host line shows it.
pub fn os_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}
