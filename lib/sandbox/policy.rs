//! What a contained command may touch: the filesystem mode, the network, the paths that stay
//! out of reach whatever the mode says, and the resource limits. Plain data: `linux` turns it
//! into kernel rules, `denial` reads a failure against it.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Read everything but the secrets; write only the private temp dir.
    ReadOnly,
    /// Also write the workspace (minus its protected paths).
    WorkspaceWrite,
    /// No containment of the filesystem or the network (the explicit escape hatch). The
    /// environment is still an allowlist and output is still redacted.
    FullAccess,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::WorkspaceWrite => "workspace-write",
            Mode::FullAccess => "full",
        }
    }

    /// The names CLI.md and config.yaml use; Codex's `danger-full-access` is accepted too.
    pub fn parse(text: &str) -> Option<Mode> {
        match text.trim() {
            "read-only" => Some(Mode::ReadOnly),
            "workspace-write" => Some(Mode::WorkspaceWrite),
            "full" | "danger-full-access" => Some(Mode::FullAccess),
            _ => None,
        }
    }
}

/// What a command may reach over the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// No internet sockets at all (Unix sockets stay, for local tools).
    Off,
    /// A network namespace of its own: its own loopback, nothing else.
    Loopback,
    On,
}

impl Network {
    pub fn as_str(self) -> &'static str {
        match self {
            Network::Off => "off",
            Network::Loopback => "loopback",
            Network::On => "on",
        }
    }

    pub fn parse(text: &str) -> Option<Network> {
        match text.trim() {
            "off" | "false" | "no" => Some(Network::Off),
            "loopback" => Some(Network::Loopback),
            "on" | "true" | "yes" => Some(Network::On),
            _ => None,
        }
    }
}

/// Resource limits set on the child before exec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// CPU seconds per process (`RLIMIT_CPU`); the wall-clock timeout is the caller's.
    pub cpu: Option<Duration>,
    /// Largest file a process may write (`RLIMIT_FSIZE`).
    pub file_size: Option<u64>,
    /// Processes beyond those the system already runs (`RLIMIT_NPROC` counts per user).
    pub extra_processes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            cpu: None,
            file_size: Some(8 << 30),
            extra_processes: Some(2048),
        }
    }
}

/// The home-relative places that hold credentials: never readable by a contained command.
/// Extendable with `sandbox.deny_read` in config.yaml.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".config/rclone",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".thunderbird",
    ".codex/auth.json",
    ".claude/.credentials.json",
];

/// System files that hold credentials (readable to root without a sandbox).
pub const SYSTEM_SECRETS: &[&str] = &["/etc/shadow", "/etc/gshadow", "/etc/sudoers"];

/// HERMES_HOME files that hold credentials.
pub const HERMES_SECRETS: &[&str] = &[".env", "auth.json"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub mode: Mode,
    pub network: Network,
    /// Writable under `WorkspaceWrite` (the workspace, and what config adds).
    pub writable_roots: Vec<PathBuf>,
    /// Never writable, even inside a writable root (HERMES_HOME, a repository's hooks and
    /// config): changed only through the agent's own tools, which scan what they write.
    pub read_only_paths: Vec<PathBuf>,
    /// Never readable (nor writable).
    pub unreadable_paths: Vec<PathBuf>,
    /// Variable names passed to commands beyond the base allowlist.
    pub env_allow: Vec<String>,
    pub limits: Limits,
}

/// What the caller knows when it builds the policy of an agent session.
pub struct Places<'a> {
    pub workspace: &'a Path,
    pub hermes_home: &'a Path,
    /// The user's home directory (`$HOME`), when there is one.
    pub user_home: Option<&'a Path>,
}

impl Policy {
    /// The policy of an agent session: the workspace writable (under `WorkspaceWrite`),
    /// HERMES_HOME and the workspace's `.git` hooks and config read-only, the credential
    /// lists unreadable.
    pub fn for_session(mode: Mode, network: Network, places: &Places<'_>) -> Policy {
        let mut read_only_paths = vec![places.hermes_home.to_path_buf()];
        let git = places.workspace.join(".git");
        read_only_paths.push(git.join("hooks"));
        read_only_paths.push(git.join("config"));
        let mut unreadable_paths: Vec<PathBuf> = HERMES_SECRETS
            .iter()
            .map(|f| places.hermes_home.join(f))
            .collect();
        if let Some(home) = places.user_home {
            unreadable_paths.extend(HOME_SECRETS.iter().map(|p| home.join(p)));
        }
        unreadable_paths.extend(SYSTEM_SECRETS.iter().map(PathBuf::from));
        unreadable_paths.extend(host_keys());
        Policy {
            mode,
            network,
            writable_roots: vec![places.workspace.to_path_buf()],
            read_only_paths,
            unreadable_paths,
            env_allow: Vec::new(),
            limits: Limits::default(),
        }
    }

    /// Adds what config.yaml's `sandbox:` section names: paths made unreadable or writable,
    /// variables passed through. `~/` is the user's home.
    pub fn extend(
        &mut self,
        deny_read: &[String],
        writable: &[String],
        env: &[String],
        user_home: Option<&Path>,
    ) {
        let expand = |p: &String| match (p.strip_prefix("~/"), user_home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(p),
        };
        self.unreadable_paths.extend(deny_read.iter().map(expand));
        self.writable_roots.extend(writable.iter().map(expand));
        self.env_allow.extend(env.iter().cloned());
    }

