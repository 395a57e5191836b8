//! Finding skills: the walk Hermes's `iter_skill_index_files` does (symlinks followed,
//! excluded folders and the support folders of a skill pruned, sorted by path string), made
//! safe against symlink loops and unreadable folders.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::limits::SUPPORT_DIRS;

/// Folder names never descended into and never yielding skills (`EXCLUDED_SKILL_DIRS`).
pub const EXCLUDED_DIRS: [&str; 14] = [
    ".git",
    ".github",
    ".hub",
    ".archive",
    ".venv",
    "venv",
    "node_modules",
    "site-packages",
    "__pycache__",
    ".tox",
    ".nox",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
];

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// A folder the walk could not enter (permissions, a symlink loop, a dangling link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkProblem {
    pub path: PathBuf,
    pub message: String,
    /// A folder that could not be read (permissions, I/O); not a symlink loop or a dangling
    /// symlink, which are skipped on purpose.
    pub unreadable: bool,
}

/// The result of a walk: the files found, in Hermes's order, and what could not be walked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub files: Vec<PathBuf>,
    pub problems: Vec<WalkProblem>,
}

/// Every `SKILL.md` under `root`, in Hermes's order.
pub fn skill_files(root: &Path) -> Found {
    index_files(root, SKILL_FILE)
}

/// Every file named `file_name` under `root`, walking as Hermes's `iter_skill_index_files`:
/// symlinked folders are followed (a loop is reported, not followed forever), folders named in
/// [`EXCLUDED_DIRS`] are skipped, so are the support folders (`references`, `scripts`, …)
/// directly inside a skill, and the result is sorted by path string.
pub fn index_files(root: &Path, file_name: &str) -> Found {
    let mut found = Found::default();
    found.problems = walk_index_files(root, file_name, &mut |path| found.files.push(path));
    found.files.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    found.files.dedup();
    found
}

/// The walk of [`index_files`], handing each file to `visit` once the walk has left its folder
/// (in walk order, not yet sorted), so a caller can start work on it while the walk goes on.
/// Returns what could not be walked.
pub fn walk_index_files(
    root: &Path,
    file_name: &str,
    visit: &mut dyn FnMut(PathBuf),
) -> Vec<WalkProblem> {
    walk(root, file_name, false, &mut |file, _| visit(file))
}

/// walkdir's `sort_by_file_name` with a cheaper comparison. `DirEntry::file_name` parses
/// the entry's path into components on every call, twice per comparison of a sort; over a
/// tree of 1,400 skills that was 1.3 % of a scan. The entries sorted together are one
/// directory's, each its path joined with its name: their paths share everything up to the
/// name, so comparing the paths as strings compares the names.
fn by_file_name(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    a.path().as_os_str().cmp(b.path().as_os_str())
}

fn walk_problem(root: &Path, err: &walkdir::Error) -> WalkProblem {
    let path = err
        .path()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root.to_path_buf());
    let is_loop = err.loop_ancestor().is_some();
    let dangling = err.io_error().map(std::io::Error::kind) == Some(std::io::ErrorKind::NotFound);
    let message = if is_loop {
        "symlink loop (not followed)".to_string()
    } else {
        err.io_error()
            .map_or_else(|| err.to_string(), ToString::to_string)
    };
    WalkProblem {
        path,
        message,
        unreadable: !is_loop && !dangling,
    }
}

/// One entry of a folder as its listing gives it: the entry's own type, a symlink seen as a
/// symlink (not followed).
#[derive(Debug, Clone)]
pub struct Listed {
    pub name: std::ffi::OsString,
    pub file_type: std::fs::FileType,
}

/// A folder being listed by [`walk_skill_folders`]: what the walk has yielded of it so far.
struct Frame {
    depth: usize,
    listing: Vec<Listed>,
    /// The index file found directly inside, if any.
    index_file: Option<PathBuf>,
    /// An entry of the folder came back as an error (a loop, a dangling link, a race): the
    /// listing lacks it, so it is not handed on.
    incomplete: bool,
}

/// [`walk_index_files`], also handing over the listing of the folder that holds each file
/// (every direct entry, pruned support folders included, symlinks as symlinks), so that a
/// caller that walks that folder next need not read it a second time. The file is handed
/// over once the walk has left its folder; the listing is `None` when part of the folder
/// could not be listed cleanly (the caller then reads it itself).
pub fn walk_skill_folders(
    root: &Path,
    file_name: &str,
    visit: &mut dyn FnMut(PathBuf, Option<Vec<Listed>>),
) -> Vec<WalkProblem> {
    walk(root, file_name, true, visit)
}

