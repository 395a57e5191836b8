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
    let ep = match endpoint::resolve(config, &options.overrides, &env) {
        Err(endpoint::EndpointError::NoModel) => {
            listed_default(bin, config, options, &env).ok_or(endpoint::EndpointError::NoModel)
        }
        resolved => resolved,
    }
    .map_err(|e| anyhow::Error::new(Hinted::new(e.to_string(), e.hint())))?;
    let read_timeout = super::http::read_timeout_from(&env)?;
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

/// No model anywhere, but an endpoint named for this run (`HERMES_BASE_URL` or `--base-url`):
/// the first model it lists, said on stderr. `None` when it lists none.
fn listed_default(
    bin: &str,
    config: &Config,
    options: &ConnectOptions,
    env: &Env,
) -> Option<Endpoint> {
    if env.get("HERMES_BASE_URL").is_none() && options.overrides.base_url.is_none() {
        return None;
    }
    let probe = Overrides {
        model: Some("(listed)".into()),
        ..options.overrides.clone()
    };
    let mut ep = endpoint::resolve(config, &probe, env).ok()?;
    ep.model = super::http::first_model(
        &ep.base_url,
        &ep.api_key,
        std::time::Duration::from_secs(10),
    )?;
    if !options.quiet {
        eprintln!(
            "{bin}: no model named; using {}, the first that {}/models lists (-m chooses another)",
            ep.model, ep.base_url
        );
    }
    Some(ep)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cassette_hides_the_homes_the_folder_and_the_kernel() {
        let release = std::process::Command::new("uname")
            .arg("-r")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        assert_eq!(os_release(), release);
        let user_home = std::env::var("HOME").unwrap_or_default();
        let p = placeholders(&Home::at("/srv/hermes-home-x"), Path::new("/srv/work-y"));
        assert_eq!(
            p.hide(&format!(
                "/srv/hermes-home-x/skills in /srv/work-y on {release}, home {user_home}"
            )),
            "{{hermes_home}}/skills in {{cwd}} on {{os_release}}, home {{home}}"
        );
    }

    #[test]
    fn a_replay_stands_for_the_recorded_model_and_a_missing_cassette_says_how_to_make_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let config = Config::defaults();
        let cassette = dir.path().join("run.jsonl");
        let _ = std::fs::write(
            &cassette,
            "{\"request\": {\"model\": \"rec-m\", \"max_tokens\": 512, \"messages\": []}, \"response\": {\"content\": \"hi\"}}\n",
        );
        let options = ConnectOptions {
            replay: Some(cassette),
            quiet: true,
            ..ConnectOptions::default()
        };
        let Ok((_, endpoint)) = open("t", &home, &config, &options, Arc::default()) else {
            panic!("replay")
        };
        assert_eq!(
            (
                endpoint.model.as_str(),
                endpoint.base_url.as_str(),
                endpoint.max_tokens
            ),
            ("rec-m", "replay", Some(512))
        );
        let missing = ConnectOptions {
            replay: Some(dir.path().join("missing.jsonl")),
            quiet: true,
            ..ConnectOptions::default()
        };
        let Err(e) = open("t", &home, &config, &missing, Arc::default()) else {
            panic!("refused")
        };
        let Some(hinted) = e.downcast_ref::<Hinted>() else {
            panic!("a hinted error: {e}")
        };
        assert_eq!(
            hinted.hint,
            "record one with --record FILE against a live endpoint"
        );
        // No model anywhere: the endpoint's own error and hint.
        let Err(e) = open(
            "t",
            &home,
            &config,
            &ConnectOptions::default(),
            Arc::default(),
        ) else {
            panic!("no model")
        };
        assert_eq!(e.to_string(), "no model configured");
        // A live endpoint, recorded: the cassette is made at once, or the run refused.
        let live = Config::from_yaml(
            "model: {provider: custom, base_url: 'http://127.0.0.1:9/v1', default: live-m}\n",
        );
        let recorded = ConnectOptions {
            record: Some(dir.path().join("new.jsonl")),
            ..ConnectOptions::default()
        };
        let Ok((_, endpoint)) = open("t", &home, &live, &recorded, Arc::default()) else {
            panic!("recording")
        };
        assert_eq!(endpoint.model, "live-m");
        assert!(dir.path().join("new.jsonl").is_file());
        let nowhere = ConnectOptions {
            record: Some(dir.path().join("no/such/dir/x.jsonl")),
            ..ConnectOptions::default()
        };
        let Err(e) = open("t", &home, &live, &nowhere, Arc::default()) else {
            panic!("refused")
        };
        assert!(
            e.to_string().starts_with("cannot write the cassette "),
            "{e}"
        );
    }
}