    /// Whether a write to `path` (absolute, normalized) is allowed by the policy, not by the
    /// file's own permissions.
    pub fn may_write(&self, path: &Path, temp_dir: &Path) -> bool {
        if self.mode == Mode::FullAccess {
            return true;
        }
        // A protected path counts inside a writable root, as the read-only mounts do: a
        // workspace that lies within HERMES_HOME stays writable, HERMES_HOME's own files not.
        let protected = self
            .read_only_paths
            .iter()
            .any(|p| path.starts_with(p) && self.writable_roots.iter().any(|w| p.starts_with(w)));
        if self.is_unreadable(path) || protected {
            return false;
        }
        path.starts_with(temp_dir)
            || (self.mode == Mode::WorkspaceWrite
                && self.writable_roots.iter().any(|r| path.starts_with(r)))
    }

    /// The policy with every path that exists replaced by its real location, to compare
    /// with the real location of a file (a root or a secret reached through a symlink).
    pub fn resolved(&self) -> Policy {
        let real = |paths: &[PathBuf]| -> Vec<PathBuf> {
            paths
                .iter()
                .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
                .collect()
        };
        Policy {
            writable_roots: real(&self.writable_roots),
            read_only_paths: real(&self.read_only_paths),
            unreadable_paths: real(&self.unreadable_paths),
            ..self.clone()
        }
    }

    pub fn is_unreadable(&self, path: &Path) -> bool {
        self.mode != Mode::FullAccess && self.unreadable_paths.iter().any(|p| path.starts_with(p))
    }
}

/// The SSH daemon's private host keys.
fn host_keys() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/etc/ssh") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ssh_host_") && n.ends_with("_key"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(mode: Mode) -> Policy {
        Policy::for_session(
            mode,
            Network::Off,
            &Places {
                workspace: Path::new("/w"),
                hermes_home: Path::new("/h/.hermes"),
                user_home: Some(Path::new("/h")),
            },
        )
    }

    #[test]
    fn the_mode_names_round_trip_and_codex_spelling_is_accepted() {
        for mode in [Mode::ReadOnly, Mode::WorkspaceWrite, Mode::FullAccess] {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(Mode::parse("danger-full-access"), Some(Mode::FullAccess));
        assert_eq!(Mode::parse("writable"), None);
        assert_eq!(Network::parse("loopback"), Some(Network::Loopback));
        assert_eq!(Network::parse("maybe"), None);
    }

    #[test]
    fn workspace_write_writes_the_workspace_but_not_its_protected_paths() {
        let p = policy(Mode::WorkspaceWrite);
        let tmp = Path::new("/t/private");
        assert!(p.may_write(Path::new("/w/src/main.rs"), tmp));
        assert!(p.may_write(Path::new("/t/private/x"), tmp));
        assert!(!p.may_write(Path::new("/w/.git/hooks/pre-commit"), tmp));
        assert!(!p.may_write(Path::new("/w/.git/config"), tmp));
        assert!(p.may_write(Path::new("/w/.git/index"), tmp));
        assert!(!p.may_write(Path::new("/h/.bashrc"), tmp));
        assert!(!p.may_write(Path::new("/h/.hermes/memories/MEMORY.md"), tmp));
        let inside_home = Policy::for_session(
            Mode::WorkspaceWrite,
            Network::Off,
            &Places {
                workspace: Path::new("/h/.hermes/work"),
                hermes_home: Path::new("/h/.hermes"),
                user_home: Some(Path::new("/h")),
            },
        );
        assert!(inside_home.may_write(Path::new("/h/.hermes/work/a.txt"), tmp));
        assert!(!inside_home.may_write(Path::new("/h/.hermes/config.yaml"), tmp));
    }

    #[test]
    fn read_only_writes_only_its_temp_dir_and_full_writes_anything() {
        let tmp = Path::new("/t/private");
        let ro = policy(Mode::ReadOnly);
        assert!(!ro.may_write(Path::new("/w/a"), tmp));
        assert!(ro.may_write(Path::new("/t/private/a"), tmp));
        let full = policy(Mode::FullAccess);
        assert!(full.may_write(Path::new("/etc/passwd"), tmp));
        assert!(!full.is_unreadable(Path::new("/h/.ssh/id_ed25519")));
    }

    #[test]
    fn credentials_are_unreadable_and_config_extends_the_lists() {
        let mut p = policy(Mode::WorkspaceWrite);
        assert!(p.is_unreadable(Path::new("/h/.ssh/id_ed25519")));
        assert!(p.is_unreadable(Path::new("/h/.hermes/.env")));
        assert!(p.is_unreadable(Path::new("/etc/shadow")));
        assert!(!p.is_unreadable(Path::new("/h/.sshrc")));
        assert!(!p.is_unreadable(Path::new("/h/.hermes/config.yaml")));
        p.extend(
            &["~/.secret-tool".into()],
            &["/data".into()],
            &["MY_VAR".into()],
            Some(Path::new("/h")),
        );
        assert!(p.is_unreadable(Path::new("/h/.secret-tool/key")));
        assert!(p.may_write(Path::new("/data/x"), Path::new("/t")));
        assert_eq!(p.env_allow, ["MY_VAR"]);
    }
}