/// The one walk behind [`walk_index_files`] and [`walk_skill_folders`]; listings are kept
/// only `with_listings` (without, every listing handed over is `None`).
fn walk(
    root: &Path,
    file_name: &str,
    with_listings: bool,
    visit: &mut dyn FnMut(PathBuf, Option<Vec<Listed>>),
) -> Vec<WalkProblem> {
    let pruned: std::cell::RefCell<Vec<(usize, Listed)>> = std::cell::RefCell::new(Vec::new());
    let mut frames: Vec<Frame> = Vec::new();
    let mut problems = Vec::new();
    let walker = WalkDir::new(root)
        .follow_links(true)
        .sort_by(by_file_name)
        .into_iter()
        .filter_entry(|entry| {
            let keep = entry.depth() == 0 || !is_pruned(entry);
            if !keep
                && with_listings
                && let Some(listed) = listed(entry)
            {
                pruned.borrow_mut().push((entry.depth(), listed));
            }
            keep
        });
    for item in walker {
        add_pruned(&mut frames, &mut pruned.borrow_mut(), visit);
        match item {
            Ok(entry) => {
                let depth = entry.depth();
                leave_frames(&mut frames, depth, visit);
                if let Some(parent) = frames.last_mut().filter(|f| f.depth + 1 == depth) {
                    if with_listings {
                        match listed(&entry) {
                            Some(listed) => parent.listing.push(listed),
                            None => parent.incomplete = true,
                        }
                    }
                    if entry.file_name() == file_name && entry.file_type().is_file() {
                        parent.index_file = Some(entry.path().to_path_buf());
                    }
                }
                if entry.file_type().is_dir() {
                    frames.push(Frame {
                        depth,
                        listing: Vec::new(),
                        index_file: None,
                        // A listing not kept is no listing to hand over.
                        incomplete: !with_listings,
                    });
                }
            }
            Err(err) => {
                // The folder the failed entry sits in is no longer listed completely.
                leave_frames(&mut frames, err.depth(), visit);
                if let Some(parent) = frames.last_mut() {
                    parent.incomplete = true;
                }
                problems.push(walk_problem(root, &err));
            }
        }
    }
    add_pruned(&mut frames, &mut pruned.borrow_mut(), visit);
    leave_frames(&mut frames, 0, visit);
    problems
}

/// Adds the pruned folders the walk's filter set aside (in walk order) to the listings of
/// the folders they sit in.
fn add_pruned(
    frames: &mut Vec<Frame>,
    pruned: &mut Vec<(usize, Listed)>,
    visit: &mut dyn FnMut(PathBuf, Option<Vec<Listed>>),
) {
    for (depth, listed) in pruned.drain(..) {
        leave_frames(frames, depth, visit);
        if let Some(parent) = frames.last_mut().filter(|f| f.depth + 1 == depth) {
            parent.listing.push(listed);
        }
    }
}

/// Closes the folders the walk has left (those at `depth` or deeper), handing over the
/// index file each holds with its listing.
fn leave_frames(
    frames: &mut Vec<Frame>,
    depth: usize,
    visit: &mut dyn FnMut(PathBuf, Option<Vec<Listed>>),
) {
    while frames.last().is_some_and(|f| f.depth >= depth) {
        let Some(frame) = frames.pop() else {
            break;
        };
        if let Some(file) = frame.index_file {
            visit(file, (!frame.incomplete).then_some(frame.listing));
        }
    }
}

/// An entry as its folder's listing gives it: a symlink stays a symlink, though the walk
/// follows it. `None` when the entry's own type cannot be had without a `stat` that failed.
fn listed(entry: &walkdir::DirEntry) -> Option<Listed> {
    let file_type = if entry.path_is_symlink() {
        std::fs::symlink_metadata(entry.path()).ok()?.file_type()
    } else {
        entry.file_type()
    };
    Some(Listed {
        name: entry.file_name().to_os_string(),
        file_type,
    })
}

fn is_pruned(entry: &walkdir::DirEntry) -> bool {
    if !entry.file_type().is_dir() {
        return false;
    }
    let name = entry.file_name().to_string_lossy();
    if EXCLUDED_DIRS.contains(&name.as_ref()) {
        return true;
    }
    SUPPORT_DIRS.contains(&name.as_ref())
        && entry
            .path()
            .parent()
            .is_some_and(|parent| parent.join(SKILL_FILE).is_file())
}

/// Whether a path relative to a skills root lies in an excluded folder or inside a skill's
/// support folder (`is_excluded_skill_path`). Components are tested relative to the root, so
/// a home that itself lives under a folder named `venv` still has skills.
pub fn is_excluded(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<_> = rel.components().map(|c| c.as_os_str()).collect();
    if parts
        .iter()
        .any(|p| EXCLUDED_DIRS.iter().any(|x| p.to_str() == Some(x)))
    {
        return true;
    }
    let mut prefix = root.to_path_buf();
    for (index, part) in parts.iter().enumerate() {
        if index + 1 == parts.len() {
            break;
        }
        if index > 0
            && SUPPORT_DIRS.iter().any(|s| part.to_str() == Some(s))
            && prefix.join(SKILL_FILE).is_file()
        {
            return true;
        }
        prefix.push(part);
    }
    false
}

