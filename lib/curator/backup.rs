//! Snapshots of `skills/` taken before every real run, and rollback to one.
//!
//! `skills/.curator_backups/<YYYY-MM-DDTHH-MM-SSZ>[-NN]/` holds `skills.tar.gz` (every
//! top-level entry of `skills/` but `.curator_backups` and `.hub`, sorted, recursive, names
//! relative to `skills/`, gzip level 1), `cron-jobs.json` (a copy of `cron/jobs.json`) and
//! `manifest.json` — Hermes's layout, so either program restores the other's snapshots.
//!
//! Unlike Hermes, a second snapshot within one second never takes a freed lower id (Hermes
//! reuses `…Z` after pruning it, which then sorts oldest and is deleted by its own retention
//! pass), and the snapshot just taken is never pruned.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use jiff::Timestamp;
use serde_json::{Map, Value as Json};
use walkdir::WalkDir;

use super::cron;
use crate::clock;
use crate::home::Home;
use crate::io::pyjson::{Dumps, dumps};

/// Top-level entries of `skills/` never put in a snapshot nor replaced by a rollback.
pub const EXCLUDED_TOP_LEVEL: [&str; 2] = [".curator_backups", ".hub"];
pub const ARCHIVE_NAME: &str = "skills.tar.gz";
pub const CRON_FILE_NAME: &str = "cron-jobs.json";
const STAGING_PREFIX: &str = ".rollback-staging-";

/// A snapshot could not be taken or restored.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Refused(String),
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> BackupError {
    let path = path.to_path_buf();
    move |source| BackupError::Io {
        action,
        path,
        source,
    }
}

/// `^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z(-\d{2})?$`.
pub fn is_backup_id(id: &str) -> bool {
    let b = id.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let base = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b'-'
        && digits(14..16)
        && b[16] == b'-'
        && digits(17..19)
        && b[19] == b'Z';
    base && (b.len() == 20 || (b.len() == 23 && b[20] == b'-' && digits(21..23)))
}

/// `2026-05-01T13-05-42Z`.
pub fn base_id(now: Timestamp) -> String {
    super::utc_stamp(now, "%Y-%m-%dT%H-%M-%SZ")
}

/// The id of a new snapshot: the second's base id, or one past the highest `-NN` taken in
/// that second (so ids within a second grow in the order they were taken).
fn next_id(backups: &Path, now: Timestamp) -> Option<String> {
    let base = base_id(now);
    let mut highest: Option<u32> = None;
    if let Ok(entries) = std::fs::read_dir(backups) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == base {
                highest = highest.max(Some(0));
            } else if let Some(n) = name
                .strip_prefix(&base)
                .and_then(|rest| rest.strip_prefix('-'))
                .filter(|n| n.len() == 2)
                .and_then(|n| n.parse::<u32>().ok())
            {
                highest = highest.max(Some(n));
            }
        }
    }
    match highest {
        None => Some(base),
        Some(n) if n < 99 => Some(format!("{base}-{:02}", n + 1)),
        Some(_) => None,
    }
}

/// A snapshot that was taken.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub id: String,
    pub dir: PathBuf,
    pub manifest: Json,
}

/// Takes a snapshot of `skills/` and applies retention (`keep` newest, never `protect`ed
/// ids nor the new one). `Ok(None)` when there is no `skills/` to back up. A failure
/// removes the partial snapshot.
pub fn snapshot(
    home: &Home,
    reason: &str,
    keep: i64,
    protect: &[String],
    now: Timestamp,
) -> Result<Option<Snapshot>, BackupError> {
    let skills = home.skills_dir();
    if !skills.is_dir() {
        return Ok(None);
    }
    let backups = home.curator_backups_dir();
    std::fs::create_dir_all(&backups).map_err(io("create", &backups))?;
    let id = next_id(&backups, now).ok_or_else(|| {
        BackupError::Refused(format!(
            "100 snapshots were already taken at {}; try again in a second",
            base_id(now)
        ))
    })?;
    let dir = backups.join(&id);
    std::fs::create_dir(&dir).map_err(io("create", &dir))?;
    let taken = (|| {
        let archive = dir.join(ARCHIVE_NAME);
        write_tarball(&skills, &archive)?;
        let cron = backup_cron_jobs(home, &dir);
        let archive_bytes = std::fs::metadata(&archive)
            .map_err(io("read", &archive))?
            .len();
        let skill_files = crate::skills::discover::skill_files(&skills).files.len();
        let manifest = manifest(&id, reason, now, archive_bytes, skill_files, cron);
        let text = dumps(
            &manifest,
            Dumps {
                indent: Some(2),
                ensure_ascii: true,
                sort_keys: true,
            },
        );
        let path = dir.join("manifest.json");
        std::fs::write(&path, text).map_err(io("write", &path))?;
        Ok(manifest)
    })();
    match taken {
        Ok(manifest) => {
            let mut protected = protect.to_vec();
            protected.push(id.clone());
            prune_old(home, keep.max(1), &protected);
            Ok(Some(Snapshot { id, dir, manifest }))
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}

fn manifest(
    id: &str,
    reason: &str,
    now: Timestamp,
    archive_bytes: u64,
    skill_files: usize,
    cron: Map<String, Json>,
) -> Json {
    let mut m = Map::new();
    m.insert("id".into(), Json::String(id.into()));
    m.insert("reason".into(), Json::String(reason.into()));
    m.insert("created_at".into(), Json::String(clock::isoformat(now)));
    m.insert("archive".into(), Json::String(ARCHIVE_NAME.into()));
    m.insert("archive_bytes".into(), Json::from(archive_bytes));
    m.insert("skill_files".into(), Json::from(skill_files));
    m.insert("cron_jobs".into(), Json::Object(cron));
    Json::Object(m)
}

/// Copies `cron/jobs.json` (BOM removed) beside the tarball; the manifest's `cron_jobs`.
fn backup_cron_jobs(home: &Home, dest: &Path) -> Map<String, Json> {
    let mut info = Map::new();
    let src = home.cron_jobs();
    let (backed_up, jobs_count, reason, warning) = match std::fs::read(&src) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
            false,
            0,
            Some("no cron/jobs.json present".to_string()),
            None,
        ),
        Err(e) => (false, 0, Some(format!("read error: {e}")), None),
        Ok(bytes) => {
            let bytes = bytes
                .strip_prefix(b"\xef\xbb\xbf")
                .unwrap_or(&bytes)
                .to_vec();
            let (count, warning) = match serde_json::from_slice::<Json>(&bytes) {
                Ok(Json::Object(m)) => (
                    m.get("jobs").and_then(Json::as_array).map_or(0, Vec::len),
                    None,
                ),
                Ok(Json::Array(a)) => (a.len(), None),
                Ok(_) => (0, None),
                Err(_) => (
                    0,
                    Some("jobs.json was not valid JSON at snapshot time".to_string()),
                ),
            };
            match std::fs::write(dest.join(CRON_FILE_NAME), &bytes) {
                Ok(()) => (true, count, None, warning),
                Err(e) => (false, count, Some(format!("write error: {e}")), warning),
            }
        }
    };
    info.insert("backed_up".into(), Json::Bool(backed_up));
    info.insert("jobs_count".into(), Json::from(jobs_count));
    if let Some(reason) = reason {
        info.insert("reason".into(), Json::String(reason));
    }
    if let Some(warning) = warning {
        info.insert("parse_warning".into(), Json::String(warning));
    }
    info
}

