//! Advisory locks on the same `*.lock` files Python Hermes locks (BSD `flock`, exclusive),
//! so a Rust binary and a Python process never interleave a read-modify-write.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::FileError;

/// An exclusive lock held until dropped. The lock file itself is never deleted: deleting it
/// would let a second process lock a fresh inode while the first still holds the old one.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// Blocks until the lock on `path` is ours, creating the file (and its directory) if needed.
    pub fn acquire(path: &Path) -> Result<FileLock, FileError> {
        let file = open_lock_file(path)?;
        file.lock().map_err(|e| FileError::new("lock", path, e))?;
        Ok(FileLock {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Tries for up to `timeout`; `Ok(None)` when another process still holds the lock.
    pub fn acquire_within(path: &Path, timeout: Duration) -> Result<Option<FileLock>, FileError> {
        let file = open_lock_file(path)?;
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(Some(FileLock {
                        file,
                        path: path.to_path_buf(),
                    }));
                }
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(FileError::new("lock", path, e));
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// The lock file Hermes pairs with a data file: `<file>.lock` beside it.
pub fn lock_path_for(data_file: &Path) -> PathBuf {
    let mut name = data_file.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    data_file.with_file_name(name)
}

fn open_lock_file(path: &Path) -> Result<File, FileError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| FileError::new("create directory", parent, e))?;
    }
    // Python opens lock files with mode "a": append, create, umask permissions.
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| FileError::new("open lock file", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_waits_and_lock_file_stays() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(".usage.json.lock");
        let first = FileLock::acquire(&path).expect("first");
        let second = FileLock::acquire_within(&path, Duration::from_millis(30)).expect("try");
        assert!(second.is_none());
        drop(first);
        let third = FileLock::acquire_within(&path, Duration::from_millis(30)).expect("try");
        assert!(third.is_some());
        drop(third);
        assert!(path.exists());
    }

    #[test]
    fn lock_path_is_beside_the_file() {
        assert_eq!(
            lock_path_for(Path::new("/h/memories/MEMORY.md")),
            PathBuf::from("/h/memories/MEMORY.md.lock")
        );
    }

    /// A holder that lets go within the timeout is waited for, not given up on.
    #[test]
    fn a_lock_released_within_the_timeout_is_taken() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("MEMORY.md.lock");
        let first = FileLock::acquire(&path).expect("first");
        let holder = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(first);
        });
        let second = FileLock::acquire_within(&path, Duration::from_secs(60)).expect("try");
        assert!(second.is_some());
        holder.join().expect("holder");
    }
}
