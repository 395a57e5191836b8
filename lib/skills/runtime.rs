//! What the running process is, as Hermes's skill filters see it: the OS platform
//! (`sys.platform`), the runtime environments a skill may ask for (`kanban`, `docker`, `s6`),
//! the messaging platform whose disabled list applies, and the environment variables that
//! decide whether a skill's setup is complete.
//!
//! Everything is read once into a [`Runtime`] so tests can build one by hand and a long run
//! (the curator over thousands of skills) never re-probes the system per skill.

use std::collections::BTreeSet;

use crate::home::Config;
use crate::yaml::Value;

/// The environment tags Hermes knows; any other tag never hides a skill.
pub const KNOWN_ENVIRONMENTS: [&str; 3] = ["kanban", "docker", "s6"];

/// The process facts the skill filters depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    /// Python's `sys.platform`: `linux`, `darwin`, `win32`, …
    pub platform: String,
    /// Running under Termux (Android), where `linux`, `termux` and `android` skills match.
    pub termux: bool,
    /// The environment tags that are active (subset of [`KNOWN_ENVIRONMENTS`]).
    pub environments: BTreeSet<String>,
    /// `HERMES_PLATFORM`, else `HERMES_SESSION_PLATFORM`: whose `platform_disabled` list applies.
    pub platform_hint: Option<String>,
    /// A messaging-gateway session, where secrets cannot be prompted for.
    pub gateway: bool,
    /// `HERMES_INTERACTIVE`: a gateway surface that can prompt after all.
    pub interactive: bool,
    /// `TERMINAL_ENV`, lower-cased (`local` when unset).
    pub terminal_env: String,
}

impl Runtime {
    /// Probes the process: environment variables, container markers, the config's toolsets.
    pub fn detect(config: &Config) -> Runtime {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mut environments = BTreeSet::new();
        if var("HERMES_KANBAN_TASK").is_some()
            || var("HERMES_KANBAN_BOARD").is_some()
            || config_has_kanban_toolset(config)
        {
            environments.insert("kanban".to_string());
        }
        if is_container() {
            environments.insert("docker".to_string());
        }
        if std::path::Path::new("/run/s6").is_dir()
            || std::path::Path::new("/package/admin/s6-overlay").is_dir()
        {
            environments.insert("s6".to_string());
        }
        let prefix = std::env::var("PREFIX").unwrap_or_default();
        Runtime {
            platform: sys_platform().to_string(),
            termux: var("TERMUX_VERSION").is_some() || prefix.contains("com.termux/files/usr"),
            environments,
            platform_hint: var("HERMES_PLATFORM").or_else(|| var("HERMES_SESSION_PLATFORM")),
            gateway: env_flag("HERMES_GATEWAY_SESSION") || var("HERMES_SESSION_PLATFORM").is_some(),
            interactive: env_flag("HERMES_INTERACTIVE"),
            terminal_env: std::env::var("TERMINAL_ENV")
                .map(|v| v.trim().to_lowercase())
                .ok()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "local".to_string()),
        }
    }

    /// A plain Linux host with no environments active, no platform and no gateway: for tests.
    pub fn plain_linux() -> Runtime {
        Runtime {
            platform: "linux".into(),
            termux: false,
            environments: BTreeSet::new(),
            platform_hint: None,
            gateway: false,
            interactive: false,
            terminal_env: "local".into(),
        }
    }

    /// `skill_matches_platform_list`: absent or empty matches; a scalar is a one-item list;
    /// `macos`/`linux`/`windows` map to `darwin`/`linux`/`win32` and match by prefix.
    pub fn matches_platforms(&self, platforms: Option<&Value>) -> bool {
        let Some(value) = platforms.filter(|v| v.is_truthy()) else {
            return true;
        };
        let items: Vec<&Value> = match value {
            Value::Seq(items) => items.iter().collect(),
            other => vec![other],
        };
        items.into_iter().any(|item| {
            let normalized = item.py_str().to_lowercase();
            let normalized = normalized.trim();
            let mapped = match normalized {
                "macos" => "darwin",
                "linux" => "linux",
                "windows" => "win32",
                other => other,
            };
            self.platform.starts_with(mapped)
                || (self.termux && matches!(mapped, "linux" | "termux" | "android"))
        })
    }

    /// `skill_matches_environment`: absent or empty matches; any active or unknown tag matches.
    pub fn matches_environments(&self, environments: Option<&Value>) -> bool {
        let Some(value) = environments.filter(|v| v.is_truthy()) else {
            return true;
        };
        let items: Vec<&Value> = match value {
            Value::Seq(items) => items.iter().collect(),
            other => vec![other],
        };
        for item in items {
            let tag = item.py_str().to_lowercase();
            let tag = tag.trim();
            if tag.is_empty() {
                continue;
            }
            if !KNOWN_ENVIRONMENTS.contains(&tag) || self.environments.contains(tag) {
                return true;
            }
        }
        false
    }

    /// The disabled names in scope: `skills.disabled`, unioned with
    /// `skills.platform_disabled.<platform>` when a platform is set and has a list.
    pub fn disabled(&self, config: &Config) -> BTreeSet<String> {
        config
            .skills
            .disabled_for(self.platform_hint.as_deref())
            .into_iter()
            .collect()
    }
}

