//! `skill_view`: resolve a name to exactly one skill and serve its SKILL.md (with what the
//! agent needs to use it) or one of its files, with Hermes's result objects key for key.
//!
//! Resolution collects every candidate from every root — a directory at the given relative
//! path, any skill whose directory or frontmatter name matches, legacy `<name>.md` files —
//! and refuses to guess when there is more than one, listing every candidate path. Names
//! that are absolute, carry a drive letter or a `..` component are refused before any path
//! is built from them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value as Json, json};
use walkdir::WalkDir;

use super::catalog::Catalog;
use super::discover::{SKILL_FILE, is_support_path};
use super::frontmatter;
use super::library::Library;
use super::list::{listing, visible_sorted};
use super::setup;
use crate::home::resolve_lenient;
use crate::pytext::{self, read_utf8};
use crate::yaml::{Mapping, Value};

static NAMESPACE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9_-]+$").expect("static regex"));

const LOOKUP_HINT: &str = "Use a skill name or relative path within the skills directory.";
const FILE_HINT: &str = "Use a relative path within the skill directory";

/// A `skill_view` answer and what the caller needs for telemetry and read marks.
#[derive(Debug, Clone, PartialEq)]
pub struct Viewed {
    /// The tool's result object.
    pub result: Json,
    /// The name usage counters are bumped under (success only).
    pub bump_name: Option<String>,
    /// The file whose content was returned (for the review's read-before-write guard).
    pub read_path: Option<PathBuf>,
}

impl Viewed {
    fn failure(result: Json) -> Viewed {
        Viewed {
            result,
            bump_name: None,
            read_path: None,
        }
    }

    pub fn success(&self) -> bool {
        self.result.get("success") == Some(&Json::Bool(true))
    }
}

/// `_skill_lookup_path_error`: why a name may not be joined onto a root, if it may not.
pub fn lookup_path_error(name: &str) -> Option<&'static str> {
    let candidate = pytext::strip(name);
    if candidate.contains('\0') {
        return Some("Skill name must be a relative path within the skills directory.");
    }
    if candidate.starts_with('/') || has_windows_drive(candidate) {
        return Some("Skill name must be a relative path within the skills directory.");
    }
    if has_traversal(candidate) {
        return Some("Skill name cannot contain '..' path traversal components.");
    }
    None
}

/// `PureWindowsPath(p).drive` is non-empty: `X:` or a UNC `\\server\share` prefix.
fn has_windows_drive(p: &str) -> bool {
    let mut chars = p.chars();
    if chars.next().is_some() && chars.next() == Some(':') {
        return true;
    }
    let norm = p.replace('/', "\\");
    if let Some(rest) = norm.strip_prefix("\\\\")
        && !rest.starts_with('\\')
        && let Some(sep) = rest.find('\\')
    {
        let after = &rest[sep + 1..];
        return !after.is_empty() && !after.starts_with('\\');
    }
    false
}

/// `has_traversal_component`: a `..` among the POSIX path components.
pub fn has_traversal(p: &str) -> bool {
    p.split('/').any(|part| part == "..")
}

/// Joins a relative name onto a directory component by component, as pathlib does (empty
/// and `.` parts vanish, a trailing slash is dropped).
fn join_rel(dir: &Path, rel: &str) -> PathBuf {
    let mut out = dir.to_path_buf();
    for part in rel.split('/') {
        if !part.is_empty() && part != "." {
            out.push(part);
        }
    }
    out
}

/// `Path.with_suffix(".md")`: replaces the final component's suffix, or appends one.
fn with_md_suffix(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[..i],
        _ => name.as_str(),
    };
    path.with_file_name(format!("{stem}.md"))
}

/// `Path.suffix`.
fn suffix(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => name[i..].to_string(),
        _ => String::new(),
    }
}

