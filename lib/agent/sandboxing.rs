//! The sandbox of an agent session: the policy that config.yaml's `sandbox:` section and the
//! flags ask for, built for the session's workspace (lib/sandbox does the containing).
//!
//! ```yaml
//! sandbox:
//!   mode: workspace-write        # read-only | workspace-write | full
//!   network: off                 # off | loopback | on
//!   deny_read: [~/.config/my-tool]   # more paths commands may never read
//!   writable: [/data/scratch]        # more paths commands may write
//!   env: [MY_TOOL_HOME]              # more variables commands may see
//! ```

use std::path::Path;
use std::sync::Arc;

use crate::home::{Config, Home};
use crate::sandbox::{Mode, Network, Places, Policy, Redactor, Sandbox, SandboxError};
use crate::yaml::Value;

/// What the flags say; `None` leaves it to config.yaml, then the defaults
/// (workspace-write, network off).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SandboxChoice {
    pub mode: Option<Mode>,
    pub network: Option<Network>,
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxSetupError {
    #[error("config.yaml: {key}: {value:?} is not one of {expected}")]
    BadConfig {
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// The policy for a session working in `workspace`.
pub fn policy(
    config: &Config,
    home: &Home,
    workspace: &Path,
    choice: SandboxChoice,
) -> Result<Policy, SandboxSetupError> {
    let section = config.raw().get_path(&["sandbox"]);
    let mode = choice.mode.map_or_else(
        || mode_of(section, "sandbox", "mode", Mode::WorkspaceWrite),
        Ok,
    )?;
    let network = choice
        .network
        .map_or_else(|| network_of(section, "sandbox", Network::Off), Ok)?;
    let strings = |key: &str| strings_of(section, key);
    let (mut policy, user_home) = base_policy(mode, network, workspace, home);
    policy.extend(
        &strings("deny_read"),
        &strings("writable"),
        &strings("env"),
        user_home.as_deref(),
    );
    Ok(policy)
}

/// The mode under `key` of the config section at `path`, else `default`.
fn mode_of(
    section: Option<&Value>,
    path: &str,
    key: &str,
    default: Mode,
) -> Result<Mode, SandboxSetupError> {
    match section.and_then(|s| s.get(key)).map(Value::py_str) {
        Some(t) => Mode::parse(&t).ok_or(SandboxSetupError::BadConfig {
            key: format!("{path}.{key}"),
            value: t,
            expected: "read-only, workspace-write, full",
        }),
        None => Ok(default),
    }
}

/// `network` of the config section at `path` (YAML's `off`/`on` read as booleans too),
/// else `default`.
fn network_of(
    section: Option<&Value>,
    path: &str,
    default: Network,
) -> Result<Network, SandboxSetupError> {
    match section.and_then(|s| s.get("network")).map(Value::py_str) {
        Some(t) => Network::parse(&t.to_lowercase()).ok_or(SandboxSetupError::BadConfig {
            key: format!("{path}.network"),
            value: t,
            expected: "off, loopback, on",
        }),
        None => Ok(default),
    }
}

fn strings_of(section: Option<&Value>, key: &str) -> Vec<String> {
    section
        .and_then(|s| s.get(key))
        .and_then(Value::as_seq)
        .map(|items| items.iter().map(Value::py_str).collect())
        .unwrap_or_default()
}

/// The session's sandbox, with our own credential variables and HERMES_HOME/.env's values
/// as the secrets to redact.
pub fn build(
    config: &Config,
    home: &Home,
    workspace: &Path,
    choice: SandboxChoice,
) -> Result<Arc<Sandbox>, SandboxSetupError> {
    let sandbox = Sandbox::new(policy(config, home, workspace, choice)?)?;
    Ok(Arc::new(with_redactor(sandbox, home)?))
}

/// The session policy for `workspace`, and the user's home it was built with.
fn base_policy(
    mode: Mode,
    network: Network,
    workspace: &Path,
    home: &Home,
) -> (Policy, Option<std::path::PathBuf>) {
    let user_home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let policy = Policy::for_session(
        mode,
        network,
        &Places {
            workspace,
            hermes_home: home.root(),
            user_home: user_home.as_deref(),
        },
    );
    (policy, user_home)
}

/// `sandbox` redacting our own credential variables and HERMES_HOME/.env's values.
fn with_redactor(mut sandbox: Sandbox, home: &Home) -> Result<Sandbox, SandboxSetupError> {
    let mut redactor = Redactor::new(std::env::vars());
    if let Ok(text) = std::fs::read_to_string(home.root().join(".env")) {
        redactor.add_dotenv(&text);
    }
    sandbox.set_redactor(redactor);
    Ok(sandbox)
}

/// What a memory provider may not write even inside HERMES_HOME: what the agent changes
/// only through its own tools, and the store of every conversation.
const PROVIDER_READ_ONLY: &[&str] = &[
    "memories",
    "skills",
    "config.yaml",
    "SOUL.md",
    "plugins",
    "state.db",
    "state.db-wal",
    "state.db-shm",
];

/// The sandbox of memory provider `name` (the user's own program, fed what the model says):
/// it reads what commands read, writes HERMES_HOME but for the agent's own stores and
/// config (and `memory.providers.NAME.writable`), reaches the network (`network: off` turns
/// it off: providers are often services), and sees the allowlisted environment plus
/// `memory.providers.NAME.env` (its API key, say). `sandbox: full` runs it uncontained.
pub fn build_for_provider(
    config: &Config,
    home: &Home,
    name: &str,
) -> Result<Sandbox, SandboxSetupError> {
    let section = config.raw().get_path(&["memory", "providers", name]);
    let path = format!("memory.providers.{name}");
    let mode = mode_of(section, &path, "sandbox", Mode::WorkspaceWrite)?;
    let network = network_of(section, &path, Network::On)?;
    let strings = |key: &str| strings_of(section, key);
    let (mut policy, user_home) = base_policy(mode, network, home.root(), home);
    // The session policy protects HERMES_HOME whole; a provider keeps its notes there.
    policy.read_only_paths = PROVIDER_READ_ONLY
        .iter()
        .map(|p| home.root().join(p))
        .collect();
    policy.extend(
        &[],
        &strings("writable"),
        &strings("env"),
        user_home.as_deref(),
    );
    with_redactor(Sandbox::new(policy)?, home)
}

/// `{"mode": …, "network": …, "mechanism": …}` for `thread.started`.
pub fn describe_json(sandbox: &Sandbox) -> serde_json::Value {
    let d = sandbox.describe();
    serde_json::json!({"mode": d.mode, "network": d.network, "mechanism": d.mechanism})
}

/// `sandbox workspace-write, network off (landlock+seccomp)` for the start line.
pub fn describe_line(sandbox: &Sandbox) -> String {
    let d = sandbox.describe();
    format!(
        "sandbox {}, network {} ({})",
        d.mode, d.network, d.mechanism
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> Config {
        Config::from_yaml(yaml)
    }

    fn home() -> Home {
        Home::at(std::path::PathBuf::from("/h/.hermes"))
    }

    #[test]
    fn flags_win_over_config_and_config_over_the_defaults() {
        let none = SandboxChoice::default();
        let p = policy(&config(""), &home(), Path::new("/w"), none).ok();
        assert_eq!(
            p.map(|p| (p.mode, p.network)),
            Some((Mode::WorkspaceWrite, Network::Off))
        );
        let c = config("sandbox:\n  mode: read-only\n  network: on\n  env: [MY_VAR]\n");
        let p = policy(&c, &home(), Path::new("/w"), none).ok();
        assert_eq!(
            p.as_ref().map(|p| (p.mode, p.network, p.env_allow.clone())),
            Some((Mode::ReadOnly, Network::On, vec!["MY_VAR".to_string()]))
        );
        let flags = SandboxChoice {
            mode: Some(Mode::FullAccess),
            network: Some(Network::Off),
        };
        let p = policy(&c, &home(), Path::new("/w"), flags).ok();
        assert_eq!(
            p.map(|p| (p.mode, p.network)),
            Some((Mode::FullAccess, Network::Off))
        );
    }

    #[test]
    fn a_bad_config_value_is_an_error_naming_the_key() {
        let c = config("sandbox:\n  mode: wide-open\n");
        let err = policy(&c, &home(), Path::new("/w"), SandboxChoice::default())
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "config.yaml: sandbox.mode: \"wide-open\" is not one of read-only, workspace-write, full"
            )
        );
    }
}
