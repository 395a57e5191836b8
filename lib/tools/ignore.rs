//! The files a search leaves out because the project says so, as ripgrep (upstream's search
//! engine) does by default: patterns from `.gitignore` files and `.git/info/exclude` when the
//! tree is inside a git work tree, and from `.ignore` and `.rgignore` files anywhere. Without
//! this, a search in a code repository wades through `target/` or `node_modules/`.
//!
//! Gitignore rules as git documents them: `#` comments, `!` re-includes, a trailing `/`
//! matches directories only, a pattern with a `/` before its end is anchored to its file's
//! directory and one without matches at any depth, the last matching rule wins and deeper
//! files override shallower ones. Not read: the global excludes file (`core.excludesFile`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use globset::{GlobBuilder, GlobMatcher};

struct Rule {
    glob: GlobMatcher,
    negated: bool,
    dir_only: bool,
}

/// Ignore rules, loaded per directory on first use.
pub struct Ignores {
    /// The highest directory whose ignore files apply: the work tree's top inside git,
    /// otherwise the search root.
    top: PathBuf,
    git: bool,
    cache: HashMap<PathBuf, Rc<Vec<Rule>>>,
}

impl Ignores {
    pub fn new(root: &Path) -> Ignores {
        let dir = if root.is_dir() {
            root
        } else {
            root.parent().unwrap_or(root)
        };
        let work_tree = dir.ancestors().find(|d| d.join(".git").exists());
        Ignores {
            top: work_tree.unwrap_or(dir).to_path_buf(),
            git: work_tree.is_some(),
            cache: HashMap::new(),
        }
    }

    /// Whether `path` (a directory when `is_dir`) is ignored.
    pub fn is_ignored(&mut self, path: &Path, is_dir: bool) -> bool {
        let mut dirs: Vec<&Path> = path
            .ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(&self.top))
            .collect();
        dirs.reverse();
        let mut ignored = false;
        for dir in dirs {
            let Ok(rel) = path.strip_prefix(dir) else {
                continue;
            };
            for rule in self.rules(dir).iter() {
                if (!rule.dir_only || is_dir) && rule.glob.is_match(rel) {
                    ignored = !rule.negated;
                }
            }
        }
        ignored
    }

    fn rules(&mut self, dir: &Path) -> Rc<Vec<Rule>> {
        if let Some(rules) = self.cache.get(dir) {
            return Rc::clone(rules);
        }
        let mut files: Vec<PathBuf> = Vec::new();
        if self.git {
            if dir == self.top {
                files.push(dir.join(".git/info/exclude"));
            }
            files.push(dir.join(".gitignore"));
        }
        // Later files take precedence, as in ripgrep: .rgignore over .ignore over .gitignore.
        files.push(dir.join(".ignore"));
        files.push(dir.join(".rgignore"));
        let rules: Vec<Rule> = files
            .iter()
            .filter_map(|f| std::fs::read(f).ok())
            .flat_map(|bytes| {
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .filter_map(parse)
                    .collect::<Vec<_>>()
            })
            .collect();
        let rules = Rc::new(rules);
        self.cache.insert(dir.to_path_buf(), Rc::clone(&rules));
        rules
    }
}

/// One gitignore line as a rule; `None` for blanks, comments and unusable patterns.
fn parse(line: &str) -> Option<Rule> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    // Trailing spaces are dropped unless the last one is escaped.
    let mut pattern = if line.ends_with("\\ ") {
        line
    } else {
        line.trim_end_matches(' ')
    };
    let negated = pattern.starts_with('!');
    if negated {
        pattern = &pattern[1..];
    }
    // `\!` and `\#` need no unescaping here: the glob reads a backslash as an escape.
    let dir_only = pattern.ends_with('/');
    let pattern = pattern.trim_end_matches('/');
    if pattern.is_empty() {
        return None;
    }
    let glob = if pattern.contains('/') {
        pattern.trim_start_matches('/').to_string()
    } else {
        format!("**/{pattern}")
    };
    let glob = GlobBuilder::new(&glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()?
        .compile_matcher();
    Some(Rule {
        glob,
        negated,
        dir_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        dir
    }

    #[test]
    fn gitignore_rules_inside_a_work_tree() {
        let dir = tree(&[
            (".git/HEAD", "ref: refs/heads/main\n"),
            (
                ".gitignore",
                "# build output\ntarget/\n*.log\n!keep.log\n/build\n",
            ),
            ("sub/.gitignore", "local.txt\n"),
        ]);
        let root = dir.path();
        let mut ig = Ignores::new(&root.join("sub"));
        assert!(ig.is_ignored(&root.join("target"), true));
        assert!(ig.is_ignored(&root.join("sub/target"), true));
        assert!(!ig.is_ignored(&root.join("sub/target"), false));
        assert!(ig.is_ignored(&root.join("sub/debug.log"), false));
        assert!(!ig.is_ignored(&root.join("sub/keep.log"), false));
        assert!(ig.is_ignored(&root.join("build"), true));
        assert!(!ig.is_ignored(&root.join("sub/build"), true));
        assert!(ig.is_ignored(&root.join("sub/local.txt"), false));
        assert!(!ig.is_ignored(&root.join("local.txt"), false));
        assert!(!ig.is_ignored(&root.join("sub/main.rs"), false));
    }

    #[test]
    fn gitignore_needs_git_but_dot_ignore_does_not() {
        let dir = tree(&[(".gitignore", "*.txt\n"), (".ignore", "*.md\n")]);
        let mut ig = Ignores::new(dir.path());
        assert!(!ig.is_ignored(&dir.path().join("a.txt"), false));
        assert!(ig.is_ignored(&dir.path().join("a.md"), false));
    }

    #[test]
    fn escapes_spaces_comments_and_precedence() {
        let dir = tree(&[
            (".git/HEAD", "ref\n"),
            (".git/info/exclude", "excluded.txt\n"),
            (
                ".gitignore",
                "\\#hash\n\\!bang\ntrail   \nsp\\ \n\r\n/\n*.tmp\n",
            ),
            (".ignore", "!keep.tmp\n"),
            (".rgignore", "keep.tmp\n"),
        ]);
        let root = dir.path();
        let mut ig = Ignores::new(root);
        for ignored in [
            "#hash",
            "!bang",
            "trail",
            "sp ",
            "excluded.txt",
            "x.tmp",
            "keep.tmp",
        ] {
            assert!(ig.is_ignored(&root.join(ignored), false), "{ignored}");
        }
        for kept in ["hash", "bang", "trail   ", "sp", "x.tm"] {
            assert!(!ig.is_ignored(&root.join(kept), false), "{kept}");
        }
        // A file as the root: its folder's rules apply.
        let mut from_file = Ignores::new(&root.join("x.tmp"));
        assert!(from_file.is_ignored(&root.join("y.tmp"), false));
    }

    #[test]
    fn a_pattern_with_a_slash_is_anchored_and_stars_stay_in_one_folder() {
        let dir = tree(&[(".ignore", "docs/*.md\n")]);
        let root = dir.path();
        let mut ig = Ignores::new(root);
        assert!(ig.is_ignored(&root.join("docs/a.md"), false));
        assert!(!ig.is_ignored(&root.join("docs/deep/a.md"), false));
        assert!(!ig.is_ignored(&root.join("sub/docs/a.md"), false));
        // Outside the top nothing applies.
        assert!(!ig.is_ignored(Path::new("/docs/a.md"), false));
        assert!(parse("").is_none() && parse("# c").is_none() && parse("!").is_none());
        assert!(parse("a[").is_none());
    }
}
