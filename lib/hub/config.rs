//! Where the hub looks: the `hub:` section of config.yaml, `.hub/taps.json` (GitHub taps,
//! shared with Python Hermes) and the environment.
//!
//! ```yaml
//! hub:
//!   taps:                      # local directories or git checkouts of skills
//!     - ~/src/team-skills      # named after the folder (here `team-skills`)
//!     - {name: mine, path: /srv/skills}
//!   well_known:                # sites serving /.well-known/skills/index.json
//!     - https://skills.example.com
//!   github: true               # search the GitHub taps (default true)
//!   timeout: 10                # seconds per source and per request
//! ```
//! Environment: `GITHUB_TOKEN` / `GH_TOKEN`, `HERMES_HUB_GITHUB_API` (the API base URL,
//! default `https://api.github.com`, for tests and GitHub Enterprise),
//! `HERMES_HUB_ALLOW_PRIVATE=1` (see [`super::net`]).

use std::path::PathBuf;
use std::time::Duration;

use crate::home::Home;
use crate::yaml::{self, Value};

pub const GITHUB_API_VAR: &str = "HERMES_HUB_GITHUB_API";
pub const DEFAULT_GITHUB_API: &str = "https://api.github.com";

/// Hermes's default GitHub taps (reference §7.2, source 6): repository and folder.
pub const DEFAULT_GITHUB_TAPS: [(&str, &str); 6] = [
    ("openai/skills", "skills/.curated/"),
    ("openai/skills", "skills/.system/"),
    ("anthropics/skills", "skills/"),
    ("huggingface/skills", "skills/"),
    ("NVIDIA/skills", "skills/"),
    ("garrytan/gstack", ""),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tap {
    pub name: String,
    pub path: PathBuf,
}

#[derive(Debug, Clone)]
pub struct HubConfig {
    pub taps: Vec<Tap>,
    pub well_known: Vec<String>,
    pub github: bool,
    /// (repository, folder) pairs searched on GitHub.
    pub github_taps: Vec<(String, String)>,
    pub github_api: String,
    pub github_token: Option<String>,
    pub timeout: Duration,
}

impl HubConfig {
    /// Reads config.yaml (a missing file is the defaults), taps.json and the environment.
    pub fn load(home: &Home) -> Result<HubConfig, String> {
        let mut config = HubConfig {
            taps: Vec::new(),
            well_known: Vec::new(),
            github: true,
            github_taps: DEFAULT_GITHUB_TAPS
                .iter()
                .map(|(r, p)| (r.to_string(), p.to_string()))
                .collect(),
            github_api: std::env::var(GITHUB_API_VAR)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_GITHUB_API.to_string())
                .trim_end_matches('/')
                .to_string(),
            github_token: ["GITHUB_TOKEN", "GH_TOKEN"]
                .iter()
                .find_map(|v| std::env::var(v).ok().filter(|t| !t.trim().is_empty())),
            timeout: Duration::from_secs(10),
        };
        let path = home.config_yaml();
        if let Ok(text) = std::fs::read_to_string(&path) {
            let root = yaml::load(&text, &path.display().to_string())
                .map_err(|e| format!("{}: {}", path.display(), e.problem))?;
            if let Some(hub) = root.get("hub") {
                config.apply(hub, home);
            }
        }
        if let Ok(bytes) = std::fs::read(home.hub_taps_json())
            && let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes)
        {
            for tap in value
                .get("taps")
                .and_then(|t| t.as_array())
                .into_iter()
                .flatten()
            {
                if let Some(repo) = tap.get("repo").and_then(|r| r.as_str()) {
                    let folder = tap
                        .get("path")
                        .and_then(|p| p.as_str())
                        .unwrap_or("skills/");
                    let pair = (repo.to_string(), folder.to_string());
                    if !config.github_taps.contains(&pair) {
                        config.github_taps.push(pair);
                    }
                }
            }
        }
        Ok(config)
    }

    fn apply(&mut self, hub: &Value, home: &Home) {
        for tap in hub.get("taps").and_then(Value::as_seq).unwrap_or(&[]) {
            let (name, path) = match tap {
                Value::Str(path) => (None, path.clone()),
                other => (
                    other
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    other
                        .get("path")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                ),
            };
            if path.is_empty() {
                continue;
            }
            let expanded =
                PathBuf::from(crate::home::expand_user(&crate::home::expand_vars(&path)));
            let path = if expanded.is_relative() {
                home.root().join(expanded)
            } else {
                expanded
            };
            let name = name.unwrap_or_else(|| {
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "tap".into())
            });
            self.taps.push(Tap { name, path });
        }
        for site in hub.get("well_known").and_then(Value::as_seq).unwrap_or(&[]) {
            if let Some(site) = site.as_str() {
                self.well_known.push(site.trim_end_matches('/').to_string());
            }
        }
        if let Some(github) = hub.get("github") {
            self.github = github.is_truthy();
        }
        if let Some(secs) = hub.get("timeout").map(Value::py_str)
            && let Ok(secs) = secs.parse::<f64>()
            && secs.is_finite()
            && secs > 0.0
        {
            self.timeout = Duration::from_secs_f64(secs.min(600.0));
        }
    }
}
