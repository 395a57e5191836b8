//! Memory: what the agent knows about its user (`memories/USER.md`) and its environment
//! (`memories/MEMORY.md`), on the format of Hermes 0.19.0 (reference `loop.md` §3).
//!
//! Two small files of entries joined by `"\n§\n"`, each with a budget in Unicode code points,
//! read by every session and written through the `memory` tool. The pieces:
//!
//! - [`entries`]: the file format (parse, join, count, drift) and the numbers in answers;
//! - [`threat`]: the scan that keeps injection and exfiltration payloads out of the prompt;
//! - [`dedupe`]: the normalised form of an entry, duplicate and near-duplicate detection;
//! - [`store`]: [`MemoryStore`], loaded once per session, mutated under the same lock as
//!   Python, with the `memory` tool's result objects;
//! - [`tool`]: the `memory` tool's argument object in, its result object out;
//! - [`snapshot`]: the frozen system-prompt blocks rendered when a session starts;
//! - [`view`]: what `hermes-memory show` and `usage` print.

pub mod dedupe;
pub mod entries;
pub mod snapshot;
pub mod store;
pub mod threat;
pub mod tool;
pub mod view;

use std::path::{Path, PathBuf};

use crate::home::Home;
use crate::home::config::MemoryConfig;
use crate::io::FileError;

pub use snapshot::Snapshot;
pub use store::MemoryStore;

/// Which of the two memory files an action is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Target {
    /// `MEMORY.md`: the agent's notes about its environment.
    Memory,
    /// `USER.md`: who the user is.
    User,
}

impl Target {
    /// Both targets, in the order they appear in the system prompt.
    pub const ALL: [Target; 2] = [Target::Memory, Target::User];

    /// The name the `memory` tool uses (`"memory"`, `"user"`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Memory => "memory",
            Target::User => "user",
        }
    }

    /// The tool's target argument; anything else is not a target.
    pub fn from_name(name: &str) -> Option<Target> {
        match name {
            "memory" => Some(Target::Memory),
            "user" => Some(Target::User),
            _ => None,
        }
    }

    pub fn file_name(self) -> &'static str {
        match self {
            Target::Memory => "MEMORY.md",
            Target::User => "USER.md",
        }
    }

    pub fn path(self, home: &Home) -> PathBuf {
        match self {
            Target::Memory => home.memory_md(),
            Target::User => home.user_md(),
        }
    }

    /// Whether config puts this target's block in the system prompt
    /// (`memory.memory_enabled`, `memory.user_profile_enabled`).
    pub fn enabled(self, config: &MemoryConfig) -> bool {
        match self {
            Target::Memory => config.memory_enabled,
            Target::User => config.user_profile_enabled,
        }
    }

    /// The config key of [`Target::enabled`].
    pub fn enabled_key(self) -> &'static str {
        match self {
            Target::Memory => "memory.memory_enabled",
            Target::User => "memory.user_profile_enabled",
        }
    }

    fn index(self) -> usize {
        match self {
            Target::Memory => 0,
            Target::User => 1,
        }
    }
}

/// Whether the `memory` tool exists at all: Hermes creates no store when both targets are
/// disabled, and the tool answers [`tool::unavailable`].
pub fn available(config: &MemoryConfig) -> bool {
    config.memory_enabled || config.user_profile_enabled
}

/// Character budgets (Unicode code points of the joined file), from `config.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub memory: i64,
    pub user: i64,
}

impl Limits {
    /// Hermes's defaults: 2,200 for MEMORY.md and 1,375 for USER.md.
    pub const DEFAULT: Limits = Limits {
        memory: 2200,
        user: 1375,
    };

    pub fn from_config(config: &MemoryConfig) -> Limits {
        Limits {
            memory: config.memory_char_limit,
            user: config.user_char_limit,
        }
    }

    pub fn of(self, target: Target) -> i64 {
        match target {
            Target::Memory => self.memory,
            Target::User => self.user,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::DEFAULT
    }
}

/// Why the store could not read or write a memory file. A refused action (over budget, no
/// match, drift, a threat) is not an error: it is a result object with `"success": false`.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{}: not valid UTF-8 (first bad byte at offset {offset})", path.display())]
    InvalidUtf8 { path: PathBuf, offset: usize },
    #[error(transparent)]
    Clock(#[from] crate::clock::BadNow),
}

impl MemoryError {
    /// The file the error is about, when there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            MemoryError::File(e) => Some(&e.path),
            MemoryError::InvalidUtf8 { path, .. } => Some(path),
            MemoryError::Clock(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(memory_enabled: bool, user_profile_enabled: bool) -> MemoryConfig {
        MemoryConfig {
            memory_enabled,
            user_profile_enabled,
            write_approval: false,
            memory_char_limit: 3000,
            user_char_limit: 500,
            nudge_interval: 10,
            provider: String::new(),
        }
    }

    #[test]
    fn targets_name_their_file_key_and_slot() {
        let home = Home::at("/h");
        assert_eq!(Target::Memory.name(), "memory");
        assert_eq!(Target::User.name(), "user");
        assert_eq!(Target::from_name("memory"), Some(Target::Memory));
        assert_eq!(Target::from_name("user"), Some(Target::User));
        assert_eq!(Target::from_name("User"), None);
        assert_eq!(Target::Memory.file_name(), "MEMORY.md");
        assert_eq!(Target::User.file_name(), "USER.md");
        assert_eq!(
            Target::Memory.path(&home),
            Path::new("/h/memories/MEMORY.md")
        );
        assert_eq!(Target::User.path(&home), Path::new("/h/memories/USER.md"));
        assert_eq!(Target::Memory.enabled_key(), "memory.memory_enabled");
        assert_eq!(Target::User.enabled_key(), "memory.user_profile_enabled");
        assert_eq!(Target::Memory.index(), 0);
        assert_eq!(Target::User.index(), 1);
    }

    #[test]
    fn each_target_has_its_own_switch_and_budget() {
        let only_user = config(false, true);
        assert!(!Target::Memory.enabled(&only_user));
        assert!(Target::User.enabled(&only_user));
        let only_memory = config(true, false);
        assert!(Target::Memory.enabled(&only_memory));
        assert!(!Target::User.enabled(&only_memory));
        assert!(available(&only_user));
        assert!(available(&only_memory));
        assert!(!available(&config(false, false)));
        let limits = Limits::from_config(&only_user);
        assert_eq!(
            limits,
            Limits {
                memory: 3000,
                user: 500
            }
        );
        assert_eq!(limits.of(Target::Memory), 3000);
        assert_eq!(limits.of(Target::User), 500);
        assert_eq!(
            Limits::default(),
            Limits {
                memory: 2200,
                user: 1375
            }
        );
    }

    #[test]
    fn errors_name_their_file() {
        let path = PathBuf::from("/h/memories/USER.md");
        let bad = MemoryError::InvalidUtf8 {
            path: path.clone(),
            offset: 12,
        };
        assert_eq!(bad.path(), Some(path.as_path()));
        assert_eq!(
            bad.to_string(),
            "/h/memories/USER.md: not valid UTF-8 (first bad byte at offset 12)"
        );
        let file = MemoryError::File(FileError::new(
            "read",
            &path,
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        ));
        assert_eq!(file.path(), Some(path.as_path()));
    }
}
