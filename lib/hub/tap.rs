//! A tap: a local directory or git checkout of skills (`hub.taps` in config.yaml). Skills are
//! the folders below it holding a SKILL.md; identifiers are `tap:<tap name>/<folder path>`.

use std::path::Path;

use serde_json::{Map, Value};

use super::HubError;
use super::bundle::{self, Bundle, MAX_FILES, MAX_TOTAL_BYTES};
use super::config::Tap;
use super::identifier::Identifier;
use super::source::{SkillMeta, Source, frontmatter_fields};
use crate::guard::Trust;

/// Folders never walked or copied.
const SKIPPED: [&str; 3] = ["node_modules", "__pycache__", ".git"];

pub struct TapSource {
    pub tap: Tap,
}

impl TapSource {
    fn skill_dirs(&self) -> Vec<std::path::PathBuf> {
        let mut dirs = Vec::new();
        let walk = walkdir::WalkDir::new(&self.tap.path)
            .follow_links(false)
            .max_depth(6)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_name().to_string_lossy().starts_with('.')
                        || SKIPPED.iter().any(|s| e.file_name() == *s))
            });
        for entry in walk.flatten() {
            if entry.file_type().is_file()
                && entry.file_name() == "SKILL.md"
                && let Some(parent) = entry.path().parent()
            {
                dirs.push(parent.to_path_buf());
            }
        }
        dirs
    }
}

impl Source for TapSource {
    fn name(&self) -> String {
        format!("tap:{}", self.tap.name)
    }

    fn search(&self, _query: &str, _limit: usize) -> Result<Vec<SkillMeta>, HubError> {
        if !self.tap.path.is_dir() {
            return Err(HubError::NotFound(format!(
                "tap {}: {} is not a directory",
                self.tap.name,
                self.tap.path.display()
            )));
        }
        let mut out = Vec::new();
        for dir in self.skill_dirs() {
            let Ok(rel) = dir.strip_prefix(&self.tap.path) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel.is_empty() {
                continue;
            }
            let text = std::fs::read(dir.join("SKILL.md"))
                .map(|b| String::from_utf8_lossy(&b[..b.len().min(64 << 10)]).into_owned())
                .unwrap_or_default();
            let (name, description) = frontmatter_fields(&text);
            let dir_name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
            out.push(SkillMeta {
                name: name.unwrap_or(dir_name),
                description: description.unwrap_or_default(),
                source: "tap".into(),
                identifier: format!("tap:{}/{rel}", self.tap.name),
                trust_level: Trust::Community,
            });
        }
        Ok(out)
    }

    fn serves(&self, id: &Identifier) -> bool {
        matches!(id, Identifier::Tap { tap, .. } if *tap == self.tap.name)
    }

    fn fetch(&self, id: &Identifier) -> Result<Bundle, HubError> {
        let Identifier::Tap { path, .. } = id else {
            return Err(HubError::NotFound(id.render()));
        };
        let rel = bundle::normalize_path(path)?;
        let dir = self.tap.path.join(&rel);
        if !dir.join("SKILL.md").is_file() {
            return Err(HubError::NotFound(format!(
                "{}: no SKILL.md in {}",
                id.render(),
                dir.display()
            )));
        }
        let files = read_skill(&dir)?;
        let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
        let mut metadata = Map::new();
        metadata.insert(
            "path".into(),
            Value::String(dir.to_string_lossy().into_owned()),
        );
        Ok(Bundle {
            name,
            files,
            source: "tap".into(),
            identifier: id.render(),
            trust: Trust::Community,
            metadata,
        })
    }
}

/// A skill folder's files, without dotfiles or caches; a symlink refuses the skill (it
/// could point anywhere on this machine).
fn read_skill(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, HubError> {
    let mut files = Vec::new();
    let mut total = 0u64;
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !name.starts_with('.') && !SKIPPED.contains(&name.as_ref()) && !name.ends_with(".pyc")
        });
    for entry in walk {
        let entry = entry.map_err(|e| HubError::invalid(format!("{}: {e}", dir.display())))?;
        if entry.path_is_symlink() {
            return Err(HubError::refused(format!(
                "{} is a symlink; links are refused",
                entry.path().display()
            )));
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let bytes = crate::io::read_file(entry.path())?;
        total += bytes.len() as u64;
        if files.len() >= MAX_FILES || total > MAX_TOTAL_BYTES {
            return Err(HubError::refused(format!(
                "{}: more than {MAX_FILES} files or {MAX_TOTAL_BYTES} bytes",
                dir.display()
            )));
        }
        files.push((rel, bytes));
    }
    Ok(files)
}
