//! A home's identity in the team store: a UUID minted on the first push and kept in
//! `$HERMES_HOME/team_store.json`, together with the home directory's device and inode.
//!
//! A copied home (`cp -a`, a restored backup) carries the file along but sits in another
//! directory inode, so it gets a fresh UUID and pushes its sessions as a home of its own;
//! a moved home (`mv`, same file system) keeps its inode and its identity.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Error, Result};
use crate::io::atomic::{FileMode, write_atomic};

/// The file, under the home.
pub const FILE: &str = "team_store.json";

/// What the file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub home_id: String,
    /// The home directory's `(device, inode)` when the id was minted.
    pub dev: u64,
    pub ino: u64,
}

/// How the identity was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Read from the file, and the home is where it was minted.
    Kept,
    /// No file: a first push.
    Minted,
    /// The file came from another directory: this home is a copy and gets its own id.
    Copied { from: String },
}

fn dir_key(root: &Path) -> Result<(u64, u64)> {
    let meta = std::fs::metadata(root).map_err(|e| Error::Identity {
        path: root.display().to_string(),
        reason: e.to_string(),
    })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Ok((0, 0))
    }
}

/// A random version-4 UUID.
pub fn mint() -> Result<String> {
    let mut b = [0u8; 16];
    getrandom::getrandom(&mut b).map_err(|e| Error::Identity {
        path: "random source".into(),
        reason: e.to_string(),
    })?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

fn file(root: &Path) -> PathBuf {
    root.join(FILE)
}

/// The identity of the home at `root`, minting (and saving) one when there is none or the
/// home is a copy.
pub fn resolve(root: &Path) -> Result<(Identity, Origin)> {
    let path = file(root);
    let key = dir_key(root)?;
    let origin = match std::fs::read(&path) {
        Ok(bytes) => {
            let found: Identity = serde_json::from_slice(&bytes).map_err(|e| Error::Identity {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
            if (found.dev, found.ino) == key {
                return Ok((found, Origin::Kept));
            }
            Origin::Copied {
                from: found.home_id,
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Origin::Minted,
        Err(e) => {
            return Err(Error::Identity {
                path: path.display().to_string(),
                reason: e.to_string(),
            });
        }
    };
    let identity = Identity {
        home_id: mint()?,
        dev: key.0,
        ino: key.1,
    };
    let mut text = serde_json::to_vec_pretty(&identity).map_err(|e| Error::Identity {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    text.push(b'\n');
    write_atomic(&path, &text, FileMode::Private).map_err(|e| Error::Identity {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok((identity, origin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4() {
        let id = mint().expect("uuid");
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(id, mint().expect("uuid"));
    }

    #[test]
    fn a_home_keeps_its_id_and_a_copy_gets_its_own() {
        let dir = tempfile::tempdir().expect("tmp");
        let home = dir.path().join("home");
        std::fs::create_dir(&home).expect("mkdir");
        let (first, origin) = resolve(&home).expect("mint");
        assert_eq!(origin, Origin::Minted);
        let (again, origin) = resolve(&home).expect("keep");
        assert_eq!(
            (again.home_id.as_str(), origin),
            (first.home_id.as_str(), Origin::Kept)
        );
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).expect("mkdir");
        std::fs::copy(home.join(FILE), copy.join(FILE)).expect("copy");
        let (theirs, origin) = resolve(&copy).expect("copy");
        assert_eq!(
            origin,
            Origin::Copied {
                from: first.home_id.clone()
            }
        );
        assert_ne!(theirs.home_id, first.home_id);
    }
}