/// Writes `skills/` (less the excluded top-level entries) as a gzip level-1 tarball, in
/// sorted order, symlinks stored as links. The tar stream is built on this thread and
/// compressed on another, so reading the tree and compressing overlap.
fn write_tarball(skills: &Path, archive: &Path) -> Result<(), BackupError> {
    let file = File::create(archive).map_err(io("create", archive))?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(8);
    std::thread::scope(|scope| {
        let compressor = scope.spawn(move || -> std::io::Result<File> {
            let mut gz =
                GzEncoder::new(BufWriter::with_capacity(1 << 20, file), Compression::fast());
            for chunk in rx {
                gz.write_all(&chunk)?;
            }
            let mut out = gz.finish()?;
            out.flush()?;
            out.into_inner().map_err(|e| e.into_error())
        });
        let built = build_tar(skills, ChunkWriter::new(tx));
        let compressed = compressor
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the compressor thread panicked")));
        built?;
        compressed
            .and_then(|f| f.sync_all())
            .map_err(io("write", archive))
    })
}

/// Sends what is written in 1 MiB chunks to the compressor.
struct ChunkWriter {
    buf: Vec<u8>,
    tx: std::sync::mpsc::SyncSender<Vec<u8>>,
}

const CHUNK: usize = 1 << 20;

impl ChunkWriter {
    fn new(tx: std::sync::mpsc::SyncSender<Vec<u8>>) -> ChunkWriter {
        ChunkWriter {
            buf: Vec::with_capacity(CHUNK),
            tx,
        }
    }

    fn send(&mut self) -> std::io::Result<()> {
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx
            .send(chunk)
            .map_err(|_| std::io::Error::other("the compressor stopped"))
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.send()?;
        }
        Ok(())
    }
}

fn build_tar(skills: &Path, out: ChunkWriter) -> Result<(), BackupError> {
    let mut tar = tar::Builder::new(out);
    tar.follow_symlinks(false);
    let mut top: Vec<PathBuf> = std::fs::read_dir(skills)
        .map_err(io("read", skills))?
        .filter_map(Result::ok)
        .filter(|e| !EXCLUDED_TOP_LEVEL.contains(&e.file_name().to_string_lossy().as_ref()))
        .map(|e| e.path())
        .collect();
    top.sort();
    for entry in top {
        for item in WalkDir::new(&entry).follow_links(false).sort_by_file_name() {
            let item = item.map_err(|e| {
                let path = e.path().unwrap_or(&entry).to_path_buf();
                BackupError::Io {
                    action: "read",
                    path,
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
            let kind = item.file_type();
            if !(kind.is_dir() || kind.is_file() || kind.is_symlink()) {
                continue; // sockets and fifos: Python's tarfile skips them too
            }
            let rel = item.path().strip_prefix(skills).unwrap_or(item.path());
            tar.append_path_with_name(item.path(), rel)
                .map_err(io("archive", item.path()))?;
        }
    }
    let mut out = tar.into_inner().map_err(io("write", skills))?;
    out.flush().map_err(io("write", skills))
}

/// Deletes snapshots beyond the newest `keep` (except `protect`) and stale staging dirs.
pub fn prune_old(home: &Home, keep: i64, protect: &[String]) -> Vec<String> {
    let backups = home.curator_backups_dir();
    let Ok(entries) = std::fs::read_dir(&backups) else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for entry in entries.flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(STAGING_PREFIX) {
            let _ = std::fs::remove_dir_all(entry.path());
        } else if is_backup_id(&name) {
            ids.push(name);
        }
    }
    ids.sort_unstable_by(|a, b| b.cmp(a));
    let keep = usize::try_from(keep.max(1)).unwrap_or(usize::MAX);
    let mut deleted = Vec::new();
    for id in ids.into_iter().skip(keep) {
        if protect.contains(&id) {
            continue;
        }
        if std::fs::remove_dir_all(backups.join(&id)).is_ok() {
            deleted.push(id);
        }
    }
    deleted
}

/// One restorable snapshot (`list_backups`): its manifest, with `id`, `path` and
/// `archive_bytes` filled in when missing.
pub fn list(home: &Home) -> Vec<Json> {
    restorable(home)
        .into_iter()
        .map(|dir| {
            let mut m = match read_manifest(&dir) {
                Json::Object(m) => m,
                _ => Map::new(),
            };
            let id = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            m.entry("id").or_insert(Json::String(id));
            m.entry("path")
                .or_insert(Json::String(dir.display().to_string()));
            if !m.contains_key("archive_bytes") {
                let size = std::fs::metadata(dir.join(ARCHIVE_NAME)).map_or(0, |m| m.len());
                m.insert("archive_bytes".into(), Json::from(size));
            }
            Json::Object(m)
        })
        .collect()
}

/// Snapshot dirs with a tarball, newest first.
fn restorable(home: &Home) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(home.curator_backups_dir()) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| is_backup_id(&n.to_string_lossy()))
                && p.join(ARCHIVE_NAME).is_file()
        })
        .collect();
    dirs.sort_unstable_by(|a, b| b.cmp(a));
    dirs
}