/// Python's `sys.platform` for the OS this binary was built for.
pub fn sys_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        "freebsd" => "freebsd",
        "android" => "android",
        other => other,
    }
}

/// `utils.env_var_enabled`: `1`, `true`, `yes`, `on` (any case).
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// `toolsets` in config.yaml (default `["hermes-cli"]`) holding `kanban`.
fn config_has_kanban_toolset(config: &Config) -> bool {
    match config.raw().get("toolsets") {
        Some(Value::Seq(items)) => items.iter().any(|v| v.as_str() == Some("kanban")),
        Some(Value::Str(s)) => s.contains("kanban"),
        _ => false,
    }
}

/// `hermes_constants.is_container`: Docker, Podman, Kubernetes and cgroup markers.
fn is_container() -> bool {
    use std::path::Path;
    if Path::new("/.dockerenv").exists() || Path::new("/run/.containerenv").exists() {
        return true;
    }
    if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some_and(|v| !v.is_empty()) {
        return true;
    }
    if let Ok(cgroup) = std::fs::read_to_string("/proc/1/cgroup")
        && [
            "docker",
            "podman",
            "/lxc/",
            "kubepods",
            "containerd",
            "crio",
        ]
        .iter()
        .any(|m| cgroup.contains(m))
    {
        return true;
    }
    std::fs::read_to_string("/proc/self/mountinfo").is_ok_and(|mountinfo| {
        ["kubepods", "containerd", "crio"]
            .iter()
            .any(|m| mountinfo.contains(m))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(items: &[&str]) -> Value {
        Value::Seq(items.iter().map(|s| Value::Str((*s).into())).collect())
    }

    #[test]
    fn platforms_map_and_match_by_prefix() {
        let rt = Runtime::plain_linux();
        assert!(rt.matches_platforms(None));
        assert!(rt.matches_platforms(Some(&seq(&[]))));
        assert!(rt.matches_platforms(Some(&seq(&["macos", " Linux "]))));
        assert!(!rt.matches_platforms(Some(&seq(&["macos"]))));
        assert!(rt.matches_platforms(Some(&Value::Str("linux".into()))));
        assert!(!rt.matches_platforms(Some(&Value::Str("windows".into()))));
        let termux = Runtime {
            termux: true,
            platform: "android".into(),
            ..Runtime::plain_linux()
        };
        assert!(termux.matches_platforms(Some(&seq(&["linux"]))));
        assert!(termux.matches_platforms(Some(&seq(&["termux"]))));
    }

    #[test]
    fn environments_fail_open_on_unknown_tags() {
        let rt = Runtime::plain_linux();
        assert!(rt.matches_environments(None));
        assert!(!rt.matches_environments(Some(&seq(&["kanban"]))));
        assert!(rt.matches_environments(Some(&seq(&["kanban", "mars"]))));
        let docker = Runtime {
            environments: ["docker".to_string()].into(),
            ..Runtime::plain_linux()
        };
        assert!(docker.matches_environments(Some(&Value::Str("Docker".into()))));
    }
}
