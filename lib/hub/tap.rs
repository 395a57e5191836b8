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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn write(path: &Path, bytes: impl AsRef<[u8]>) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("parent made");
        std::fs::write(path, bytes).expect("written");
    }

    fn skill_md(name: &str) -> String {
        format!("---\nname: {name}\ndescription: About {name}.\n---\n# {name}\n")
    }

    fn tap_at(name: &str, path: PathBuf) -> TapSource {
        TapSource {
            tap: Tap {
                name: name.into(),
                path,
            },
        }
    }

    fn tap_id(tap: &str, path: &str) -> Identifier {
        Identifier::Tap {
            tap: tap.into(),
            path: path.into(),
        }
    }

    fn meta(name: &str, description: &str, identifier: &str) -> SkillMeta {
        SkillMeta {
            name: name.into(),
            description: description.into(),
            source: "tap".into(),
            identifier: identifier.into(),
            trust_level: Trust::Community,
        }
    }

    fn searched(source: &TapSource) -> Vec<SkillMeta> {
        match source.search("", 10) {
            Ok(metas) => metas,
            Err(e) => panic!("the tap should be searched: {e}"),
        }
    }

    #[test]
    fn name_and_serves() {
        let source = tap_at("mine", PathBuf::from("/nowhere"));
        assert_eq!(source.name(), "tap:mine");
        assert!(source.serves(&tap_id("mine", "pdf")));
        assert!(!source.serves(&tap_id("other", "pdf")));
        assert!(!source.serves(&Identifier::Name("pdf".into())));
    }

    #[test]
    fn search_lists_every_skill_folder_in_path_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        // A tap folder whose own name starts with a dot is still walked.
        let root = dir.path().join(".team");
        write(&root.join("tools/pdf/SKILL.md"), skill_md("pdf-tools"));
        write(
            &root.join("tools/pdf/references/SKILL.md"),
            skill_md("nested"),
        );
        write(&root.join("b-skill/SKILL.md"), "no frontmatter\n");
        write(&root.join("a/b/c/d/e/SKILL.md"), skill_md("deep"));
        write(&root.join("a/b/c/d/e/f/SKILL.md"), skill_md("too-deep"));
        // Not skills: the tap root itself, hidden and skipped folders, other files, a
        // folder named SKILL.md.
        write(&root.join("SKILL.md"), skill_md("root"));
        write(&root.join(".draft/x/SKILL.md"), skill_md("hidden"));
        write(&root.join("node_modules/x/SKILL.md"), skill_md("npm"));
        write(&root.join("__pycache__/x/SKILL.md"), skill_md("cache"));
        write(&root.join(".git/x/SKILL.md"), skill_md("git"));
        write(&root.join("docs/README.md"), skill_md("readme"));
        std::fs::create_dir_all(root.join("odd/SKILL.md")).expect("dir made");
        assert_eq!(
            searched(&tap_at("team", root)),
            vec![
                meta("deep", "About deep.", "tap:team/a/b/c/d/e"),
                meta("b-skill", "", "tap:team/b-skill"),
                meta("pdf-tools", "About pdf-tools.", "tap:team/tools/pdf"),
                meta("nested", "About nested.", "tap:team/tools/pdf/references"),
            ]
        );
    }

    #[test]
    fn search_reads_the_first_64_kib_of_each_skill_md() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut text = skill_md("big");
        text.push_str(&"x".repeat(200 << 10));
        write(&dir.path().join("folder/SKILL.md"), text);
        assert_eq!(
            searched(&tap_at("t", dir.path().to_path_buf())),
            vec![meta("big", "About big.", "tap:t/folder")]
        );
    }

    #[test]
    fn search_does_not_follow_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = dir.path().join("outside");
        write(&outside.join("pdf/SKILL.md"), skill_md("pdf"));
        let root = dir.path().join("tap");
        std::fs::create_dir_all(&root).expect("dir made");
        std::os::unix::fs::symlink(&outside, root.join("linked")).expect("link made");
        assert_eq!(searched(&tap_at("t", root)), Vec::new());
    }

    #[test]
    fn a_missing_tap_folder_is_not_found() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("gone");
        let err = tap_at("mine", missing.clone())
            .search("", 10)
            .expect_err("no folder");
        assert!(matches!(err, HubError::NotFound(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("tap mine: {} is not a directory", missing.display())
        );
    }

    #[test]
    fn fetch_reads_the_skill_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let skill = dir.path().join("tools/pdf");
        write(&skill.join("SKILL.md"), skill_md("pdf-tools"));
        write(&skill.join("references/api.md"), "api");
        write(&skill.join("scripts/run.py"), "print()");
        // Left out: dotfiles, caches, compiled Python.
        write(&skill.join(".env"), "SECRET=1");
        write(&skill.join(".hidden/a.md"), "a");
        write(&skill.join("node_modules/m.js"), "m");
        write(&skill.join("__pycache__/c.txt"), "c");
        write(&skill.join(".git/HEAD"), "h");
        write(&skill.join("scripts/run.pyc"), "bytecode");
        let bundle = tap_at("mine", dir.path().to_path_buf())
            .fetch(&tap_id("mine", "tools/./pdf/"))
            .expect("fetched");
        assert_eq!(bundle.name, "pdf");
        assert_eq!(
            bundle.files,
            vec![
                ("SKILL.md".to_string(), skill_md("pdf-tools").into_bytes()),
                ("references/api.md".to_string(), b"api".to_vec()),
                ("scripts/run.py".to_string(), b"print()".to_vec()),
            ]
        );
        assert_eq!(bundle.source, "tap");
        assert_eq!(bundle.identifier, "tap:mine/tools/./pdf/");
        assert_eq!(bundle.trust, Trust::Community);
        assert_eq!(
            Value::Object(bundle.metadata),
            serde_json::json!({"path": skill.display().to_string()})
        );
    }

    #[test]
    fn fetch_refuses_escapes_links_and_folders_without_a_skill_md() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("tap");
        write(&dir.path().join("outside/SKILL.md"), skill_md("outside"));
        write(&root.join("docs/README.md"), "r");
        write(&root.join("linky/SKILL.md"), skill_md("linky"));
        std::os::unix::fs::symlink(dir.path().join("outside/SKILL.md"), root.join("linky/x.md"))
            .expect("link made");
        let source = tap_at("t", root.clone());

        let err = source
            .fetch(&tap_id("t", "../outside"))
            .expect_err("an escape");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(err.to_string(), "unsafe file path \"../outside\"");

        let err = source.fetch(&tap_id("t", "docs")).expect_err("no SKILL.md");
        assert!(matches!(err, HubError::NotFound(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("tap:t/docs: no SKILL.md in {}", root.join("docs").display())
        );

        let err = source.fetch(&tap_id("t", "linky")).expect_err("a link");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!(
                "{} is a symlink; links are refused",
                root.join("linky/x.md").display()
            )
        );

        let err = source
            .fetch(&Identifier::Name("linky".into()))
            .expect_err("not a tap identifier");
        assert!(
            matches!(err, HubError::NotFound(ref m) if m == "linky"),
            "{err:?}"
        );
    }

    #[test]
    fn a_skill_may_hold_500_files_not_501() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(&dir.path().join("SKILL.md"), "s");
        for i in 1..MAX_FILES {
            write(&dir.path().join(format!("f/{i:03}")), "");
        }
        let files = read_skill(dir.path()).expect("500 files");
        assert_eq!(files.len(), 500);
        write(&dir.path().join("f/500"), "");
        let err = read_skill(dir.path()).expect_err("501 files");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!(
                "{}: more than 500 files or 33554432 bytes",
                dir.path().display()
            )
        );
    }

    #[test]
    fn a_skill_may_hold_32_mib_not_one_byte_more() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(&dir.path().join("SKILL.md"), "s");
        write(&dir.path().join("big"), vec![b'x'; (32 << 20) - 2]);
        write(&dir.path().join("c"), "c");
        let files = read_skill(dir.path()).expect("exactly 32 MiB");
        let total: usize = files.iter().map(|(_, b)| b.len()).sum();
        assert_eq!(total, 32 << 20);
        write(&dir.path().join("c"), "cc");
        let err = read_skill(dir.path()).expect_err("one byte more");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
    }
}