fn rel_string(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// A resolution candidate: the skill directory (none for a legacy flat `.md`) and its file.
type Candidate = (Option<PathBuf>, PathBuf);

/// Candidates in discovery order, deduplicated by resolved `SKILL.md` path.
#[derive(Default)]
struct Collector {
    found: Vec<Candidate>,
    seen: HashSet<PathBuf>,
}

impl Collector {
    fn record(&mut self, dir: Option<PathBuf>, md: PathBuf) {
        if self.seen.insert(resolve_lenient(&md)) {
            self.found.push((dir, md));
        }
    }

    /// A skill directory at `root/rel`, else a legacy `root/rel.md`.
    fn direct(&mut self, root: &Path, rel: &str) {
        let path = join_rel(root, rel);
        if !is_support_path(&path) && path.is_dir() && path.join(SKILL_FILE).exists() {
            self.record(Some(path.clone()), path.join(SKILL_FILE));
        } else {
            let flat = with_md_suffix(&path);
            if flat.exists() && !is_support_path(&flat) {
                self.record(None, flat);
            }
        }
    }
}

/// Every skill `name` could mean, deduplicated by resolved path, in discovery order.
pub fn candidates(
    lib: &Library,
    catalog: &Catalog,
    name: &str,
    category_form: Option<&str>,
) -> Vec<Candidate> {
    let mut c = Collector::default();
    for (kind, root) in lib.roots.searched() {
        c.direct(root, name);
        if let Some(form) = category_form {
            c.direct(root, form);
        }
        for file in catalog.files.iter().filter(|f| f.root == kind) {
            let dir = file.dir().to_path_buf();
            if file.dir_name() == name {
                c.record(Some(dir), file.skill_md.clone());
                continue;
            }
            let matches = read_utf8(&file.skill_md).ok().is_some_and(|text| {
                could_name(&text, name) && frontmatter::parse(&text).name() == Some(name)
            });
            if matches {
                c.record(Some(dir), file.skill_md.clone());
            }
        }
        for legacy in legacy_files(root, name) {
            c.record(None, legacy);
        }
    }
    c.found
}

/// Whether a file's frontmatter could give it the name `name`: a YAML scalar equal to a
/// name without spaces or quotes appears literally in the text unless it is spelled with
/// escapes. Skips parsing nearly every file when resolving a name.
fn could_name(text: &str, name: &str) -> bool {
    name.contains([' ', '\'', '"']) || text.contains(name) || text.contains('\\')
}

/// `root.rglob(f"{name}.md")` without glob syntax: every entry whose path ends with the
/// components of `<name>.md`, not `SKILL.md`, not in a support folder.
fn legacy_files(root: &Path, name: &str) -> Vec<PathBuf> {
    let target: Vec<String> = format!("{name}.md")
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .map(String::from)
        .collect();
    let Some(last) = target.last().cloned() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in WalkDir::new(root)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if entry.file_name().to_string_lossy() != last.as_str() || last == SKILL_FILE {
            continue;
        }
        let parts: Vec<String> = entry
            .path()
            .strip_prefix(root)
            .map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if parts.len() >= target.len()
            && parts[parts.len() - target.len()..] == target[..]
            && !is_support_path(entry.path())
        {
            out.push(entry.into_path());
        }
    }
    out
}

