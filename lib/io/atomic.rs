//! Atomic file replacement: readers (ours or Python's) see the old file or the new one,
//! never a torn write, and a crash leaves at worst a stray temp file.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::FileError;

/// The permission bits a replaced file ends up with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileMode {
    /// 0600, whatever the umask: what Python Hermes's `mkstemp` + `rename` writes leave behind
    /// (SKILL.md, `.usage.json`, memories, curator state).
    Private,
    /// 0666 minus the umask, as Python's plain `write_text` creates files (hub `lock.json`).
    Umask,
    /// Exactly these bits (after creation, so the umask does not narrow them).
    Exact(u32),
}

/// Most symlinks a path may go through before it is taken for a loop.
const MAX_SYMLINK_HOPS: usize = 40;

/// Replaces `path` with `bytes`: temp file in the same directory, fsync, rename, fsync of the
/// directory. A symlinked `path` has its target replaced, not the link.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: FileMode) -> Result<(), FileError> {
    let target = resolve_symlinks(path)?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (temp_path, mut file) = create_temp(&dir, &target, mode)?;
    let result = (|| {
        file.write_all(bytes)
            .map_err(|e| FileError::new("write", &temp_path, e))?;
        if let FileMode::Exact(bits) = mode {
            file.set_permissions(fs::Permissions::from_mode(bits))
                .map_err(|e| FileError::new("set permissions of", &temp_path, e))?;
        }
        file.sync_all()
            .map_err(|e| FileError::new("sync", &temp_path, e))?;
        drop(file);
        fs::rename(&temp_path, &target).map_err(|e| FileError::new("replace", &target, e))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp_path);
        return result;
    }
    // The rename is durable only once the directory entry is; failure here loses nothing
    // that is not already on its way to disk, so it is not reported.
    if let Ok(dir_handle) = File::open(&dir) {
        let _ = dir_handle.sync_all();
    }
    Ok(())
}

/// Follows `path` while it is a symlink, so that the file it points at gets replaced.
pub fn resolve_symlinks(path: &Path) -> Result<PathBuf, FileError> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)
                    .map_err(|e| FileError::new("read link", &current, e))?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(FileError::new(
        "resolve",
        path,
        std::io::Error::other("too many levels of symbolic links"),
    ))
}

fn create_temp(dir: &Path, target: &Path, mode: FileMode) -> Result<(PathBuf, File), FileError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let stem = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let create_bits = match mode {
        FileMode::Private => 0o600,
        FileMode::Umask => 0o666,
        FileMode::Exact(_) => 0o600,
    };
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temp = dir.join(format!(".{stem}.{}.{n}.{nanos:x}.tmp", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(create_bits)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(FileError::new("create a temporary file in", dir, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.json");
        fs::write(&path, "old").expect("seed");
        write_atomic(&path, b"new", FileMode::Private).expect("write");
        assert_eq!(fs::read_to_string(&path).expect("read"), "new");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.json")]);
        let bits = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(bits, 0o600);
    }

    #[test]
    fn writes_through_a_symlink() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("real.md");
        let link = dir.path().join("link.md");
        fs::write(&real, "old").expect("seed");
        std::os::unix::fs::symlink("real.md", &link).expect("symlink");
        write_atomic(&link, b"new", FileMode::Private).expect("write");
        assert!(
            fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).expect("read"), "new");
    }

    #[test]
    fn symlink_loop_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::os::unix::fs::symlink(&b, &a).expect("a");
        std::os::unix::fs::symlink(&a, &b).expect("b");
        assert!(write_atomic(&a, b"x", FileMode::Private).is_err());
    }

    #[test]
    fn exact_mode_ignores_umask() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("jobs.json");
        write_atomic(&path, b"{}", FileMode::Exact(0o640)).expect("write");
        let bits = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(bits, 0o640);
    }

    /// The promise readers rely on: a new inode takes the name, so whoever holds the old file
    /// (an open handle, or here a hard link) keeps reading the old bytes in full. Copying the
    /// new bytes over the target would rewrite the old inode in place and tear a reader's view.
    #[test]
    fn replaces_by_rename_so_a_hard_link_keeps_the_old_bytes() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("MEMORY.md");
        let held = dir.path().join("held-by-a-reader");
        fs::write(&path, "old bytes").expect("seed");
        fs::hard_link(&path, &held).expect("link");
        let old_inode = fs::metadata(&path).expect("meta").ino();
        write_atomic(&path, b"new", FileMode::Private).expect("write");
        assert_eq!(fs::read_to_string(&held).expect("read held"), "old bytes");
        assert_eq!(fs::read_to_string(&path).expect("read"), "new");
        assert_ne!(fs::metadata(&path).expect("meta").ino(), old_inode);
        assert_eq!(fs::metadata(&held).expect("meta").ino(), old_inode);
    }

    #[test]
    fn missing_directory_is_a_named_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nope/x.json");
        let err = write_atomic(&path, b"{}", FileMode::Private).expect_err("fails");
        assert!(err.to_string().contains("nope"), "{err}");
        // The temporary file goes beside the target (a rename never crosses directories or
        // file systems), so it is its directory that is found missing.
        assert_eq!(err.action, "create a temporary file in");
        assert_eq!(err.path, dir.path().join("nope"));
    }
}
