//! Archive and restore: a skill the curator retires moves to `skills/.archive/<dir name>/`
//! (flat; a taken name gets a `-YYYYmmddHHMMSS` suffix), its record turns `archived`, and a
//! bundled skill's name goes into `.curator_suppressed` so the re-seeder leaves it archived.
//! Restore brings the exact name back (else the newest suffixed copy) to `skills/<name>/`.
//!
//! Messages are Hermes's, word for word: `hermes curator` and `skill_manage` print them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_json::Value as Json;
use walkdir::WalkDir;

use super::library::{Index, Library};
use super::provenance::is_protected;
use super::usage::{self, STATE_ACTIVE, STATE_ARCHIVED};
use crate::home::Home;
use crate::io::FileError;
use crate::io::atomic::{FileMode, write_atomic};

fn external_message(name: &str) -> String {
    format!(
        "skill '{name}' lives in skills.external_dirs; external skills are read-only to the curator"
    )
}

/// Moves a curation-eligible local skill into `.archive/`. `Ok(message)` on success,
/// `Err(message)` when refused or failed; the index is kept in step.
pub fn archive_skill(
    lib: &Library,
    index: &mut Index,
    name: &str,
    now: Timestamp,
) -> Result<String, String> {
    let moved = move_to_archive(lib, index, name, now)?;
    if moved.bundled {
        add_suppressed(&lib.home, name);
    }
    record_state(lib, index, name, STATE_ARCHIVED, now);
    lib.invalidate_prompt_snapshot();
    Ok(format!("archived to {}", moved.dest.display()))
}

/// A skill folder moved into `.archive/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub dest: PathBuf,
    /// A bundled built-in: its name belongs in `.curator_suppressed`.
    pub bundled: bool,
}

/// The move alone, with Hermes's refusals: the folder goes into `.archive/` and the index
/// forgets it. The caller records the state and the suppression, so a pass over many skills
/// writes the sidecar and `.curator_suppressed` once, not once per skill.
pub fn move_to_archive(
    lib: &Library,
    index: &mut Index,
    name: &str,
    now: Timestamp,
) -> Result<Moved, String> {
    let local = index.identities().local.get(name).cloned();
    if local.is_none() && index.identities().external.contains_key(name) {
        return Err(external_message(name));
    }
    if !index.is_curation_eligible(lib, name, local.as_deref()) {
        if is_protected(name) {
            return Err(format!(
                "skill '{name}' is a protected built-in; it backs load-bearing UX and is never archived or consolidated"
            ));
        }
        if index.provenance.is_hub(name) {
            return Err(format!("skill '{name}' is hub-installed; never archive"));
        }
        return Err(format!(
            "skill '{name}' is a bundled built-in; enable curator.prune_builtins to allow pruning it"
        ));
    }
    let Some(skill_dir) = local else {
        return Err(format!("skill '{name}' not found"));
    };
    if lib.roots.is_external(&skill_dir) {
        return Err(external_message(name));
    }
    let archive_root = lib.home.archive_dir();
    std::fs::create_dir_all(&archive_root)
        .map_err(|e| format!("failed to create archive dir: {e}"))?;
    let base = skill_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dest = archive_destination(&archive_root, &base, now)
        .ok_or_else(|| format!("failed to archive: no free name for {base} in .archive"))?;
    move_dir(&skill_dir, &dest).map_err(|e| format!("failed to archive: {e}"))?;
    index.identities_mut().remove_local(name);
    Ok(Moved {
        dest,
        bundled: index.provenance.is_bundled(name),
    })
}

/// `.archive/<base>`, else `.archive/<base>-<YYYYmmddHHMMSS>`. Where Hermes would then fail
/// (or rename onto an empty folder), the stamp moves on a second at a time until a name is
/// free, so every copy stays restorable by Hermes's `<name>-<14 digits>` rule.
fn archive_destination(root: &Path, base: &str, now: Timestamp) -> Option<PathBuf> {
    let taken = |p: &Path| p.exists() || p.is_symlink();
    let plain = root.join(base);
    if !taken(&plain) {
        return Some(plain);
    }
    (0..86_400i64).find_map(|offset| {
        let at = now
            .checked_add(jiff::SignedDuration::from_secs(offset))
            .ok()?;
        let stamp =
            jiff::fmt::strtime::format("%Y%m%d%H%M%S", &at.to_zoned(jiff::tz::TimeZone::UTC))
                .ok()?;
        let dest = root.join(format!("{base}-{stamp}"));
        (!taken(&dest)).then_some(dest)
    })
}