/// `skill_view(name, file_path)` with Hermes's answers.
pub fn skill_view(lib: &Library, catalog: &Catalog, name: &str, file_path: Option<&str>) -> Viewed {
    if let Some(error) = lookup_path_error(name) {
        return Viewed::failure(json!({"success": false, "error": error, "hint": LOOKUP_HINT}));
    }
    let mut category_form: Option<String> = None;
    if let Some((namespace, bare)) = name.split_once(':') {
        if !NAMESPACE.is_match(namespace) {
            return Viewed::failure(json!({
                "success": false,
                "error": format!("Invalid namespace '{namespace}' in '{name}'. Namespaces must match [a-zA-Z0-9_-]+."),
            }));
        }
        // No plugins here: `category:skill` falls through to the on-disk `category/skill`.
        if !bare.is_empty() {
            let form = format!("{namespace}/{bare}");
            if let Some(error) = lookup_path_error(&form) {
                return Viewed::failure(
                    json!({"success": false, "error": error, "hint": LOOKUP_HINT}),
                );
            }
            category_form = Some(form);
        }
    }
    if lib.roots.searched().is_empty() {
        return Viewed::failure(json!({
            "success": false,
            "error": "Skills directory does not exist yet. It will be created on first install.",
        }));
    }
    let found = candidates(lib, catalog, name, category_form.as_deref());
    if found.len() > 1 {
        let paths: Vec<String> = found
            .iter()
            .map(|(_, md)| md.display().to_string())
            .collect();
        return Viewed::failure(json!({
            "success": false,
            "error": format!(
                "Ambiguous skill name '{name}': {} skills match across your local skills dir and external_dirs. Refusing to guess — load one explicitly by its categorized path.",
                found.len()
            ),
            "matches": paths,
            "hint": "Pass the full relative path instead of the bare name (e.g., 'category/skill-name'), or rename one of the colliding skills so each name is unique.",
        }));
    }
    let Some((skill_dir, skill_md)) = found.into_iter().next().filter(|(_, md)| md.exists()) else {
        let rows = listing(catalog, &lib.roots, &lib.runtime, &lib.disabled());
        let available: Vec<&str> = visible_sorted(&rows)
            .into_iter()
            .take(20)
            .map(|r| r.name.as_str())
            .collect();
        return Viewed::failure(json!({
            "success": false,
            "error": format!("Skill '{name}' not found."),
            "available_skills": available,
            "hint": "Use skills_list to see all available skills",
        }));
    };
    let content = match read_utf8(&skill_md) {
        Ok(text) => text,
        Err(e) => {
            return Viewed::failure(json!({
                "success": false,
                "error": format!("Failed to read skill '{name}': {e}"),
            }));
        }
    };
    let parsed = frontmatter::parse(&content);
    let fields = parsed.fields.clone();
    if !lib.runtime.matches_platforms(fields.get("platforms")) {
        return Viewed::failure(json!({
            "success": false,
            "error": format!("Skill '{name}' is not supported on this platform."),
            "readiness_status": "unsupported",
        }));
    }
    let parent_name = skill_md
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let resolved_name = match fields.get("name") {
        Some(v) => v.clone(),
        None => Value::Str(parent_name),
    };
    if let Value::Str(n) = &resolved_name
        && lib.disabled().contains(n)
    {
        return Viewed::failure(json!({
            "success": false,
            "error": format!("Skill '{n}' is disabled. Enable it with `hermes skills` or inspect the files directly on disk."),
        }));
    }
    if let (Some(fp), Some(dir)) = (file_path.filter(|f| !f.is_empty()), skill_dir.as_deref()) {
        return view_file(dir, name, fp);
    }
    main_view(
        lib,
        name,
        &content,
        &fields,
        skill_dir.as_deref(),
        &skill_md,
    )
}

/// `skill_view(name, file_path)` for a file inside the skill directory.
fn view_file(dir: &Path, name: &str, file_path: &str) -> Viewed {
    if has_traversal(file_path) {
        return Viewed::failure(json!({
            "success": false,
            "error": "Path traversal ('..') is not allowed.",
            "hint": FILE_HINT,
        }));
    }
    let target = if Path::new(file_path).is_absolute() {
        PathBuf::from(file_path)
    } else {
        join_rel(dir, file_path)
    };
    if let Err(error) = within_dir(&target, dir) {
        return Viewed::failure(json!({"success": false, "error": error, "hint": FILE_HINT}));
    }
    if !target.exists() {
        return Viewed::failure(json!({
            "success": false,
            "error": format!("File '{file_path}' not found in skill '{name}'."),
            "available_files": available_files(dir),
            "hint": "Use one of the available file paths listed above",
        }));
    }
    match std::fs::read(&target) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(content) => Viewed {
                result: json!({
                    "success": true,
                    "name": name,
                    "file": file_path,
                    "content": content,
                    "file_type": suffix(&target),
                }),
                bump_name: Some(name.to_string()),
                read_path: Some(target),
            },
            Err(e) => Viewed {
                result: json!({
                    "success": true,
                    "name": name,
                    "file": file_path,
                    "content": format!(
                        "[Binary file: {}, size: {} bytes]",
                        target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                        e.as_bytes().len()
                    ),
                    "is_binary": true,
                }),
                bump_name: Some(name.to_string()),
                read_path: None,
            },
        },
        Err(e) => {
            Viewed::failure(json!({"error": pytext::os_error(&e, &target), "success": false}))
        }
    }
}