/// The manifest, `{}` when missing or unreadable.
pub fn read_manifest(dir: &Path) -> Json {
    std::fs::read(dir.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Json>(&b).ok())
        .filter(Json::is_object)
        .unwrap_or_else(|| Json::Object(Map::new()))
}

/// The snapshot to restore: `id` when it names one, else the newest.
pub fn resolve(home: &Home, id: Option<&str>) -> Option<PathBuf> {
    match id {
        Some(id) => {
            let dir = home.curator_backups_dir().join(id);
            (is_backup_id(id) && dir.is_dir() && dir.join(ARCHIVE_NAME).is_file()).then_some(dir)
        }
        None => restorable(home).into_iter().next(),
    }
}

/// Hermes's `format_size`.
pub fn format_size(n: u64) -> String {
    if n < 1024 {
        return format!("{n} B");
    }
    let mut x = n as f64 / 1024.0;
    for unit in ["KB", "MB"] {
        if x < 1024.0 {
            return format!("{x:.1} {unit}");
        }
        x /= 1024.0;
    }
    format!("{x:.1} GB")
}

/// Hermes's `summarize_backups` table.
pub fn summarize(rows: &[Json]) -> String {
    if rows.is_empty() {
        return "No curator snapshots yet.".into();
    }
    let header = format!(
        "{:<24}  {:<40}  {:>6}  {:>8}",
        "id", "reason", "skills", "size"
    );
    let mut lines = vec![header.clone(), "─".repeat(header.chars().count())];
    for r in rows {
        let text = |k: &str| match r.get(k) {
            Some(Json::String(s)) => s.clone(),
            Some(Json::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let reason = Some(text("reason")).filter(|s| !s.is_empty());
        let reason: String = reason
            .unwrap_or_else(|| "?".into())
            .chars()
            .take(40)
            .collect();
        let size = r.get("archive_bytes").and_then(Json::as_u64).unwrap_or(0);
        let skills = match r.get("skill_files") {
            Some(Json::Number(n)) => n.to_string(),
            _ => "0".into(),
        };
        lines.push(format!(
            "{:<24}  {:<40}  {:>6}  {:>8}",
            text("id"),
            reason,
            skills,
            format_size(size)
        ));
    }
    lines.join("\n")
}

/// Checks every member of a snapshot before anything is touched: no absolute path, no
/// `..`, links that stay inside `skills/`, only files, folders and links (Python's
/// `filter="data"`).
fn check_members(archive: &Path) -> Result<(), String> {
    let file = File::open(archive).map_err(|e| e.to_string())?;
    let mut tar = tar::Archive::new(GzDecoder::new(std::io::BufReader::new(file)));
    for entry in tar.entries().map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path().map_err(|e| e.to_string())?.into_owned();
        if !safe_relative(&path) {
            return Err(format!(
                "refusing to extract unsafe path: {:?}",
                path.display().to_string()
            ));
        }
        use tar::EntryType as T;
        match entry.header().entry_type() {
            T::Regular | T::Directory | T::Continuous => {}
            T::Symlink | T::Link => {
                let target = entry
                    .link_name()
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default()
                    .into_owned();
                let base = if entry.header().entry_type() == T::Symlink {
                    path.parent().map(Path::to_path_buf).unwrap_or_default()
                } else {
                    PathBuf::new()
                };
                if target.is_absolute() || !stays_inside(&base.join(&target)) {
                    return Err(format!(
                        "refusing to extract {:?}: its link points outside skills/",
                        path.display().to_string()
                    ));
                }
            }
            other => {
                return Err(format!(
                    "refusing to extract {:?}: unsupported member type {other:?}",
                    path.display().to_string()
                ));
            }
        }
    }
    Ok(())
}

fn safe_relative(path: &Path) -> bool {
    !path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Whether a relative path, `..` folded lexically, stays at or below its root.
fn stays_inside(path: &Path) -> bool {
    let mut depth = 0i64;
    for c in path.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            Component::CurDir => {}
            _ => return false,
        }
    }
    true
}

