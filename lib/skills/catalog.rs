//! One walk over every skill root: each `SKILL.md` found, with the root it came from, in
//! Hermes's precedence order (the local root first, then the external roots; inside a root
//! sorted by path). Everything that needs "all the skills" — listing, name resolution,
//! `skill_manage`'s lookup, provenance, the curator — works from one [`Catalog`] instead of
//! walking the tree again per question.

use std::path::{Path, PathBuf};

use super::discover::{self, WalkProblem};
use super::roots::{RootKind, Roots};

/// One `SKILL.md` and the root it was found under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    pub root: RootKind,
    pub skill_md: PathBuf,
}

impl SkillFile {
    /// The skill's directory (the folder holding `SKILL.md`).
    pub fn dir(&self) -> &Path {
        self.skill_md.parent().unwrap_or(Path::new(""))
    }

    /// The directory's name: the name `skill_manage` addresses a skill by.
    pub fn dir_name(&self) -> String {
        self.dir()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    pub fn is_local(&self) -> bool {
        self.root == RootKind::Local
    }
}

/// Every skill under the roots, in precedence order.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub files: Vec<SkillFile>,
    /// Folders the walk could not enter (symlink loops, permissions).
    pub problems: Vec<WalkProblem>,
}

impl Catalog {
    /// Walks the roots that exist.
    pub fn scan(roots: &Roots) -> Catalog {
        let mut catalog = Catalog::default();
        for (kind, dir) in roots.searched() {
            let found = discover::skill_files(dir);
            catalog
                .files
                .extend(found.files.into_iter().map(|skill_md| SkillFile {
                    root: kind,
                    skill_md,
                }));
            catalog.problems.extend(found.problems);
        }
        catalog
    }

    /// `skill_manage`'s `_find_skill`: the first skill, local root first, whose directory
    /// is named `name` (the frontmatter name is not consulted).
    pub fn find_dir(&self, name: &str) -> Option<&SkillFile> {
        self.files.iter().find(|f| f.dir_name() == name)
    }

    /// The skills under the local root.
    pub fn local(&self) -> impl Iterator<Item = &SkillFile> {
        self.files.iter().filter(|f| f.is_local())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::{Config, Home};

    #[test]
    fn local_root_comes_first_and_dir_lookup_ignores_frontmatter() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        write("skills/b/SKILL.md", "---\nname: other\n---\n");
        write("ext/a/SKILL.md", "---\nname: a\n---\n");
        write("ext/b/SKILL.md", "---\nname: b\n---\n");
        let home = Home::at(dir.path());
        let config =
            Config::from_bytes(b"skills:\n  external_dirs: ext\n", Path::new("c")).expect("c");
        let roots = Roots::new(&home, &config);
        let catalog = Catalog::scan(&roots);
        let names: Vec<String> = catalog.files.iter().map(SkillFile::dir_name).collect();
        assert_eq!(names, vec!["b", "a", "b"]);
        let found = catalog.find_dir("b").expect("found");
        assert!(found.is_local());
        assert!(catalog.find_dir("other").is_none());
    }
}
