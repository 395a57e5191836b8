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

    fn bundle(files: &[(&str, &[u8])]) -> Bundle {
        let mut b = caution_bundle(Trust::Community);
        b.files = files
            .iter()
            .map(|(r, d)| (r.to_string(), d.to_vec()))
            .collect();
        b
    }

    fn verdict(b: &Bundle) -> String {
        match b.validate() {
            Ok(()) => "ok".into(),
            Err(e @ HubError::Refused(_)) => format!("refused: {e}"),
            Err(e @ HubError::Invalid(_)) => format!("invalid: {e}"),
            Err(e @ HubError::TooLarge { .. }) => format!("too large: {e}"),
            Err(e) => format!("other: {e}"),
        }
    }

    #[test]
    fn validation_names_what_is_wrong() {
        assert_eq!(
            verdict(&bundle(&[("SKILL.md", b"s"), ("a/b.md", b"")])),
            "ok"
        );
        assert_eq!(
            verdict(&bundle(&[("README.md", b"r")])),
            "invalid: acme/skills/netrc-reader: the skill has no SKILL.md"
        );
        assert_eq!(
            verdict(&bundle(&[("SKILL.md", b"s"), ("a//b.md", b"")])),
            "refused: unsafe file path \"a//b.md\""
        );
        assert_eq!(
            verdict(&bundle(&[("SKILL.md", b"s"), ("../b.md", b"")])),
            "refused: unsafe file path \"../b.md\""
        );
        let mut named = bundle(&[("SKILL.md", b"s")]);
        named.name = "../up".into();
        assert_eq!(verdict(&named), "refused: unsafe skill name \"../up\"");
    }

    #[test]
    fn the_limits_hold_at_their_last_unit() {
        let names: Vec<String> = (0..MAX_FILES).map(|i| format!("f{i}")).collect();
        let mut files: Vec<(&str, &[u8])> = vec![("SKILL.md", b"s")];
        files.extend(
            names
                .iter()
                .take(MAX_FILES - 1)
                .map(|n| (n.as_str(), &b""[..])),
        );
        assert_eq!(verdict(&bundle(&files)), "ok");
        files.push((names[MAX_FILES - 1].as_str(), b""));
        assert_eq!(
            verdict(&bundle(&files)),
            "refused: acme/skills/netrc-reader: 501 files, more than the limit of 500"
        );
        let big = vec![0u8; MAX_TOTAL_BYTES as usize];
        assert_eq!(
            verdict(&bundle(&[("SKILL.md", b"s"), ("big", &big[1..])])),
            "ok"
        );
        assert_eq!(
            verdict(&bundle(&[("SKILL.md", b"st"), ("big", &big[1..])])),
            "too large: acme/skills/netrc-reader is larger than the limit of 33554432 bytes"
        );
    }

    #[test]
    fn names_are_one_safe_component() {
        let long = "n".repeat(128);
        for good in ["tidy-logs", "a", "x.y", long.as_str()] {
            assert!(validate_name(good).is_ok(), "{good}");
        }
        let longer = "n".repeat(129);
        for bad in [
            "",
            ".",
            "..",
            ".hidden",
            "a/b",
            "a\\b",
            "a\0b",
            longer.as_str(),
        ] {
            assert!(validate_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn more_paths() {
        assert_eq!(normalize_path("./a/.//b").ok().as_deref(), Some("a/b"));
        assert_eq!(normalize_path("ab:/c").ok().as_deref(), Some("ab:/c"));
        assert_eq!(normalize_path("a:b").ok().as_deref(), Some("a:b"));
        for bad in ["\\x", "a\0b", "c:\\x", "a/..", "./"] {
            assert!(normalize_path(bad).is_err(), "{bad:?}");
        }
        let Err(e) = normalize_path("/x") else {
            panic!("absolute")
        };
        assert_eq!(e.to_string(), "unsafe file path \"/x\"");
    }

    #[test]
    fn hashes_are_pinned() {
        assert_eq!(
            digest([("SKILL.md", &b"hi"[..])].into_iter()),
            "d8b823976453f5084c8ea07ac07bfa77d31b2c4f2244bac323127fe9e02973d6"
        );
        let b = bundle(&[("a-b/x", b"1"), ("SKILL.md", b"s"), ("a/x", b"2")]);
        let full = "ee7d36fae503d34bbb5279dd4d3120039b4233bcef8c3e13833454c2d071cc12";
        assert_eq!(b.full_hash(), format!("sha256:{full}"));
        assert_eq!(short_hash(full), "sha256:ee7d36fae503d34b");
        assert_eq!(short_hash("abc"), "sha256:abc");
        assert_eq!(hex(&[0, 15, 255]), "000fff");
        assert_eq!(b.file("a/x"), Some(&b"2"[..]));
        assert_eq!(b.file("a"), None);
    }

    #[test]
    fn a_folder_on_disk_hashes_as_its_bundle_and_links_are_not_followed() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let root = dir.path();
        let write = |rel: &str, bytes: &[u8]| {
            let path = root.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_default();
            }
            std::fs::write(path, bytes).unwrap_or_default();
        };
        write("SKILL.md", b"s");
        write("a/x", b"2");
        write("a-b/x", b"1");
        std::os::unix::fs::symlink("/etc/hostname", root.join("link")).unwrap_or_default();
        let Ok(mut files) = read_tree(root) else {
            panic!("read")
        };
        files.sort();
        assert_eq!(
            files,
            [
                ("SKILL.md".to_string(), b"s".to_vec()),
                ("a-b/x".into(), b"1".to_vec()),
                ("a/x".into(), b"2".to_vec())
            ]
        );
        assert_eq!(
            dir_digest(root).ok().as_deref(),
            Some("ee7d36fae503d34bbb5279dd4d3120039b4233bcef8c3e13833454c2d071cc12")
        );
        assert!(dir_digest(&root.join("absent")).is_err());
    }
}
