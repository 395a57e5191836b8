//! A downloaded skill held in memory before it touches the disk, its path rules and its
//! content hash (reference §6.9, §7.2).

use std::path::Path;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::HubError;
use crate::guard::Trust;

/// Most files one skill may hold.
pub const MAX_FILES: usize = 500;
/// Most bytes one skill may hold, all files together.
pub const MAX_TOTAL_BYTES: u64 = 32 << 20;

/// A skill as a source delivers it.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub name: String,
    /// `/`-separated relative paths and bytes, in the order the source listed them.
    pub files: Vec<(String, Vec<u8>)>,
    /// The source kind recorded in lock.json (`github`, `well-known`, `url`, `tap`).
    pub source: String,
    pub identifier: String,
    pub trust: Trust,
    pub metadata: Map<String, Value>,
}

impl Bundle {
    /// The scan of the files as fetched, at the source's trust level; nothing is written.
    pub fn scan(&self) -> crate::guard::SkillReport {
        let files: Vec<crate::guard::BundleFile<'_>> = self
            .files
            .iter()
            .map(|(rel, bytes)| crate::guard::BundleFile {
                rel,
                bytes,
                executable: false,
            })
            .collect();
        crate::guard::scan_bundle(
            &self.name,
            &files,
            &crate::guard::ScanOptions {
                trust: self.trust,
                ..Default::default()
            },
        )
    }

    /// Checks the name, every path and the limits; the error names what is wrong.
    pub fn validate(&self) -> Result<(), HubError> {
        validate_name(&self.name)?;
        if self.files.len() > MAX_FILES {
            return Err(HubError::refused(format!(
                "{}: {} files, more than the limit of {MAX_FILES}",
                self.identifier,
                self.files.len()
            )));
        }
        let total: u64 = self.files.iter().map(|(_, b)| b.len() as u64).sum();
        if total > MAX_TOTAL_BYTES {
            return Err(HubError::TooLarge {
                what: self.identifier.clone(),
                limit: MAX_TOTAL_BYTES,
            });
        }
        for (rel, _) in &self.files {
            if normalize_path(rel)? != *rel {
                return Err(HubError::refused(format!("unsafe file path {rel:?}")));
            }
        }
        if !self.files.iter().any(|(rel, _)| rel == "SKILL.md") {
            return Err(HubError::invalid(format!(
                "{}: the skill has no SKILL.md",
                self.identifier
            )));
        }
        Ok(())
    }

    pub fn file(&self, rel: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(r, _)| r == rel)
            .map(|(_, b)| b.as_slice())
    }

    /// `sha256:` + 64 hex over the files, as [`dir_digest`] hashes the same tree on disk.
    pub fn full_hash(&self) -> String {
        format!(
            "sha256:{}",
            digest(self.files.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
        )
    }
}

/// A bundle path made canonical (`\` → `/`, empty and `.` parts dropped); absolute paths,
/// `..` parts and drive letters are refused.
pub fn normalize_path(raw: &str) -> Result<String, HubError> {
    let unsafe_path = || HubError::refused(format!("unsafe file path {raw:?}"));
    let slashed = raw.replace('\\', "/");
    if slashed.starts_with('/') || raw.contains('\0') {
        return Err(unsafe_path());
    }
    let parts: Vec<&str> = slashed
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.is_empty() || parts.contains(&"..") {
        return Err(unsafe_path());
    }
    if parts[0].len() == 2 && parts[0].ends_with(':') {
        return Err(unsafe_path());
    }
    Ok(parts.join("/"))
}

/// A skill name is one safe path component.
pub fn validate_name(name: &str) -> Result<(), HubError> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && name.len() <= 128;
    if ok {
        Ok(())
    } else {
        Err(HubError::refused(format!("unsafe skill name {name:?}")))
    }
}

/// SHA-256 (hex) over files sorted by their path components: for each, the path, a NUL, the
/// bytes. Python sorts `Path` objects, which compare component lists, so `a/x` comes before
/// `a-b/x`.
pub fn digest<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut sorted: Vec<(&str, &[u8])> = files.collect();
    sorted.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    let mut hasher = Sha256::new();
    for (rel, bytes) in sorted {
        hasher.update(rel.as_bytes());
        hasher.update([0u8]);
        hasher.update(bytes);
    }
    hex(&hasher.finalize())
}

/// The digest of a skill folder on disk (regular files only, symlinks not followed).
pub fn dir_digest(dir: &Path) -> Result<String, HubError> {
    let files = read_tree(dir)?;
    Ok(digest(
        files.iter().map(|(r, b)| (r.as_str(), b.as_slice())),
    ))
}

/// Every regular file under `dir` as (relative path, bytes).
pub fn read_tree(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, HubError> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(false).min_depth(1) {
        let entry = entry.map_err(|e| HubError::invalid(format!("{}: {e}", dir.display())))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        files.push((rel, crate::io::read_file(entry.path())?));
    }
    Ok(files)
}

/// The lock file's short form: `sha256:` + the first 16 hex digits.
pub fn short_hash(full_hex: &str) -> String {
    format!("sha256:{}", &full_hex[..16.min(full_hex.len())])
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::{Install, Trust, Verdict};
    use crate::hub::install::tests::caution_bundle;

    /// What `inspect` reports: the verdict weighed at the source's trust level.
    #[test]
    fn a_bundle_is_scanned_at_its_sources_trust() {
        let trusted = caution_bundle(Trust::Trusted).scan();
        assert_eq!(trusted.trust, Trust::Trusted);
        assert_eq!(trusted.install_verdict, Verdict::Caution);
        assert_eq!(trusted.install(), Install::Allow);
        assert_eq!(trusted.name, "netrc-reader");
        let community = caution_bundle(Trust::Community).scan();
        assert_eq!(community.install(), Install::Block);
    }

    #[test]
    fn paths() {
        assert_eq!(normalize_path("a\\b/./c").ok().as_deref(), Some("a/b/c"));
        for bad in ["/etc/passwd", "../x", "a/../../x", "C:/x", "", "."] {
            assert!(normalize_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn component_order() {
        let a = digest([("a-b/x", &b"1"[..]), ("a/x", &b"2"[..])].into_iter());
        let b = digest([("a/x", &b"2"[..]), ("a-b/x", &b"1"[..])].into_iter());
        assert_eq!(a, b);
        // sha256("SKILL.md\0hi")
        let one = digest([("SKILL.md", &b"hi"[..])].into_iter());
        assert_eq!(one.len(), 64);
    }
}