fn extract(archive: &Path, skills: &Path) -> Result<(), String> {
    let file = File::open(archive).map_err(|e| e.to_string())?;
    let mut tar = tar::Archive::new(GzDecoder::new(std::io::BufReader::new(file)));
    tar.set_preserve_permissions(false);
    for entry in tar.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        entry.unpack_in(skills).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// What a rollback did.
#[derive(Debug, Clone, PartialEq)]
pub struct Rolledback {
    pub id: String,
    pub safety_snapshot: Option<String>,
    pub message: String,
}

/// The "no such snapshot" message.
pub fn no_match_message(id: Option<&str>) -> String {
    format!(
        "no matching backup found{} (use `hermes-curate rollback --list` to see available snapshots)",
        id.map(|id| format!(" for id '{id}'")).unwrap_or_default()
    )
}

/// Restores `skills/` from a snapshot: a safety snapshot of the current tree first (always,
/// whatever `curator.backup.enabled` says), the current entries staged aside, the snapshot
/// extracted, the staged entries put back if that fails; then the cron skill links.
pub fn rollback(
    home: &Home,
    id: Option<&str>,
    keep: i64,
    now: Timestamp,
) -> Result<Rolledback, String> {
    let target = resolve(home, id).ok_or_else(|| no_match_message(id))?;
    let target_id = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let archive = target.join(ARCHIVE_NAME);
    check_members(&archive).map_err(|e| format!("snapshot {target_id} cannot be restored: {e}"))?;
    let skills = home.skills_dir();
    std::fs::create_dir_all(&skills).map_err(|e| e.to_string())?;
    let safety = snapshot(
        home,
        &format!("pre-rollback to {target_id}"),
        keep,
        std::slice::from_ref(&target_id),
        now,
    )
    .map_err(|e| format!("pre-rollback safety snapshot failed: {e}"))?;

    let backups = home.curator_backups_dir();
    let mut staged = backups.join(format!("{STAGING_PREFIX}{}", base_id(now)));
    let mut n = 1;
    while staged.exists() {
        staged = backups.join(format!("{STAGING_PREFIX}{}-{n:02}", base_id(now)));
        n += 1;
    }
    std::fs::create_dir_all(&staged).map_err(|e| format!("failed to create staging dir: {e}"))?;
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    let put_back = |moved: &[(PathBuf, PathBuf)]| {
        for (orig, dest) in moved {
            let _ = std::fs::rename(dest, orig);
        }
    };
    for entry in top_level(&skills) {
        let dest = staged.join(entry.file_name().unwrap_or_default());
        if let Err(e) = std::fs::rename(&entry, &dest) {
            put_back(&moved);
            let _ = std::fs::remove_dir_all(&staged);
            return Err(format!("failed to stage current skills: {e}"));
        }
        moved.push((entry, dest));
    }
    if let Err(e) = extract(&archive, &skills) {
        for entry in top_level(&skills) {
            let _ = if entry.is_dir() && !entry.is_symlink() {
                std::fs::remove_dir_all(&entry)
            } else {
                std::fs::remove_file(&entry)
            };
        }
        put_back(&moved);
        let _ = std::fs::remove_dir_all(&staged);
        return Err(format!("snapshot extract failed (state restored): {e}"));
    }
    let _ = std::fs::remove_dir_all(&staged);
    let _ = std::fs::remove_file(home.skills_prompt_snapshot());

    let mut message = format!("restored from snapshot {target_id}");
    match std::fs::read(target.join(CRON_FILE_NAME)) {
        Ok(bytes) => {
            let links = cron::restore_links(home, &bytes, now).message();
            if !links.is_empty() {
                message.push_str("; ");
                message.push_str(&links);
            }
        }
        Err(_) => {
            // Hermes reports nothing when the snapshot holds no cron file.
        }
    }
    Ok(Rolledback {
        id: target_id,
        safety_snapshot: safety.map(|s| s.id),
        message,
    })
}

/// The top-level entries of `skills/` a rollback replaces.
fn top_level(skills: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(skills) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| !EXCLUDED_TOP_LEVEL.contains(&e.file_name().to_string_lossy().as_ref()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        clock::parse_timestamp(s).expect("ts")
    }

    #[test]
    fn ids_follow_hermes_regex() {
        assert!(is_backup_id("2026-06-01T12-00-00Z"));
        assert!(is_backup_id("2026-06-01T12-00-00Z-07"));
        assert!(!is_backup_id("2026-06-01T12-00-00Z-7"));
        assert!(!is_backup_id("2026-06-01T12:00:00Z"));
        assert!(!is_backup_id(".rollback-staging-2026-06-01T12-00-00Z"));
        assert!(!is_backup_id(""));
    }

    #[test]
    fn sizes_print_like_python() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1536), "1.5 KB");
        assert_eq!(format_size(5 * 1024 * 1024), "5.0 MB");
        assert_eq!(format_size(3 << 40), "3072.0 GB");
    }

    /// Seven snapshots in one second with keep 5: the five newest survive, in order, and
    /// the last one taken is among them (Hermes deletes it: scenario 44).
    #[test]
    fn same_second_snapshots_keep_the_newest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir().join("a")).expect("mkdir");
        std::fs::write(home.skills_dir().join("a/SKILL.md"), "---\nname: a\n---\n").expect("w");
        let now = ts("2026-06-01T12:00:00Z");
        let mut last = String::new();
        for _ in 0..7 {
            last = snapshot(&home, "manual", 5, &[], now)
                .expect("snapshot")
                .expect("taken")
                .id;
        }
        assert_eq!(last, "2026-06-01T12-00-00Z-06");
        let ids: Vec<String> = list(&home)
            .iter()
            .map(|r| r["id"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(
            ids,
            (2..=6)
                .rev()
                .map(|n| format!("2026-06-01T12-00-00Z-{n:02}"))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn unsafe_members_are_refused_before_anything_moves() {
        assert!(safe_relative(Path::new("a/b")));
        assert!(!safe_relative(Path::new("../a")));
        assert!(!safe_relative(Path::new("/etc/passwd")));
        assert!(stays_inside(Path::new("a/../b")));
        assert!(!stays_inside(Path::new("a/../../b")));
    }

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, text).expect("write");
    }

    /// A temp home whose `skills/` holds the given files.
    fn home_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Home) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        for (rel, text) in files {
            write(&home.skills_dir().join(rel), text);
        }
        (dir, home)
    }

    /// Each member of a snapshot: `d name`, `f name = content` or `l name -> target`.
    fn members(archive: &Path) -> Vec<String> {
        let file = File::open(archive).expect("open");
        let mut tar = tar::Archive::new(GzDecoder::new(file));
        let mut out = Vec::new();
        for entry in tar.entries().expect("entries") {
            let mut entry = entry.expect("entry");
            let name = entry.path().expect("path").display().to_string();
            let name = name.trim_end_matches('/').to_string();
            match entry.header().entry_type() {
                tar::EntryType::Directory => out.push(format!("d {name}")),
                tar::EntryType::Symlink => {
                    let target = entry.link_name().expect("link").expect("target");
                    out.push(format!("l {name} -> {}", target.display()));
                }
                tar::EntryType::Regular => {
                    let mut text = String::new();
                    std::io::Read::read_to_string(&mut entry, &mut text).expect("read");
                    out.push(format!("f {name} = {text}"));
                }
                other => out.push(format!("? {name} {other:?}")),
            }
        }
        out
    }

    /// The names in a folder, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    /// A gzip'd tarball written member by member, names as raw bytes (so `..` and absolute
    /// names, which the tar crate's path setters refuse, can be written).
    fn crafted(path: &Path, members: &[(&str, tar::EntryType, &str)]) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let file = File::create(path).expect("create");
        let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::fast()));
        for (name, kind, data) in members {
            let mut header = tar::Header::new_gnu();
            header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            header.set_entry_type(*kind);
            header.set_mode(0o644);
            let body: &[u8] = match kind {
                tar::EntryType::Symlink | tar::EntryType::Link => {
                    header.as_old_mut().linkname[..data.len()].copy_from_slice(data.as_bytes());
                    b""
                }
                _ => data.as_bytes(),
            };
            header.set_size(body.len() as u64);
            header.set_cksum();
            tar.append(&header, body).expect("append");
        }
        tar.into_inner().expect("finish").finish().expect("gzip");
    }

    #[test]
    fn ids_check_every_character() {
        let valid = "2026-06-01T12-00-00Z-07";
        assert!(is_backup_id(&valid[..20]));
        assert!(is_backup_id(valid));
        // One wrong character anywhere (a digit where a separator goes, a letter where a
        // digit goes) and it is no id.
        for i in 0..valid.len() {
            let mut wrong = valid.as_bytes().to_vec();
            wrong[i] = b'x';
            let wrong = String::from_utf8(wrong).expect("ascii");
            assert!(!is_backup_id(&wrong), "{wrong}");
            if i < 20 {
                assert!(!is_backup_id(&wrong[..20]), "{}", &wrong[..20]);
            }
        }
        assert!(!is_backup_id("2026-06-01T12-00-00"));
        assert!(!is_backup_id("2026-06-01T12-00-00Z-"));
        assert!(!is_backup_id("2026-06-01T12-00-00Z-071"));
        assert!(!is_backup_id("2026-06-01T12-00-00Z07"));
    }

    #[test]
    fn base_ids_are_the_utc_second() {
        assert_eq!(
            base_id(ts("2026-05-01T13:05:42.999Z")),
            "2026-05-01T13-05-42Z"
        );
        assert_eq!(
            base_id(ts("2026-05-01T15:05:42+02:00")),
            "2026-05-01T13-05-42Z"
        );
    }

    /// Within one second: the base id, then one past the highest two-digit suffix taken;
    /// other seconds and other names do not count; after `-99` there is no id left.
    #[test]
    fn ids_within_a_second_count_up_past_the_highest_taken() {
        let dir = tempfile::tempdir().expect("tempdir");
        let backups = dir.path().join("backups");
        let now = ts("2026-06-01T12:00:00Z");
        assert_eq!(
            next_id(&backups, now).as_deref(),
            Some("2026-06-01T12-00-00Z")
        );
        for name in ["notes", "2026-06-01T12-00-01Z", "2026-06-01T11-59-59Z-40"] {
            std::fs::create_dir_all(backups.join(name)).expect("mkdir");
        }
        assert_eq!(
            next_id(&backups, now).as_deref(),
            Some("2026-06-01T12-00-00Z")
        );
        std::fs::create_dir(backups.join("2026-06-01T12-00-00Z")).expect("mkdir");
        assert_eq!(
            next_id(&backups, now).as_deref(),
            Some("2026-06-01T12-00-00Z-01")
        );
        for name in ["-7", "-xx", "-123", "_50", "-05"] {
            std::fs::create_dir(backups.join(format!("2026-06-01T12-00-00Z{name}"))).expect("mk");
        }
        assert_eq!(
            next_id(&backups, now).as_deref(),
            Some("2026-06-01T12-00-00Z-06")
        );
        std::fs::create_dir(backups.join("2026-06-01T12-00-00Z-98")).expect("mkdir");
        assert_eq!(
            next_id(&backups, now).as_deref(),
            Some("2026-06-01T12-00-00Z-99")
        );
        std::fs::create_dir(backups.join("2026-06-01T12-00-00Z-99")).expect("mkdir");
        assert_eq!(next_id(&backups, now), None);
    }

    #[test]
    fn a_hundredth_snapshot_in_one_second_is_refused() {
        let (_dir, home) = home_with(&[("a/SKILL.md", "---\nname: a\n---\n")]);
        let backups = home.curator_backups_dir();
        std::fs::create_dir_all(backups.join("2026-06-01T12-00-00Z")).expect("mkdir");
        for n in 1..=99 {
            std::fs::create_dir(backups.join(format!("2026-06-01T12-00-00Z-{n:02}")))
                .expect("mkdir");
        }
        let err =
            snapshot(&home, "manual", 200, &[], ts("2026-06-01T12:00:00.5Z")).expect_err("refused");
        assert_eq!(
            err.to_string(),
            "100 snapshots were already taken at 2026-06-01T12-00-00Z; try again in a second"
        );
        assert_eq!(names(&backups).len(), 100);
    }

    #[test]
    fn no_skills_folder_no_snapshot() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let taken = snapshot(&home, "manual", 5, &[], ts("2026-06-01T12:00:00Z")).expect("ok");
        assert_eq!(taken, None);
        assert!(!home.curator_backups_dir().exists());
    }

    /// The tarball holds every top-level entry but `.curator_backups` and `.hub`, sorted,
    /// recursively, links as links, no sockets; the cron file is copied without its BOM;
    /// the manifest is Hermes's, byte for byte.
    #[test]
    fn a_snapshot_holds_the_tree_the_cron_jobs_and_the_manifest() {
        let (dir, home) = home_with(&[
            ("b-skill/SKILL.md", "---\nname: b-skill\n---\n"),
            ("a-skill/SKILL.md", "---\nname: a-skill\n---\n"),
            ("a-skill/references/x.md", "x"),
            (".usage.json", "{}"),
            (".hub/lock.json", "{}"),
            (".curator_backups/notes.txt", "old"),
        ]);
        let skills = home.skills_dir();
        std::os::unix::fs::symlink("a-skill/references/x.md", skills.join("notes.md"))
            .expect("symlink");
        let _socket = std::os::unix::net::UnixListener::bind(skills.join("sock")).expect("socket");
        write(
            &dir.path().join("cron/jobs.json"),
            "\u{feff}{\"jobs\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}",
        );
        let now = ts("2026-06-01T12:00:00Z");
        let taken = snapshot(&home, "nightly é", 5, &[], now)
            .expect("snapshot")
            .expect("taken");
        assert_eq!(taken.id, "2026-06-01T12-00-00Z");
        assert_eq!(
            taken.dir,
            skills.join(".curator_backups/2026-06-01T12-00-00Z")
        );
        assert_eq!(
            names(&taken.dir),
            ["cron-jobs.json", "manifest.json", "skills.tar.gz"]
        );
        assert_eq!(
            members(&taken.dir.join("skills.tar.gz")),
            [
                "f .usage.json = {}",
                "d a-skill",
                "f a-skill/SKILL.md = ---\nname: a-skill\n---\n",
                "d a-skill/references",
                "f a-skill/references/x.md = x",
                "d b-skill",
                "f b-skill/SKILL.md = ---\nname: b-skill\n---\n",
                "l notes.md -> a-skill/references/x.md",
            ]
        );
        assert_eq!(
            std::fs::read_to_string(taken.dir.join("cron-jobs.json")).expect("read"),
            "{\"jobs\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}"
        );
        let size = std::fs::metadata(taken.dir.join("skills.tar.gz"))
            .expect("stat")
            .len();
        let text = std::fs::read_to_string(taken.dir.join("manifest.json")).expect("read");
        assert_eq!(
            text,
            format!(
                "{{\n  \"archive\": \"skills.tar.gz\",\n  \"archive_bytes\": {size},\n  \"created_at\": \"2026-06-01T12:00:00+00:00\",\n  \"cron_jobs\": {{\n    \"backed_up\": true,\n    \"jobs_count\": 2\n  }},\n  \"id\": \"2026-06-01T12-00-00Z\",\n  \"reason\": \"nightly \\u00e9\",\n  \"skill_files\": 2\n}}"
            )
        );
        assert_eq!(
            taken.manifest,
            serde_json::from_str::<Json>(&text).expect("json")
        );
    }

    /// The manifest's `cron_jobs` for each state `cron/jobs.json` can be in.
    #[test]
    fn cron_jobs_are_copied_and_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let dest = dir.path().join("snap");
        std::fs::create_dir(&dest).expect("mkdir");
        let copied = || std::fs::read_to_string(dest.join("cron-jobs.json")).expect("read");
        assert_eq!(
            Json::Object(backup_cron_jobs(&home, &dest)),
            serde_json::json!({"backed_up": false, "jobs_count": 0,
                "reason": "no cron/jobs.json present"})
        );
        assert!(!dest.join("cron-jobs.json").exists());
        std::fs::create_dir_all(home.cron_jobs()).expect("mkdir");
        assert_eq!(
            Json::Object(backup_cron_jobs(&home, &dest)),
            serde_json::json!({"backed_up": false, "jobs_count": 0,
                "reason": "read error: Is a directory (os error 21)"})
        );
        std::fs::remove_dir(home.cron_jobs()).expect("rmdir");
        for (text, count) in [
            ("[1, 2, 3]", 3),
            ("{\"jobs\": \"none\"}", 0),
            ("{\"other\": []}", 0),
            ("\"text\"", 0),
        ] {
            write(&home.cron_jobs(), text);
            assert_eq!(
                Json::Object(backup_cron_jobs(&home, &dest)),
                serde_json::json!({"backed_up": true, "jobs_count": count}),
                "{text}"
            );
            assert_eq!(copied(), text);
        }
        write(&home.cron_jobs(), "\u{feff}{nope");
        assert_eq!(
            Json::Object(backup_cron_jobs(&home, &dest)),
            serde_json::json!({"backed_up": true, "jobs_count": 0,
                "parse_warning": "jobs.json was not valid JSON at snapshot time"})
        );
        assert_eq!(copied(), "{nope");
        write(&home.cron_jobs(), "{\"jobs\": [{}, {}]}");
        assert_eq!(
            Json::Object(backup_cron_jobs(&home, &dir.path().join("gone"))),
            serde_json::json!({"backed_up": false, "jobs_count": 2,
                "reason": "write error: No such file or directory (os error 2)"})
        );
    }

    /// Retention keeps the newest `keep` (at least one) and the protected ids, deletes
    /// stale staging folders, and leaves anything that is not a snapshot folder alone.
    #[test]
    fn pruning_keeps_the_newest_and_the_protected() {
        let (_dir, home) = home_with(&[]);
        let backups = home.curator_backups_dir();
        assert_eq!(prune_old(&home, 1, &[]), Vec::<String>::new());
        for day in 1..=5 {
            std::fs::create_dir_all(backups.join(format!("2026-06-0{day}T00-00-00Z")))
                .expect("mkdir");
        }
        std::fs::create_dir_all(backups.join(".rollback-staging-2026-06-01T00-00-00Z/a"))
            .expect("mkdir");
        std::fs::create_dir(backups.join("notes")).expect("mkdir");
        write(&backups.join("2026-05-01T00-00-00Z"), "a file");
        let protect = ["2026-06-01T00-00-00Z".to_string()];
        assert_eq!(
            prune_old(&home, 2, &protect),
            ["2026-06-03T00-00-00Z", "2026-06-02T00-00-00Z"]
        );
        assert_eq!(
            names(&backups),
            [
                "2026-05-01T00-00-00Z",
                "2026-06-01T00-00-00Z",
                "2026-06-04T00-00-00Z",
                "2026-06-05T00-00-00Z",
                "notes"
            ]
        );
        assert_eq!(
            prune_old(&home, 0, &[]),
            ["2026-06-04T00-00-00Z", "2026-06-01T00-00-00Z"]
        );
        assert_eq!(
            names(&backups),
            ["2026-05-01T00-00-00Z", "2026-06-05T00-00-00Z", "notes"]
        );
    }

    /// Only folders with a valid id and a tarball are restorable, newest first; the manifest
    /// is shown as written, with `id`, `path` and `archive_bytes` filled in when missing.
    #[test]
    fn listing_resolving_and_the_table() {
        let (_dir, home) = home_with(&[]);
        let backups = home.curator_backups_dir();
        let a = backups.join("2026-06-01T00-00-00Z");
        write(&a.join("skills.tar.gz"), "abc");
        write(
            &a.join("manifest.json"),
            "{\"reason\": \"pre-rollback to 2026-05-31T23-59-59Z and then some\", \"skill_files\": 3, \"archive_bytes\": 12345}",
        );
        let b = backups.join("2026-06-02T00-00-00Z");
        write(&b.join("skills.tar.gz"), "12345");
        write(
            &b.join("manifest.json"),
            "{\"reason\": null, \"skill_files\": \"7\"}",
        );
        let no_tarball = backups.join("2026-06-03T00-00-00Z");
        write(&no_tarball.join("manifest.json"), "[1]");
        let not_an_id = backups.join("notes");
        write(&not_an_id.join("skills.tar.gz"), "abc");
        let bad_manifest = backups.join("2026-05-01T00-00-00Z");
        write(&bad_manifest.join("skills.tar.gz"), "");
        write(&bad_manifest.join("manifest.json"), "{nope");

        let rows = list(&home);
        assert_eq!(
            rows,
            [
                serde_json::json!({"reason": null, "skill_files": "7",
                    "id": "2026-06-02T00-00-00Z", "path": b.display().to_string(),
                    "archive_bytes": 5}),
                serde_json::json!({"reason": "pre-rollback to 2026-05-31T23-59-59Z and then some",
                    "skill_files": 3, "archive_bytes": 12345,
                    "id": "2026-06-01T00-00-00Z", "path": a.display().to_string()}),
                serde_json::json!({"id": "2026-05-01T00-00-00Z",
                    "path": bad_manifest.display().to_string(), "archive_bytes": 0}),
            ]
        );
        assert_eq!(
            summarize(&rows),
            [
                "id                        reason                                    skills      size",
                &"─".repeat(84),
                "2026-06-02T00-00-00Z      ?                                              0       5 B",
                "2026-06-01T00-00-00Z      pre-rollback to 2026-05-31T23-59-59Z and       3   12.1 KB",
                "2026-05-01T00-00-00Z      ?                                              0       0 B",
            ]
            .join("\n")
        );
        assert_eq!(summarize(&[]), "No curator snapshots yet.");

        assert_eq!(resolve(&home, None), Some(b.clone()));
        assert_eq!(
            resolve(&home, Some("2026-06-01T00-00-00Z")),
            Some(a.clone())
        );
        assert_eq!(resolve(&home, Some("2026-06-03T00-00-00Z")), None);
        assert_eq!(resolve(&home, Some("notes")), None);
        assert_eq!(resolve(&home, Some("2026-06-09T00-00-00Z")), None);

        assert_eq!(
            read_manifest(&a),
            serde_json::json!({"reason": "pre-rollback to 2026-05-31T23-59-59Z and then some",
                "skill_files": 3, "archive_bytes": 12345})
        );
        assert_eq!(read_manifest(&no_tarball), serde_json::json!({}));
        assert_eq!(read_manifest(&bad_manifest), serde_json::json!({}));
        assert_eq!(read_manifest(&not_an_id), serde_json::json!({}));
    }

    #[test]
    fn sizes_switch_unit_at_1024() {
        assert_eq!(format_size(1024), "1.0 KB");
        assert_eq!(format_size(1024 * 1024 - 1), "1024.0 KB");
        assert_eq!(format_size(1024 * 1024), "1.0 MB");
        assert_eq!(format_size(1024 * 1024 * 1024), "1.0 GB");
    }

    #[test]
    fn the_no_match_message_names_the_id() {
        assert_eq!(
            no_match_message(None),
            "no matching backup found (use `hermes-curate rollback --list` to see available snapshots)"
        );
        assert_eq!(
            no_match_message(Some("2026-06-01T00-00-00Z")),
            "no matching backup found for id '2026-06-01T00-00-00Z' (use `hermes-curate rollback --list` to see available snapshots)"
        );
    }

    #[test]
    fn members_are_checked_like_pythons_data_filter() {
        use tar::EntryType as T;
        let dir = tempfile::tempdir().expect("tempdir");
        let archive = dir.path().join("x.tar.gz");
        crafted(
            &archive,
            &[
                ("a", T::Directory, ""),
                ("a/SKILL.md", T::Regular, "text"),
                ("a/link", T::Symlink, "../b/SKILL.md"),
                ("a/up", T::Symlink, ".."),
                ("b/hard", T::Link, "a/SKILL.md"),
                ("./c", T::Regular, ""),
                ("d", T::Continuous, ""),
            ],
        );
        assert_eq!(check_members(&archive), Ok(()));
        for (member, error) in [
            (
                ("../evil", T::Regular, ""),
                "refusing to extract unsafe path: \"../evil\"",
            ),
            (
                ("/etc/evil", T::Regular, ""),
                "refusing to extract unsafe path: \"/etc/evil\"",
            ),
            (
                ("a/link", T::Symlink, "../../outside"),
                "refusing to extract \"a/link\": its link points outside skills/",
            ),
            (
                ("a/abs", T::Symlink, "/etc/passwd"),
                "refusing to extract \"a/abs\": its link points outside skills/",
            ),
            (
                ("a/b/hard", T::Link, "../z"),
                "refusing to extract \"a/b/hard\": its link points outside skills/",
            ),
            (
                ("fifo", T::Fifo, ""),
                "refusing to extract \"fifo\": unsupported member type Fifo",
            ),
        ] {
            crafted(&archive, &[("ok", T::Regular, "x"), member]);
            assert_eq!(check_members(&archive), Err(error.to_string()));
        }
        assert!(stays_inside(Path::new("./a/./..")));
        assert!(!stays_inside(Path::new("..")));
    }

    /// A rollback takes a safety snapshot, replaces every top-level entry but the excluded
    /// ones, drops the prompt snapshot, puts the cron skill links back, and reports it.
    #[test]
    fn rollback_restores_the_tree_and_the_cron_links() {
        let (dir, home) = home_with(&[("a-skill/SKILL.md", "v1")]);
        let skills = home.skills_dir();
        write(
            &home.cron_jobs(),
            "{\"jobs\": [{\"id\": \"j\", \"skills\": [\"a-skill\"], \"skill\": \"a-skill\"}]}",
        );
        let first = snapshot(&home, "pre-curator-run", 5, &[], ts("2026-06-01T12:00:00Z"))
            .expect("snapshot")
            .expect("taken");
        write(&skills.join("a-skill/SKILL.md"), "v2");
        write(&skills.join("new-skill/SKILL.md"), "new");
        write(&skills.join(".hub/x"), "hub");
        write(
            &home.cron_jobs(),
            "{\"jobs\": [{\"id\": \"j\", \"skills\": [\"umbrella\"], \"skill\": \"umbrella\"}]}",
        );
        write(&dir.path().join(".skills_prompt_snapshot.json"), "{}");

        let done = rollback(&home, None, 5, ts("2026-06-02T08:30:00Z")).expect("rollback");
        assert_eq!(
            done,
            Rolledback {
                id: "2026-06-01T12-00-00Z".into(),
                safety_snapshot: Some("2026-06-02T08-30-00Z".into()),
                message: "restored from snapshot 2026-06-01T12-00-00Z; cron links: 1 job(s) had skill links restored".into(),
            }
        );
        assert_eq!(names(&skills), [".curator_backups", ".hub", "a-skill"]);
        assert_eq!(
            std::fs::read_to_string(skills.join("a-skill/SKILL.md")).expect("read"),
            "v1"
        );
        assert_eq!(
            std::fs::read_to_string(skills.join(".hub/x")).expect("read"),
            "hub"
        );
        assert!(!dir.path().join(".skills_prompt_snapshot.json").exists());
        assert_eq!(
            crate::curator::cron::referenced_skill_names(&home).expect("jobs"),
            std::collections::BTreeSet::from(["a-skill".to_string()])
        );
        let backups = home.curator_backups_dir();
        assert_eq!(
            names(&backups),
            ["2026-06-01T12-00-00Z", "2026-06-02T08-30-00Z"]
        );
        let safety = backups.join("2026-06-02T08-30-00Z");
        assert_eq!(
            members(&safety.join("skills.tar.gz")),
            [
                "d a-skill",
                "f a-skill/SKILL.md = v2",
                "d new-skill",
                "f new-skill/SKILL.md = new"
            ]
        );
        assert_eq!(
            read_manifest(&safety)["reason"],
            "pre-rollback to 2026-06-01T12-00-00Z"
        );
        assert_eq!(first.id, "2026-06-01T12-00-00Z");
    }

    /// With `keep` 1 the safety snapshot and the target survive; the others go.
    #[test]
    fn the_rollback_target_is_protected_from_retention() {
        let (_dir, home) = home_with(&[("a/SKILL.md", "a")]);
        for t in [
            "2026-06-01T00:00:00Z",
            "2026-06-02T00:00:00Z",
            "2026-06-03T00:00:00Z",
        ] {
            snapshot(&home, "manual", 5, &[], ts(t)).expect("snapshot");
        }
        let done = rollback(
            &home,
            Some("2026-06-01T00-00-00Z"),
            1,
            ts("2026-06-04T00:00:00Z"),
        )
        .expect("rollback");
        assert_eq!(done.message, "restored from snapshot 2026-06-01T00-00-00Z");
        assert_eq!(
            names(&home.curator_backups_dir()),
            ["2026-06-01T00-00-00Z", "2026-06-04T00-00-00Z"]
        );
    }

    #[test]
    fn rollback_refuses_a_missing_or_unsafe_snapshot_before_touching_anything() {
        let (_dir, home) = home_with(&[("keep/SKILL.md", "mine")]);
        let now = ts("2026-06-04T00:00:00Z");
        assert_eq!(rollback(&home, None, 5, now), Err(no_match_message(None)));
        assert_eq!(
            rollback(&home, Some("nope"), 5, now),
            Err(no_match_message(Some("nope")))
        );
        let backups = home.curator_backups_dir();
        crafted(
            &backups.join("2026-06-01T00-00-00Z/skills.tar.gz"),
            &[("../evil", tar::EntryType::Regular, "x")],
        );
        assert_eq!(
            rollback(&home, None, 5, now),
            Err("snapshot 2026-06-01T00-00-00Z cannot be restored: refusing to extract unsafe path: \"../evil\"".into())
        );
        assert_eq!(names(&backups), ["2026-06-01T00-00-00Z"]);
        assert_eq!(names(&home.skills_dir()), [".curator_backups", "keep"]);
    }

    /// A member that cannot be written (a file under a name the snapshot made a file)
    /// stops the extraction: what was extracted goes, what was there comes back.
    #[test]
    fn a_failed_extraction_puts_the_tree_back() {
        use tar::EntryType as T;
        let (_dir, home) = home_with(&[("keep/SKILL.md", "mine")]);
        let skills = home.skills_dir();
        std::os::unix::fs::symlink("keep", skills.join("alias")).expect("symlink");
        let backups = home.curator_backups_dir();
        crafted(
            &backups.join("2026-06-01T00-00-00Z/skills.tar.gz"),
            &[
                ("newdir", T::Directory, ""),
                ("newdir/x", T::Regular, "x"),
                ("newlink", T::Symlink, "newdir"),
                ("newfile", T::Regular, "f"),
                ("newfile/b", T::Regular, "b"),
            ],
        );
        let err = rollback(&home, None, 5, ts("2026-06-04T00:00:00Z")).expect_err("fails");
        assert_eq!(
            err,
            format!(
                "snapshot extract failed (state restored): failed to unpack `{}`",
                skills.join("newfile/b").display()
            )
        );
        assert_eq!(names(&skills), [".curator_backups", "alias", "keep"]);
        assert_eq!(
            std::fs::read_to_string(skills.join("alias/SKILL.md")).expect("read"),
            "mine"
        );
        assert_eq!(
            names(&backups),
            ["2026-06-01T00-00-00Z", "2026-06-04T00-00-00Z"]
        );
    }

    /// The staging folder's name counts up from `-01` past names already taken (here by
    /// files, which retention leaves alone; `-00`, a dangling link, could not be created).
    #[test]
    fn staging_names_count_up_from_one() {
        let (_dir, home) = home_with(&[("a/SKILL.md", "a")]);
        snapshot(&home, "manual", 5, &[], ts("2026-06-01T00:00:00Z")).expect("snapshot");
        let backups = home.curator_backups_dir();
        write(&backups.join(".rollback-staging-2026-06-04T00-00-00Z"), "");
        write(
            &backups.join(".rollback-staging-2026-06-04T00-00-00Z-01"),
            "",
        );
        std::os::unix::fs::symlink(
            "nowhere/at/all",
            backups.join(".rollback-staging-2026-06-04T00-00-00Z-00"),
        )
        .expect("symlink");
        let done = rollback(&home, None, 5, ts("2026-06-04T00:00:00Z")).expect("rollback");
        assert_eq!(done.message, "restored from snapshot 2026-06-01T00-00-00Z");
        assert_eq!(
            names(&backups),
            [
                ".rollback-staging-2026-06-04T00-00-00Z",
                ".rollback-staging-2026-06-04T00-00-00Z-00",
                ".rollback-staging-2026-06-04T00-00-00Z-01",
                "2026-06-01T00-00-00Z",
                "2026-06-04T00-00-00Z"
            ]
        );
    }

    /// A snapshot whose cron file names no job with an id says nothing about cron links.
    #[test]
    fn rollback_without_cron_links_to_restore_says_only_restored() {
        let (_dir, home) = home_with(&[("a/SKILL.md", "a")]);
        write(&home.cron_jobs(), "{\"jobs\": [{\"name\": \"no id\"}]}");
        snapshot(&home, "manual", 5, &[], ts("2026-06-01T00:00:00Z")).expect("snapshot");
        let done = rollback(&home, None, 5, ts("2026-06-04T00:00:00Z")).expect("rollback");
        assert_eq!(done.message, "restored from snapshot 2026-06-01T00-00-00Z");
    }
}