/// Brings an archived skill back to `skills/<name>/` (always flat).
pub fn restore_skill(
    lib: &Library,
    index: &mut Index,
    name: &str,
    now: Timestamp,
) -> Result<String, String> {
    if index.provenance.is_hub(name) {
        return Err(format!(
            "skill '{name}' is now hub-installed; restore would shadow the upstream version"
        ));
    }
    if index.provenance.is_bundled(name) && !index.provenance.prune_builtins {
        return Err(format!(
            "skill '{name}' is now bundled; restore would shadow the upstream version"
        ));
    }
    // Unlike Hermes, a name that is not one plain directory name is refused: `../x` would
    // otherwise restore outside the skills root.
    if name.is_empty() || name.contains('/') || name.contains('\\') || name == "." || name == ".." {
        return Err(format!("skill '{name}' not found in archive"));
    }
    let archive_root = lib.home.archive_dir();
    if !archive_root.is_dir() {
        return Err("no archive directory".into());
    }
    let dirs: Vec<PathBuf> = WalkDir::new(&archive_root)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(walkdir::DirEntry::into_path)
        .collect();
    let file_name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut candidates: Vec<PathBuf> = dirs
        .iter()
        .filter(|p| file_name(p) == name)
        .cloned()
        .collect();
    if candidates.is_empty() {
        let prefix = format!("{name}-");
        candidates = dirs
            .iter()
            .filter(|p| {
                let n = file_name(p);
                n.strip_prefix(&prefix)
                    .is_some_and(|s| s.len() == 14 && s.bytes().all(|b| b.is_ascii_digit()))
            })
            .cloned()
            .collect();
        candidates.sort();
        candidates.reverse();
    }
    let Some(src) = candidates.into_iter().next() else {
        return Err(format!("skill '{name}' not found in archive"));
    };
    let dest = lib.home.skills_dir().join(name);
    if dest.exists() || dest.is_symlink() {
        return Err(format!("destination already exists: {}", dest.display()));
    }
    move_dir(&src, &dest).map_err(|e| format!("failed to restore: {e}"))?;
    remove_suppressed(&lib.home, name);
    index.identities_mut().insert_local(name, dest.clone());
    record_state(lib, index, name, STATE_ACTIVE, now);
    lib.invalidate_prompt_snapshot();
    Ok(format!("restored to {}", dest.display()))
}

/// `set_state` for a curation-eligible skill, keeping the index's sidecar copy in step.
/// Best effort, as in Hermes: a sidecar that cannot be written does not undo the move.
fn record_state(lib: &Library, index: &mut Index, name: &str, state: &str, now: Timestamp) {
    if !index.is_curation_eligible(lib, name, None) {
        return;
    }
    if let Ok(Some(record)) = usage::set_state(&lib.home, name, state, now) {
        index
            .usage
            .records
            .insert(name.to_string(), Json::Object(record));
    }
}

/// Renames, falling back to copy-and-delete across filesystems.
fn move_dir(src: &Path, dest: &Path) -> std::io::Result<()> {
    match std::fs::rename(src, dest) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(18) => {
            copy_tree(src, dest)?;
            std::fs::remove_dir_all(src)
        }
        Err(e) => Err(e),
    }
}