/// `validate_within_dir`: both resolved; the target must lie inside the directory.
pub fn within_dir(target: &Path, dir: &Path) -> Result<(), String> {
    let resolved = resolve_lenient(target);
    let root = resolve_lenient(dir);
    if resolved.starts_with(&root) {
        Ok(())
    } else {
        Err(format!(
            "Path escapes allowed directory: '{}' is not in the subpath of '{}' OR one path is relative and the other is absolute.",
            resolved.display(),
            root.display()
        ))
    }
}

/// The files of a skill grouped for a "not found" answer.
fn available_files(dir: &Path) -> Json {
    let mut groups: Vec<(&str, Vec<String>)> =
        ["references", "templates", "assets", "scripts", "other"]
            .iter()
            .map(|g| (*g, Vec::new()))
            .collect();
    for entry in WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if !entry.path().is_file() || entry.file_name() == SKILL_FILE {
            continue;
        }
        let rel = rel_string(entry.path(), dir);
        let group = ["references", "templates", "assets", "scripts"]
            .iter()
            .position(|g| rel.starts_with(&format!("{g}/")));
        match group {
            Some(i) => groups[i].1.push(rel),
            None => {
                let ext = suffix(entry.path());
                if [".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"].contains(&ext.as_str()) {
                    groups[4].1.push(rel);
                }
            }
        }
    }
    let mut out = Map::new();
    for (group, files) in groups {
        if !files.is_empty() {
            out.insert(group.into(), json!(files));
        }
    }
    Json::Object(out)
}

