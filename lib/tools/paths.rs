//! Turning the path a model typed into the file the tools touch: `~` expanded, relative paths
//! taken against the shell's current directory, `.` and `..` folded without touching the
//! filesystem (so a path that does not exist yet still resolves).

use std::path::{Component, Path, PathBuf};

/// `given` as an absolute, normalised path: `~` and `~/x` expand to `$HOME`, relative paths
/// join `cwd`.
pub fn resolve(cwd: &Path, given: &str) -> PathBuf {
    let expanded = expand_home(given);
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    normalize(&joined)
}

fn expand_home(given: &str) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (given, home) {
        ("~", Some(home)) => home,
        (g, Some(home)) if g.starts_with("~/") => home.join(&g[2..]),
        (g, _) => PathBuf::from(g),
    }
}

/// Folds `.` and `..` lexically; `..` at the root stays at the root, as the kernel does.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
                if out.as_os_str().is_empty() && path.is_absolute() {
                    out.push("/");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(if path.is_absolute() { "/" } else { "." });
    }
    out
}

/// The real location of `path` for comparisons: symlinks in the longest existing prefix are
/// resolved, the rest is appended as typed. A link named `notes` that points into `/etc`
/// must not get past the sensitive-path check.
pub fn real(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(canon) = existing.canonicalize() {
            let mut out = canon;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_cwd_and_fold_dots() {
        let cwd = Path::new("/work/project");
        assert_eq!(resolve(cwd, "a.txt"), PathBuf::from("/work/project/a.txt"));
        assert_eq!(resolve(cwd, "./x/../b"), PathBuf::from("/work/project/b"));
        assert_eq!(resolve(cwd, "../../../etc/x"), PathBuf::from("/etc/x"));
        assert_eq!(resolve(cwd, "/tmp//y/."), PathBuf::from("/tmp/y"));
        assert_eq!(resolve(cwd, "/.."), PathBuf::from("/"));
    }

    #[test]
    fn a_tilde_is_the_home_folder_only_as_a_whole_first_component() {
        let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
            panic!("HOME is not set")
        };
        let cwd = Path::new("/work/project");
        assert_eq!(resolve(cwd, "~"), normalize(&home));
        assert_eq!(
            resolve(cwd, "~/notes/a.md"),
            normalize(&home.join("notes/a.md"))
        );
        assert_eq!(
            resolve(cwd, "~user/x"),
            PathBuf::from("/work/project/~user/x")
        );
        assert_eq!(resolve(cwd, "a/~/x"), PathBuf::from("/work/project/a/~/x"));
    }

    #[test]
    fn a_relative_path_keeps_the_parents_it_cannot_fold() {
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
        assert_eq!(normalize(Path::new("a/..")), PathBuf::from("."));
        assert_eq!(normalize(Path::new("/a/../..")), PathBuf::from("/"));
    }

    #[test]
    fn real_resolves_symlinks_in_the_existing_prefix() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("target");
        std::fs::create_dir(&target).expect("mkdir");
        std::os::unix::fs::symlink(&target, dir.path().join("link")).expect("symlink");
        let canon_target = target.canonicalize().expect("canon");
        assert_eq!(
            real(&dir.path().join("link/new/file.txt")),
            canon_target.join("new/file.txt")
        );
    }
}
