//! The skill roots and their precedence: the local `$HERMES_HOME/skills` first, then each
//! `skills.external_dirs` entry in config order (expanded, resolved, existing, deduplicated,
//! the local root dropped). A name found in an earlier root wins.

use std::path::{Path, PathBuf};

use crate::home::{Config, Home, resolve_lenient};

/// Where skills are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    /// `$HERMES_HOME/skills`, as written (not resolved), like Python's `get_hermes_home()/"skills"`.
    pub local: PathBuf,
    /// External roots, resolved, existing, in config order.
    pub external: Vec<PathBuf>,
}

/// Which root a skill lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RootKind {
    Local,
    /// The n-th external root.
    External(usize),
}

impl Roots {
    pub fn new(home: &Home, config: &Config) -> Roots {
        Roots {
            local: home.skills_dir(),
            external: config.skills.external_dir_paths(home),
        }
    }

    /// The roots that exist, in precedence order (the local one only when it exists).
    pub fn searched(&self) -> Vec<(RootKind, &Path)> {
        let mut out = Vec::with_capacity(1 + self.external.len());
        if self.local.is_dir() {
            out.push((RootKind::Local, self.local.as_path()));
        }
        for (i, dir) in self.external.iter().enumerate() {
            out.push((RootKind::External(i), dir.as_path()));
        }
        out
    }

    /// The directory of a root.
    pub fn dir(&self, kind: RootKind) -> &Path {
        match kind {
            RootKind::Local => &self.local,
            RootKind::External(i) => &self.external[i],
        }
    }

    /// Whether `path` lies under an external root (`is_external_skill_path`): both sides
    /// resolved, so an external dir mounted inside the local tree still counts as external.
    pub fn is_external(&self, path: &Path) -> bool {
        if self.external.is_empty() {
            return false;
        }
        let candidate = resolve_lenient(path);
        self.external
            .iter()
            .any(|root| candidate.starts_with(resolve_lenient(root)))
    }

    /// The root `path` lies in, checked lexically as Python's `relative_to` does: the local
    /// root first, then the external ones.
    pub fn containing(&self, path: &Path) -> Option<RootKind> {
        if path.starts_with(&self.local) {
            return Some(RootKind::Local);
        }
        self.external
            .iter()
            .position(|root| path.starts_with(root))
            .map(RootKind::External)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_dirs_follow_the_local_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(dir.path().join("skills")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("ext")).expect("mkdir");
        let config = Config::from_bytes(
            b"skills:\n  external_dirs: [ext, skills, missing, ext]\n",
            Path::new("config.yaml"),
        )
        .expect("config");
        let roots = Roots::new(&home, &config);
        let real = dir.path().canonicalize().expect("canon");
        assert_eq!(roots.external, vec![real.join("ext")]);
        let kinds: Vec<RootKind> = roots.searched().into_iter().map(|(k, _)| k).collect();
        assert_eq!(kinds, vec![RootKind::Local, RootKind::External(0)]);
        assert!(roots.is_external(&dir.path().join("ext/a/SKILL.md")));
        assert!(!roots.is_external(&dir.path().join("skills/a/SKILL.md")));
    }
}