fn copy_tree(src: &Path, dest: &Path) -> std::io::Result<()> {
    for entry in WalkDir::new(src) {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry
            .path()
            .strip_prefix(src)
            .map_err(std::io::Error::other)?;
        let target = dest.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Names of the immediate folders of `.archive/`, sorted (`hermes curator list-archived`).
pub fn list_archived(home: &Home) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(home.archive_dir()) else {
        return Vec::new();
    };
    let names: BTreeSet<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.into_iter().collect()
}

/// `.curator_suppressed`: one name per line, blank lines and `#` comments ignored.
pub fn read_suppressed(home: &Home) -> BTreeSet<String> {
    let Ok(text) = std::fs::read_to_string(home.curator_suppressed()) else {
        return BTreeSet::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// Writes `.curator_suppressed`: sorted names, one per line, `\n`-terminated.
pub fn write_suppressed(home: &Home, names: &BTreeSet<String>) -> Result<(), FileError> {
    let mut text = names.iter().cloned().collect::<Vec<_>>().join("\n");
    if !names.is_empty() {
        text.push('\n');
    }
    let path = home.curator_suppressed();
    // Never overwrite what could not be read (it read as empty): keep its bytes, refuse.
    if let Err(e) = std::fs::read_to_string(&path)
        && e.kind() == std::io::ErrorKind::InvalidData
    {
        if let Ok(bytes) = std::fs::read(&path) {
            let mut copy = path.clone().into_os_string();
            copy.push(".corrupt");
            let _ = write_atomic(std::path::Path::new(&copy), &bytes, FileMode::Private);
        }
        return Err(FileError::new(
            "replace",
            &path,
            std::io::Error::other("it is not UTF-8 text; left as it is (a copy is in .corrupt)"),
        ));
    }
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    write_atomic(&path, text.as_bytes(), FileMode::Private)
}

/// Best effort, as in Hermes.
pub fn add_suppressed(home: &Home, name: &str) {
    let mut names = read_suppressed(home);
    if !name.is_empty() && names.insert(name.to_string()) {
        let _ = write_suppressed(home, &names);
    }
}

pub fn remove_suppressed(home: &Home, name: &str) {
    let mut names = read_suppressed(home);
    if names.remove(name) {
        let _ = write_suppressed(home, &names);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Config;
    use crate::skills::runtime::Runtime;

    fn lib_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        let lib = Library::new(
            Home::at(dir.path()),
            Config::defaults(),
            Runtime::plain_linux(),
        );
        (dir, lib)
    }

    fn ts(s: &str) -> Timestamp {
        crate::clock::parse_timestamp(s).expect("ts")
    }

    #[test]
    fn archive_twice_suffixes_and_restore_takes_the_exact_name() {
        let (dir, lib) = lib_with(&[
            ("skills/cat/demo/SKILL.md", "---\nname: demo\n---\nbody"),
            ("skills/.archive/demo/SKILL.md", "---\nname: demo\n---\nold"),
            ("skills/.bundled_manifest", "demo:abc\n"),
        ]);
        let mut index = Index::build(&lib);
        let now = ts("2026-03-04T05:06:07Z");
        let msg = archive_skill(&lib, &mut index, "demo", now).expect("archived");
        let dest = dir.path().join("skills/.archive/demo-20260304050607");
        assert_eq!(msg, format!("archived to {}", dest.display()));
        assert!(dest.join("SKILL.md").exists());
        assert_eq!(
            read_suppressed(&lib.home),
            BTreeSet::from(["demo".to_string()])
        );
        let rec = usage::load(&lib.home).get("demo").cloned().expect("record");
        assert_eq!(rec["state"], Json::String("archived".into()));
        assert_eq!(
            list_archived(&lib.home),
            vec!["demo", "demo-20260304050607"]
        );

        let msg = restore_skill(&lib, &mut index, "demo", now).expect("restored");
        assert_eq!(
            msg,
            format!("restored to {}", dir.path().join("skills/demo").display())
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("skills/demo/SKILL.md")).expect("read"),
            "---\nname: demo\n---\nold"
        );
        assert!(read_suppressed(&lib.home).is_empty());
        assert_eq!(
            std::fs::read_to_string(lib.home.curator_suppressed()).expect("r"),
            ""
        );
        let err = restore_skill(&lib, &mut index, "demo", now).expect_err("taken");
        assert!(err.starts_with("destination already exists: "), "{err}");
        std::fs::write(lib.home.curator_suppressed(), b"a\xff\n").expect("seed");
        let names: BTreeSet<String> = ["b".to_string()].into();
        write_suppressed(&lib.home, &names).expect_err("refused");
        assert_eq!(
            std::fs::read(lib.home.curator_suppressed()).expect("kept"),
            b"a\xff\n"
        );
    }

    #[test]
    fn a_taken_suffix_moves_on_a_second() {
        let (dir, lib) = lib_with(&[
            ("skills/b/demo/SKILL.md", "---\nname: demo\n---\nnew"),
            ("skills/.archive/demo/SKILL.md", "x"),
            ("skills/.archive/demo-20260304050607/SKILL.md", "x"),
        ]);
        let mut index = Index::build(&lib);
        let msg =
            archive_skill(&lib, &mut index, "demo", ts("2026-03-04T05:06:07Z")).expect("archived");
        let dest = dir.path().join("skills/.archive/demo-20260304050608");
        assert_eq!(msg, format!("archived to {}", dest.display()));
        assert_eq!(
            std::fs::read_to_string(dest.join("SKILL.md")).expect("read"),
            "---\nname: demo\n---\nnew"
        );
    }

    #[test]
    fn refusals_use_hermes_words() {
        let (_dir, lib) = lib_with(&[
            ("skills/plan/SKILL.md", "---\nname: plan\n---\nx"),
            ("skills/.hub/lock.json", r#"{"installed": {"hubbed": {}}}"#),
        ]);
        let mut index = Index::build(&lib);
        let now = ts("2026-01-01T00:00:00Z");
        assert_eq!(
            archive_skill(&lib, &mut index, "plan", now),
            Err("skill 'plan' is a protected built-in; it backs load-bearing UX and is never archived or consolidated".into())
        );
        assert_eq!(
            archive_skill(&lib, &mut index, "hubbed", now),
            Err("skill 'hubbed' is hub-installed; never archive".into())
        );
        assert_eq!(
            archive_skill(&lib, &mut index, "ghost", now),
            Err("skill 'ghost' not found".into())
        );
        assert_eq!(
            restore_skill(&lib, &mut index, "ghost", now),
            Err("no archive directory".into())
        );
        assert_eq!(
            restore_skill(&lib, &mut index, "../etc", now),
            Err("skill '../etc' not found in archive".into())
        );
    }
}