/// Entries directly in `dir` (or anywhere below, with `recursive`) whose name ends with
/// `ext` (`""` for any file), sorted.
fn glob(dir: &Path, ext: &str, recursive: bool, files_only: bool) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let walker = WalkDir::new(dir).min_depth(1).sort_by_file_name();
    let walker = if recursive {
        walker
    } else {
        walker.max_depth(1)
    };
    walker
        .into_iter()
        .flatten()
        .filter(|e| {
            e.file_name().to_string_lossy().ends_with(ext) && (!files_only || e.path().is_file())
        })
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// `linked_files`: references (`*.md`), templates (recursive, by extension), assets (every
/// file), scripts (by extension); only the groups that have files.
fn linked_files(dir: &Path) -> Option<Map<String, Json>> {
    let rel =
        |paths: Vec<PathBuf>| -> Vec<String> { paths.iter().map(|p| rel_string(p, dir)).collect() };
    let mut out = Map::new();
    let references = rel(glob(&dir.join("references"), ".md", false, false));
    let templates: Vec<String> = [".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"]
        .iter()
        .flat_map(|ext| rel(glob(&dir.join("templates"), ext, true, false)))
        .collect();
    let assets = rel(glob(&dir.join("assets"), "", true, true));
    let scripts: Vec<String> = [".py", ".sh", ".bash", ".js", ".ts", ".rb"]
        .iter()
        .flat_map(|ext| rel(glob(&dir.join("scripts"), ext, false, false)))
        .collect();
    for (key, files) in [
        ("references", references),
        ("templates", templates),
        ("assets", assets),
        ("scripts", scripts),
    ] {
        if !files.is_empty() {
            out.insert(key.into(), json!(files));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `_parse_tags`: a list, `[a, b]` text or `a, b` text.
fn parse_tags(value: Option<&Value>) -> Vec<String> {
    let Some(value) = value.filter(|v| v.is_truthy()) else {
        return Vec::new();
    };
    if let Value::Seq(items) = value {
        return items
            .iter()
            .filter(|t| t.is_truthy())
            .map(|t| pytext::strip(&t.py_str()).to_string())
            .collect();
    }
    let text = value.py_str();
    let mut text = pytext::strip(&text);
    if text.starts_with('[') && text.ends_with(']') && text.len() >= 2 {
        text = &text[1..text.len() - 1];
    }
    text.split(',')
        .filter(|t| !pytext::strip(t).is_empty())
        .map(|t| pytext::strip(t).trim_matches(['"', '\'']).to_string())
        .collect()
}

/// The main `skill_view` answer for a SKILL.md.
fn main_view(
    lib: &Library,
    name: &str,
    content: &str,
    fields: &Mapping,
    skill_dir: Option<&Path>,
    skill_md: &Path,
) -> Viewed {
    let linked = skill_dir.and_then(linked_files);
    let metadata = fields.get("metadata");
    let hermes_meta = metadata
        .and_then(Value::as_map)
        .and_then(|m| m.get("hermes"))
        .and_then(Value::as_map);
    let pick = |key: &str| {
        hermes_meta
            .and_then(|h| h.get(key))
            .filter(|v| v.is_truthy())
            .or_else(|| fields.get(key))
    };
    let tags = parse_tags(pick("tags"));
    let related = parse_tags(pick("related_skills"));
    let rel_path = match skill_md.strip_prefix(&lib.roots.local) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => match skill_md.parent().and_then(Path::parent) {
            Some(grand) => rel_string(skill_md, grand),
            None => skill_md.display().to_string(),
        },
    };
    let skill_name = match fields.get("name") {
        Some(v) => v.to_json(),
        None => {
            let fallback = match skill_dir {
                Some(dir) => dir.file_name(),
                None => skill_md.file_stem(),
            };
            Json::String(
                fallback
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            )
        }
    };
    let required = setup::required_env_vars(fields);
    let env = setup::load_env(&lib.home);
    let missing: Vec<String> = required
        .iter()
        .filter(|e| e.get("optional") != Some(&Json::Bool(true)))
        .filter_map(|e| e.get("name").and_then(Json::as_str))
        .filter(|n| !setup::is_persisted(n, &env))
        .map(String::from)
        .collect();
    let gateway_hint = (!missing.is_empty() && lib.runtime.gateway && !lib.runtime.interactive)
        .then_some(setup::GATEWAY_SETUP_HINT);
    let mut setup_needed = !missing.is_empty();
    let missing_files = match fields.get("required_credential_files") {
        Some(v @ Value::Seq(_)) => setup::missing_credential_files(&lib.home, v),
        _ => Vec::new(),
    };
    if !missing_files.is_empty() {
        setup_needed = true;
    }
    let rendered = if lib.config.skills.template_vars {
        match skill_dir {
            Some(dir) => content.replace("${HERMES_SKILL_DIR}", &dir.display().to_string()),
            None => content.to_string(),
        }
    } else {
        content.to_string()
    };
    let mut result = Map::new();
    result.insert("success".into(), Json::Bool(true));
    result.insert("name".into(), skill_name.clone());
    result.insert(
        "description".into(),
        fields
            .get("description")
            .map_or(Json::String(String::new()), Value::to_json),
    );
    result.insert("tags".into(), json!(tags));
    result.insert("related_skills".into(), json!(related));
    result.insert("content".into(), Json::String(rendered));
    result.insert("path".into(), Json::String(rel_path));
    result.insert(
        "skill_dir".into(),
        skill_dir.map_or(Json::Null, |d| Json::String(d.display().to_string())),
    );
    result.insert(
        "linked_files".into(),
        linked.clone().map_or(Json::Null, Json::Object),
    );
    result.insert(
        "usage_hint".into(),
        if linked.is_some() {
            Json::String("To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'".into())
        } else {
            Json::Null
        },
    );
    result.insert(
        "required_environment_variables".into(),
        Json::Array(required.iter().cloned().map(Json::Object).collect()),
    );
    result.insert("required_commands".into(), json!([]));
    result.insert(
        "missing_required_environment_variables".into(),
        json!(missing),
    );
    result.insert("missing_credential_files".into(), json!(missing_files));
    result.insert("missing_required_commands".into(), json!([]));
    result.insert("setup_needed".into(), Json::Bool(setup_needed));
    result.insert("setup_skipped".into(), Json::Bool(false));
    result.insert(
        "readiness_status".into(),
        Json::String(
            if setup_needed {
                "setup_needed"
            } else {
                "available"
            }
            .into(),
        ),
    );
    let setup_help = required
        .iter()
        .find_map(|e| e.get("help").and_then(Json::as_str))
        .map(String::from);
    if let Some(help) = &setup_help {
        result.insert("setup_help".into(), Json::String(help.clone()));
    }
    if let Some(hint) = gateway_hint {
        result.insert("gateway_setup_hint".into(), Json::String(hint.into()));
    }
    if setup_needed {
        let items: Vec<String> = missing
            .iter()
            .map(|n| format!("env ${n}"))
            .chain(missing_files.iter().map(|f| format!("file {f}")))
            .collect();
        let listed = if items.is_empty() {
            "required prerequisites".to_string()
        } else {
            items.join(", ")
        };
        let mut note = format!("Setup needed before using this skill: missing {listed}.");
        if let Some(help) = &setup_help {
            note = format!("{note} {help}");
        }
        let backend = lib.runtime.terminal_env.as_str();
        if setup::REMOTE_BACKENDS.contains(&backend) {
            note = format!(
                "{note} {}-backed skills need these requirements available inside the remote environment as well.",
                backend.to_uppercase()
            );
        }
        result.insert("setup_note".into(), Json::String(note));
    }
    if let Some(compat) = fields.get("compatibility").filter(|v| v.is_truthy()) {
        result.insert("compatibility".into(), compat.to_json());
    }
    if let Some(meta @ Value::Map(_)) = metadata {
        result.insert("metadata".into(), meta.to_json());
    }
    let bump_name = match &skill_name {
        Json::String(s) if !s.is_empty() => s.clone(),
        Json::Bool(true) => "True".into(),
        Json::Number(n) if n.as_f64() != Some(0.0) => n.to_string(),
        _ => name.to_string(),
    };
    Viewed {
        result: Json::Object(result),
        bump_name: Some(bump_name),
        read_path: Some(skill_md.to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_errors() {
        let abs = Some("Skill name must be a relative path within the skills directory.");
        assert_eq!(lookup_path_error("/etc"), abs);
        assert_eq!(lookup_path_error(" /etc"), abs);
        assert_eq!(lookup_path_error("C:\\skills"), abs);
        assert_eq!(lookup_path_error("c:foo"), abs);
        assert_eq!(lookup_path_error("\\\\server\\share\\x"), abs);
        assert_eq!(lookup_path_error("a\0b"), abs);
        assert_eq!(
            lookup_path_error("a/../b"),
            Some("Skill name cannot contain '..' path traversal components.")
        );
        assert_eq!(lookup_path_error("cat/skill"), None);
        assert_eq!(lookup_path_error("plugin:skill"), None);
        assert_eq!(lookup_path_error("..x"), None);
    }

    #[test]
    fn suffixes_like_pathlib() {
        assert_eq!(
            with_md_suffix(Path::new("/r/a.b")),
            PathBuf::from("/r/a.md")
        );
        assert_eq!(with_md_suffix(Path::new("/r/a")), PathBuf::from("/r/a.md"));
        assert_eq!(suffix(Path::new("x/.hidden")), "");
        assert_eq!(suffix(Path::new("x/a.tar.gz")), ".gz");
        assert_eq!(suffix(Path::new("x/a.")), "");
    }

    #[test]
    fn tags_in_three_shapes() {
        let list = Value::Seq(vec![Value::Str(" A ".into()), Value::Null, Value::Int(3)]);
        assert_eq!(parse_tags(Some(&list)), vec!["A", "3"]);
        assert_eq!(
            parse_tags(Some(&Value::Str("[x, 'y']".into()))),
            vec!["x", "y"]
        );
        assert_eq!(
            parse_tags(Some(&Value::Str("a,, b".into()))),
            vec!["a", "b"]
        );
        assert!(parse_tags(None).is_empty());
    }
}
