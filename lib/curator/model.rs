//! The consolidation pass's model (reference `loop` §4.8): `auxiliary.curator.{provider,
//! model, base_url, api_key}` when it names a provider (not `auto`) and a model, else the
//! legacy `curator.auxiliary.{provider, model}`, else the main model; reached over HTTP, or
//! through a cassette (`--record`, `--replay`).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use serde_json::Value;

use super::consolidate::Model;
use crate::home::{Config, Home};
use crate::io::exit::Hinted;
use crate::llm::Transport;
use crate::llm::cassette::{Recorder, Replayer};
use crate::llm::endpoint::{self, Env, Overrides};
use crate::llm::http::{HttpSettings, HttpTransport};

fn slot(config: &Config, path: &str) -> Option<String> {
    config
        .raw()
        .to_json()
        .pointer(path)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

fn overrides(config: &Config) -> (Overrides, Option<String>) {
    let aux = |k: &str| slot(config, &format!("/auxiliary/curator/{k}"));
    if let (Some(p), Some(m)) = (aux("provider"), aux("model"))
        && p != "auto"
    {
        return (
            Overrides {
                model: Some(m),
                provider: Some(p),
                base_url: aux("base_url"),
            },
            aux("api_key"),
        );
    }
    let legacy = |k: &str| slot(config, &format!("/curator/auxiliary/{k}"));
    if let (Some(p), Some(m)) = (legacy("provider"), legacy("model")) {
        return (
            Overrides {
                model: Some(m),
                provider: Some(p),
                base_url: None,
            },
            None,
        );
    }
    (Overrides::default(), None)
}

/// The pass's model and transport.
pub fn resolve(
    home: &Home,
    config: &Config,
    cwd: &Path,
    record: Option<&Path>,
    replay: Option<&Path>,
) -> anyhow::Result<Model> {
    let env = Env::load(&home.env_file());
    let (wanted, key) = overrides(config);
    let resolved = endpoint::resolve(config, &wanted, &env).map(|mut ep| {
        if let Some(k) = key {
            ep.api_key = k;
        }
        ep
    });
    let placeholders = crate::llm::connect::placeholders(home, cwd);
    if let Some(path) = replay {
        let replayer = Replayer::open(path, placeholders).map_err(|e| {
            anyhow::Error::new(Hinted::new(
                e,
                "record one with --record FILE against a live endpoint",
            ))
        })?;
        let ep = replayer.endpoint(resolved.ok());
        return Ok(Model {
            endpoint: ep,
            transport: Box::new(replayer),
        });
    }
    let ep = resolved.map_err(|e| anyhow::Error::new(Hinted::new(e.to_string(), e.hint())))?;
    let http = HttpTransport::new(
        HttpSettings::for_endpoint(&ep, crate::llm::http::read_timeout_from(&env)?),
        Arc::new(AtomicBool::new(false)),
    )?;
    let transport: Box<dyn Transport> = match record {
        Some(path) => Box::new(
            Recorder::create(path, Box::new(http), placeholders)
                .with_context(|| format!("cannot write the cassette {}", path.display()))?,
        ),
        None => Box::new(http),
    };
    Ok(Model {
        endpoint: ep,
        transport,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picked(
        yaml: &str,
    ) -> (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    ) {
        let (o, key) = overrides(&Config::from_yaml(yaml));
        (o.provider, o.model, o.base_url, key)
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    /// `auxiliary.curator` when it names a provider other than `auto` and a model (values
    /// trimmed, blanks unset), else the legacy `curator.auxiliary`, else nothing.
    #[test]
    fn the_curator_slot_then_the_legacy_one_then_none() {
        let legacy = "curator:\n  auxiliary:\n    provider: legacy\n    model: m2\n";
        assert_eq!(
            picked(&format!(
                "auxiliary:\n  curator:\n    provider: openrouter\n    model: ' m1 '\n    base_url: http://127.0.0.1:9/v1\n    api_key: k1\n{legacy}"
            )),
            (
                some("openrouter"),
                some("m1"),
                some("http://127.0.0.1:9/v1"),
                some("k1")
            )
        );
        assert_eq!(
            picked(&format!(
                "auxiliary:\n  curator:\n    provider: openrouter\n    model: m1\n    base_url: '  '\n{legacy}"
            )),
            (some("openrouter"), some("m1"), None, None)
        );
        assert_eq!(
            picked(&format!(
                "auxiliary:\n  curator:\n    provider: auto\n    model: m1\n    api_key: k1\n{legacy}"
            )),
            (some("legacy"), some("m2"), None, None)
        );
        assert_eq!(
            picked(&format!(
                "auxiliary:\n  curator:\n    provider: openrouter\n    model: '  '\n{legacy}"
            )),
            (some("legacy"), some("m2"), None, None)
        );
        assert_eq!(
            picked("curator:\n  auxiliary:\n    provider: legacy\n"),
            (None, None, None, None)
        );
        assert_eq!(picked(""), (None, None, None, None));
    }
}