/// Whether `path` lies in a support folder (`references`, `templates`, `assets`, `scripts`)
/// directly inside a folder holding a `SKILL.md` (`is_skill_support_path`), testing every
/// component but the first and the last, as Hermes does on the path as given.
pub fn is_support_path(path: &Path) -> bool {
    let parts: Vec<_> = path.components().collect();
    if parts.len() < 2 {
        return false;
    }
    let mut prefix = PathBuf::new();
    for (index, part) in parts[..parts.len() - 1].iter().enumerate() {
        if index > 0
            && SUPPORT_DIRS
                .iter()
                .any(|s| part.as_os_str().to_str() == Some(s))
            && prefix.join(SKILL_FILE).exists()
        {
            return true;
        }
        prefix.push(part.as_os_str());
    }
    false
}

/// The category of a skill: the first folder below the root when the skill is at least two
/// folders deep (`cat/skill/SKILL.md` → `cat`), else none.
pub fn category_of(root: &Path, skill_md: &Path) -> Option<String> {
    let rel = skill_md.strip_prefix(root).ok()?;
    let parts: Vec<_> = rel.components().collect();
    (parts.len() >= 3).then(|| parts[0].as_os_str().to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch(root: &Path, rel: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, "---\nname: x\n---\n").expect("write");
    }

    fn rels(root: &Path, found: &Found) -> Vec<String> {
        found
            .files
            .iter()
            .map(|p| {
                p.strip_prefix(root)
                    .expect("under root")
                    .display()
                    .to_string()
            })
            .collect()
    }

    /// The cheaper comparison orders a tree exactly as `sort_by_file_name` does, whatever the
    /// names: case, dots, spaces, non-ASCII and non-UTF-8 bytes, prefixes of each other.
    #[test]
    fn entries_are_ordered_as_by_their_file_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let mut names: Vec<std::ffi::OsString> = [
            "a", "B", "b", ".hidden", "a.b", "a b", "a-b", "ab", "Ä", "z~", "10", "9", "_x",
        ]
        .iter()
        .map(|n| n.into())
        .collect();
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            names.push(std::ffi::OsString::from_vec(b"bad\xff".to_vec()));
        }
        for name in &names {
            fs::create_dir_all(root.join(name).join("inner")).expect("mkdir");
            fs::write(root.join(name).join("f"), "").expect("write");
        }
        let order = |walker: WalkDir| -> Vec<PathBuf> {
            walker
                .into_iter()
                .map(|e| e.expect("entry").into_path())
                .collect()
        };
        let ours = order(WalkDir::new(root).sort_by(by_file_name));
        let theirs = order(WalkDir::new(root).sort_by_file_name());
        assert_eq!(ours.len(), 1 + 3 * names.len());
        assert_eq!(ours, theirs);
    }

    #[test]
    fn walks_like_hermes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for rel in [
            "a/SKILL.md",
            "a/references/old/SKILL.md",
            "a/nested/SKILL.md",
            "a-b/SKILL.md",
            "cat/skill/SKILL.md",
            "scripts/foo/SKILL.md",
            ".archive/gone/SKILL.md",
            "node_modules/pkg/SKILL.md",
            ".restore-backups/x/SKILL.md",
        ] {
            touch(root, rel);
        }
        let found = skill_files(root);
        assert_eq!(
            rels(root, &found),
            vec![
                ".restore-backups/x/SKILL.md",
                "a-b/SKILL.md",
                "a/SKILL.md",
                "a/nested/SKILL.md",
                "cat/skill/SKILL.md",
                "scripts/foo/SKILL.md",
            ]
        );
        assert!(found.problems.is_empty());
    }

    #[test]
    fn symlink_loop_is_reported_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        touch(root, "s/SKILL.md");
        std::os::unix::fs::symlink(root, root.join("s/loop")).expect("symlink");
        let found = skill_files(root);
        assert_eq!(rels(root, &found), vec!["s/SKILL.md"]);
        assert_eq!(found.problems.len(), 1);
        assert!(found.problems[0].message.contains("loop"));
    }

    #[test]
    fn root_that_is_a_skill_is_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        touch(dir.path(), "SKILL.md");
        assert_eq!(
            skill_files(dir.path()).files,
            vec![dir.path().join("SKILL.md")]
        );
    }

    #[test]
    fn exclusion_and_category_are_relative_to_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("venv/home/skills");
        touch(&root, "a/SKILL.md");
        assert!(!is_excluded(&root, &root.join("a/SKILL.md")));
        assert!(is_excluded(&root, &root.join("a/references/b/SKILL.md")));
        assert!(is_excluded(&root, &root.join(".hub/x/SKILL.md")));
        assert_eq!(
            category_of(&root, &root.join("cat/x/SKILL.md")),
            Some("cat".into())
        );
        assert_eq!(category_of(&root, &root.join("x/SKILL.md")), None);
        assert_eq!(
            category_of(&root, &root.join("a/b/x/SKILL.md")),
            Some("a".into())
        );
    }
}
