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
        HubConfig::load_with(home, |name| std::env::var(name).ok())
    }

    /// [`HubConfig::load`] with the environment variable `name` read as `env(name)`.
    fn load_with(home: &Home, env: impl Fn(&str) -> Option<String>) -> Result<HubConfig, String> {
        let mut config = HubConfig {
            taps: Vec::new(),
            well_known: Vec::new(),
            github: true,
            github_taps: DEFAULT_GITHUB_TAPS
                .iter()
                .map(|(r, p)| (r.to_string(), p.to_string()))
                .collect(),
            github_api: env(GITHUB_API_VAR)
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_GITHUB_API.to_string())
                .trim_end_matches('/')
                .to_string(),
            github_token: ["GITHUB_TOKEN", "GH_TOKEN"]
                .iter()
                .find_map(|v| env(v).filter(|t| !t.trim().is_empty())),
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::hub::source::tests::temp_home as home;

    fn write(path: &std::path::Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("parent made");
        std::fs::write(path, text).expect("written");
    }

    /// Loads with only the variables in `vars` set.
    fn load(home: &Home, vars: &[(&str, &str)]) -> HubConfig {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        match HubConfig::load_with(home, |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        }) {
            Ok(config) => config,
            Err(e) => panic!("config should load: {e}"),
        }
    }

    fn with_config(yaml: &str) -> (tempfile::TempDir, Home, HubConfig) {
        let (dir, home) = home();
        write(&home.config_yaml(), yaml);
        let config = load(&home, &[]);
        (dir, home, config)
    }

    fn default_taps() -> Vec<(String, String)> {
        vec![
            ("openai/skills".into(), "skills/.curated/".into()),
            ("openai/skills".into(), "skills/.system/".into()),
            ("anthropics/skills".into(), "skills/".into()),
            ("huggingface/skills".into(), "skills/".into()),
            ("NVIDIA/skills".into(), "skills/".into()),
            ("garrytan/gstack".into(), "".into()),
        ]
    }

    #[test]
    fn without_config_or_environment_the_defaults() {
        let (_dir, home) = home();
        let config = load(&home, &[]);
        assert_eq!(config.taps, Vec::new());
        assert_eq!(config.well_known, Vec::<String>::new());
        assert!(config.github);
        assert_eq!(config.github_taps, default_taps());
        assert_eq!(config.github_api, "https://api.github.com");
        assert_eq!(config.github_token, None);
        assert_eq!(config.timeout, Duration::from_secs(10));
    }

    #[test]
    fn the_api_base_comes_from_the_environment_without_its_trailing_slash() {
        let (_dir, home) = home();
        let config = load(&home, &[(GITHUB_API_VAR, "http://127.0.0.1:8080/api/v3//")]);
        assert_eq!(config.github_api, "http://127.0.0.1:8080/api/v3");
        let config = load(&home, &[(GITHUB_API_VAR, "  ")]);
        assert_eq!(config.github_api, "https://api.github.com");
    }

    #[test]
    fn the_token_is_github_token_then_gh_token_ignoring_blank_ones() {
        let (_dir, home) = home();
        let both = [("GITHUB_TOKEN", "one"), ("GH_TOKEN", "two")];
        assert_eq!(load(&home, &both).github_token.as_deref(), Some("one"));
        let blank_first = [("GITHUB_TOKEN", " \t"), ("GH_TOKEN", "two")];
        assert_eq!(
            load(&home, &blank_first).github_token.as_deref(),
            Some("two")
        );
        assert_eq!(
            load(&home, &[("GH_TOKEN", "two")]).github_token.as_deref(),
            Some("two")
        );
        assert_eq!(load(&home, &[("GH_TOKEN", "")]).github_token, None);
    }

    #[test]
    fn taps_json_adds_github_taps_once_with_skills_as_the_default_folder() {
        let (_dir, home) = home();
        write(
            &home.hub_taps_json(),
            r#"{"taps": [
                {"repo": "acme/skills", "path": "tools/"},
                {"repo": "anthropics/skills", "path": "skills/"},
                {"repo": "acme/more"},
                {"repo": "acme/skills", "path": "tools/"},
                {"path": "no-repo/"},
                {"repo": 7}
            ]}"#,
        );
        let mut expected = default_taps();
        expected.push(("acme/skills".into(), "tools/".into()));
        expected.push(("acme/more".into(), "skills/".into()));
        assert_eq!(load(&home, &[]).github_taps, expected);
    }

    #[test]
    fn a_corrupt_taps_json_adds_nothing() {
        let (_dir, home) = home();
        for text in ["{not json", "{\"taps\": {\"repo\": \"a/b\"}}", "[]"] {
            write(&home.hub_taps_json(), text);
            assert_eq!(load(&home, &[]).github_taps, default_taps(), "{text}");
        }
    }

    #[test]
    fn taps_from_config_yaml() {
        let (dir, _home, config) = with_config(
            "hub:\n  taps:\n    - /srv/team-skills/\n    - {name: mine, path: /srv/skills}\n    - {path: relative/tools}\n    - {name: empty}\n    - ''\n    - /\n",
        );
        assert_eq!(
            config.taps,
            vec![
                Tap {
                    name: "team-skills".into(),
                    path: PathBuf::from("/srv/team-skills/"),
                },
                Tap {
                    name: "mine".into(),
                    path: PathBuf::from("/srv/skills"),
                },
                Tap {
                    name: "tools".into(),
                    path: dir.path().join("relative/tools"),
                },
                Tap {
                    name: "tap".into(),
                    path: PathBuf::from("/"),
                },
            ]
        );
    }

    #[test]
    fn well_known_sites_and_the_github_switch() {
        let (_dir, _home, config) = with_config(
            "hub:\n  well_known:\n    - https://skills.example.com/\n    - 42\n    - https://b.dev\n  github: false\n",
        );
        assert_eq!(
            config.well_known,
            ["https://skills.example.com", "https://b.dev"]
        );
        assert!(!config.github);
        let (_dir, _home, config) = with_config("hub:\n  github: 1\n");
        assert!(config.github);
        let (_dir, _home, config) = with_config("hub:\n  github: ''\n");
        assert!(!config.github);
    }

    #[test]
    fn a_config_without_a_hub_section_is_the_defaults() {
        let (_dir, _home, config) = with_config("model: x\n");
        assert_eq!(config.taps, Vec::new());
        assert!(config.github);
        assert_eq!(config.timeout, Duration::from_secs(10));
    }

    #[test]
    fn the_timeout_is_a_positive_finite_number_of_seconds_at_most_600() {
        for (value, expected) in [
            ("2", Duration::from_secs(2)),
            ("0.5", Duration::from_millis(500)),
            ("'3'", Duration::from_secs(3)),
            ("600", Duration::from_secs(600)),
            ("601", Duration::from_secs(600)),
            ("1e9", Duration::from_secs(600)),
            // Refused: the default stays.
            ("0", Duration::from_secs(10)),
            ("0.0", Duration::from_secs(10)),
            ("-5", Duration::from_secs(10)),
            (".nan", Duration::from_secs(10)),
            (".inf", Duration::from_secs(10)),
            ("soon", Duration::from_secs(10)),
            ("true", Duration::from_secs(10)),
        ] {
            let (_dir, _home, config) = with_config(&format!("hub:\n  timeout: {value}\n"));
            assert_eq!(config.timeout, expected, "{value}");
        }
    }

    #[test]
    fn invalid_yaml_is_an_error_naming_the_file() {
        let (_dir, home) = home();
        write(&home.config_yaml(), "hub: [a\n");
        let err = HubConfig::load_with(&home, |_| None).expect_err("invalid YAML");
        assert_eq!(
            err,
            format!(
                "{}: did not find expected ',' or ']'",
                home.config_yaml().display()
            )
        );
    }

    #[test]
    fn load_reads_the_config_file() {
        let (_dir, home) = home();
        write(
            &home.config_yaml(),
            "hub:\n  well_known: [https://a.dev]\n  timeout: 3\n",
        );
        let config = HubConfig::load(&home).expect("loads");
        assert_eq!(config.well_known, ["https://a.dev"]);
        assert_eq!(config.timeout, Duration::from_secs(3));
    }
}
