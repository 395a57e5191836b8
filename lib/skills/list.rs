//! What `skills_list` shows, and why a skill it does not show is hidden.
//!
//! Hermes's `_find_all_skills` silently drops a skill that is not UTF-8, whose frontmatter
//! name or description is not text, that is for another platform or environment, that is
//! disabled, or whose name an earlier skill already took. [`listing`] applies the same rules
//! in the same order and keeps every dropped skill with the reason, so `list --all` can say
//! why a skill never loads instead of leaving the user to guess.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;
use serde_json::{Value as Json, json};

use super::catalog::{Catalog, SkillFile};
use super::discover::category_of;
use super::frontmatter::{self, Status};
use super::limits::{LIST_DESCRIPTION_CHARS, LIST_PREFIX_CHARS, MAX_NAME_CHARS};
use super::roots::{RootKind, Roots};
use super::runtime::Runtime;
use crate::pytext::{self, read_utf8};
use crate::yaml::Value;

/// Why `skills_list` does not show a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hidden {
    /// The file cannot be read as UTF-8 text.
    Unreadable(String),
    /// The frontmatter `name` or `description` is not text (Hermes fails on it and skips).
    Invalid(String),
    /// `platforms` names other operating systems.
    Platform(String),
    /// `environments` names runtime environments that are not active.
    Environment(String),
    /// The name is in `skills.disabled`, or in the platform's `platform_disabled` list (the
    /// config key is carried).
    Disabled(String),
    /// An earlier skill (by root precedence and path order) has the same name.
    Shadowed(PathBuf),
}

impl Hidden {
    /// A stable code for scripts: `unreadable`, `invalid`, `platform`, `environment`,
    /// `disabled`, `shadowed`.
    pub fn code(&self) -> &'static str {
        match self {
            Hidden::Unreadable(_) => "unreadable",
            Hidden::Invalid(_) => "invalid",
            Hidden::Platform(_) => "platform",
            Hidden::Environment(_) => "environment",
            Hidden::Disabled(_) => "disabled",
            Hidden::Shadowed(_) => "shadowed",
        }
    }

    /// A sentence for people.
    pub fn reason(&self) -> String {
        match self {
            Hidden::Unreadable(e) => format!("cannot be read as UTF-8 text: {e}"),
            Hidden::Invalid(e) => format!("invalid frontmatter: {e}"),
            Hidden::Platform(p) => format!("platforms {p} does not include this system"),
            Hidden::Environment(e) => {
                format!("environments {e} names no active environment")
            }
            Hidden::Disabled(key) => format!("disabled in config.yaml ({key})"),
            Hidden::Shadowed(by) => format!("shadowed by {}", by.display()),
        }
    }
}

/// One `SKILL.md` as `skills_list` sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// Index into [`Catalog::files`].
    pub file: usize,
    /// The listed name: frontmatter `name` (first 64 characters) or the directory name.
    pub name: String,
    /// Frontmatter `description`, else the first body line that is not a heading; cut to
    /// 1024 characters. Usually text; a YAML list or mapping is passed through as Hermes does.
    pub description: Json,
    /// The first folder below the root for `cat/skill/SKILL.md`, else none.
    pub category: Option<String>,
    pub hidden: Option<Hidden>,
    /// For a shown skill that Hermes reads differently from how it looks: why.
    pub note: Option<String>,
}

impl Listed {
    pub fn visible(&self) -> bool {
        self.hidden.is_none()
    }

    /// The description as text (a YAML list or mapping in its JSON form).
    pub fn description_text(&self) -> String {
        match &self.description {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

/// What one file says before precedence and the disabled set are applied.
struct Facts {
    name: Result<String, Hidden>,
    description: Result<Json, Hidden>,
    filter: Option<Hidden>,
    note: Option<String>,
}

/// Every skill in the catalog, with the reason for each hidden one, in catalog order.
pub fn listing(
    catalog: &Catalog,
    roots: &Roots,
    runtime: &Runtime,
    disabled: &BTreeSet<String>,
) -> Vec<Listed> {
    listing_explained(catalog, roots, runtime, disabled, disabled)
}

/// [`listing`], naming the config key that disables a skill: names in `globally` are in
/// `skills.disabled`, the others of `disabled` in `skills.platform_disabled.<platform>`.
pub fn listing_explained(
    catalog: &Catalog,
    roots: &Roots,
    runtime: &Runtime,
    disabled: &BTreeSet<String>,
    globally: &BTreeSet<String>,
) -> Vec<Listed> {
    let facts: Vec<Facts> = catalog
        .files
        .par_iter()
        .map(|file| facts_of(file, runtime))
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut winner: std::collections::HashMap<String, PathBuf> = Default::default();
    let mut out = Vec::with_capacity(facts.len());
    for (index, (file, facts)) in catalog.files.iter().zip(facts).enumerate() {
        let category = list_category(roots, file);
        let display_name = facts.name.clone().unwrap_or_else(|_| file.dir_name());
        let mut row = Listed {
            file: index,
            name: display_name,
            description: Json::String(String::new()),
            category,
            hidden: None,
            note: facts.note.clone(),
        };
        let hidden = (|| {
            if let Some(h) = facts.filter {
                return Some(h);
            }
            let name = match facts.name {
                Ok(n) => n,
                Err(h) => return Some(h),
            };
            if seen.contains(&name) {
                let by = winner.get(&name).cloned().unwrap_or_default();
                return Some(Hidden::Shadowed(by));
            }
            if disabled.contains(&name) {
                let key = match (&runtime.platform_hint, globally.contains(&name)) {
                    (Some(platform), false) => format!("skills.platform_disabled.{platform}"),
                    _ => "skills.disabled".to_string(),
                };
                return Some(Hidden::Disabled(key));
            }
            match facts.description {
                Ok(d) => row.description = d,
                Err(h) => return Some(h),
            }
            seen.insert(name.clone());
            winner.insert(name, file.skill_md.clone());
            None
        })();
        row.hidden = hidden;
        out.push(row);
    }
    out
}

/// The visible skills sorted as `skills_list` sorts them: by (category or "", name).
pub fn visible_sorted(rows: &[Listed]) -> Vec<&Listed> {
    let mut visible: Vec<&Listed> = rows.iter().filter(|r| r.visible()).collect();
    visible.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
    visible
}

/// The sort key Hermes uses: `(category or "", name)`.
pub fn sort_key(row: &Listed) -> (&str, &str) {
    (row.category.as_deref().unwrap_or(""), row.name.as_str())
}

/// `_get_category_from_path`: relative to the local root, then each external root.
fn list_category(roots: &Roots, file: &SkillFile) -> Option<String> {
    let root = match roots.containing(&file.skill_md)? {
        RootKind::Local => roots.local.as_path(),
        RootKind::External(i) => roots.external[i].as_path(),
    };
    category_of(root, &file.skill_md)
}

fn facts_of(file: &SkillFile, runtime: &Runtime) -> Facts {
    let text = match read_utf8(&file.skill_md) {
        Ok(t) => t,
        Err(e) => {
            return Facts {
                name: Err(Hidden::Unreadable(e.clone())),
                description: Err(Hidden::Unreadable(e.clone())),
                filter: Some(Hidden::Unreadable(e)),
                note: None,
            };
        }
    };
    let prefix = pytext::take_chars(&text, LIST_PREFIX_CHARS);
    let parsed = frontmatter::parse(prefix);
    let fields = &parsed.fields;
    let filter = if !runtime.matches_platforms(fields.get("platforms")) {
        Some(Hidden::Platform(
            fields
                .get("platforms")
                .map(Value::py_str)
                .unwrap_or_default(),
        ))
    } else if !runtime.matches_environments(fields.get("environments")) {
        Some(Hidden::Environment(
            fields
                .get("environments")
                .map(Value::py_str)
                .unwrap_or_default(),
        ))
    } else {
        None
    };
    let name = match fields.get("name") {
        None => Ok(pytext::take_chars(&file.dir_name(), MAX_NAME_CHARS).to_string()),
        Some(Value::Str(s)) => Ok(pytext::take_chars(s, MAX_NAME_CHARS).to_string()),
        Some(other) => Err(Hidden::Invalid(format!(
            "name is {} ({}), not text",
            article(other.py_type_name()),
            other.py_repr()
        ))),
    };
    let description = list_description(fields.get("description"), parsed.body);
    let note = match &parsed.status {
        Status::Invalid(err) => Some(format!(
            "frontmatter is not valid YAML ({}); Hermes reads its `key: value` lines one by one",
            err.problem
        )),
        Status::NotMapping(kind) => Some(format!(
            "frontmatter is a {kind}, not a mapping; Hermes reads no fields from it"
        )),
        Status::Unclosed if frontmatter::fences(&text).is_some() => Some(format!(
            "frontmatter runs past the first {LIST_PREFIX_CHARS} characters, the part Hermes lists from; it is listed under its folder name with no description from it"
        )),
        _ => None,
    };
    Facts {
        name,
        description,
        filter,
        note,
    }
}

fn article(type_name: &str) -> String {
    match type_name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {type_name}"),
        _ => format!("a {type_name}"),
    }
}

/// `skills_list`'s description: the frontmatter value when truthy, else the first body line
/// that is neither blank nor a heading; over 1024 characters cut to 1021 + `...`.
fn list_description(value: Option<&Value>, body: &str) -> Result<Json, Hidden> {
    match value.filter(|v| v.is_truthy()) {
        None => {
            let line = pytext::strip(body)
                .split('\n')
                .map(pytext::strip)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
                .unwrap_or("");
            Ok(Json::String(cut_description(line)))
        }
        Some(Value::Str(s)) => Ok(Json::String(cut_description(s))),
        // `len()` works on lists and mappings, so Hermes lists them as they are.
        Some(v @ Value::Map(_)) => Ok(v.to_json()),
        Some(Value::Seq(items)) if items.len() <= LIST_DESCRIPTION_CHARS => {
            Ok(Value::Seq(items.clone()).to_json())
        }
        Some(other) => Err(Hidden::Invalid(format!(
            "description is {} ({}), not text",
            article(other.py_type_name()),
            other.py_repr()
        ))),
    }
}

fn cut_description(text: &str) -> String {
    if pytext::char_len(text) > LIST_DESCRIPTION_CHARS {
        format!(
            "{}...",
            pytext::take_chars(text, LIST_DESCRIPTION_CHARS - 3)
        )
    } else {
        text.to_string()
    }
}

/// The `skills_list` tool's answer, key for key. `category` filters by exact match. Like
/// Hermes, a missing local skills directory is created and reported.
pub fn skills_list_result(
    rows: &[Listed],
    local_exists: bool,
    display_home: &str,
    category: Option<&str>,
) -> Json {
    if !local_exists {
        return json!({
            "success": true,
            "skills": [],
            "categories": [],
            "message": format!("No skills found. Skills directory created at {display_home}/skills/"),
        });
    }
    let visible = visible_sorted(rows);
    if visible.is_empty() {
        return json!({
            "success": true,
            "skills": [],
            "categories": [],
            "message": "No skills found in skills/ directory.",
        });
    }
    let selected: Vec<&Listed> = visible
        .into_iter()
        .filter(|r| category.is_none_or(|c| c.is_empty() || r.category.as_deref() == Some(c)))
        .collect();
    let categories: BTreeSet<&str> = selected
        .iter()
        .filter_map(|r| r.category.as_deref())
        .collect();
    json!({
        "success": true,
        "skills": selected.iter().map(|r| json!({
            "name": r.name,
            "description": r.description,
            "category": r.category,
        })).collect::<Vec<_>>(),
        "categories": categories.into_iter().collect::<Vec<_>>(),
        "count": selected.len(),
        "hint": "Use skill_view(name) to see full content, tags, and linked files",
    })
}

/// The agent's `skills_list` tool: creates a missing local skills directory (as Hermes
/// does) and answers with [`skills_list_result`].
pub fn skills_list_tool(lib: &super::library::Library, category: Option<&str>) -> Json {
    let existed = lib.roots.local.is_dir();
    if !existed && let Err(e) = std::fs::create_dir_all(&lib.roots.local) {
        return json!({"error": e.to_string(), "success": false});
    }
    let rows = if existed {
        listing(&lib.catalog(), &lib.roots, &lib.runtime, &lib.disabled())
    } else {
        Vec::new()
    };
    skills_list_result(&rows, existed, &lib.display_home(), category)
}

/// Which skills `hermes-skills list` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Only this category (exact match).
    pub category: Option<String>,
    /// Only this source: `hub`, `builtin`, `local` or `external`.
    pub source: Option<String>,
    /// Every SKILL.md found, hidden ones too, with the reason.
    pub all: bool,
}

/// Where a listed skill comes from: `hub` (in `.hub/lock.json`), `builtin` (in
/// `.bundled_manifest`), `external` (under `skills.external_dirs`) or `local`.
pub fn source_of(
    row: &Listed,
    catalog: &Catalog,
    provenance: &super::provenance::Provenance,
) -> &'static str {
    if provenance.is_hub(&row.name) {
        "hub"
    } else if provenance.is_bundled(&row.name) {
        "builtin"
    } else if catalog.files[row.file].root == RootKind::Local {
        "local"
    } else {
        "external"
    }
}

/// The rows of `hermes-skills list`: name, category, description, path, source, state,
/// pinned, use_count, view_count, last_activity_at (plus `hidden` and `reason` with
/// `all`), sorted by (category, name).
pub fn rows(
    lib: &super::library::Library,
    index: &super::library::Index,
    filter: &ListFilter,
) -> Vec<Json> {
    let globally: BTreeSet<String> = lib.config.skills.disabled.iter().cloned().collect();
    let listed = listing_explained(
        &index.catalog,
        &lib.roots,
        &lib.runtime,
        &lib.disabled(),
        &globally,
    );
    let mut selected: Vec<&Listed> = listed
        .iter()
        .filter(|r| filter.all || r.visible())
        .filter(|r| {
            filter
                .category
                .as_deref()
                .is_none_or(|c| r.category.as_deref() == Some(c))
        })
        .filter(|r| {
            filter
                .source
                .as_deref()
                .is_none_or(|s| s == "all" || source_of(r, &index.catalog, &index.provenance) == s)
        })
        .collect();
    selected.sort_by(|a, b| {
        sort_key(a).cmp(&sort_key(b)).then_with(|| {
            index.catalog.files[a.file]
                .skill_md
                .cmp(&index.catalog.files[b.file].skill_md)
        })
    });
    selected
        .into_iter()
        .map(|r| {
            let file = &index.catalog.files[r.file];
            let record = index.usage.get(&r.name);
            let mut row = serde_json::Map::new();
            row.insert("name".into(), json!(r.name));
            row.insert("category".into(), json!(r.category));
            row.insert("description".into(), r.description.clone());
            row.insert("path".into(), json!(file.dir().display().to_string()));
            row.insert(
                "source".into(),
                json!(source_of(r, &index.catalog, &index.provenance)),
            );
            row.insert("state".into(), json!(super::usage::state(record)));
            row.insert("pinned".into(), json!(super::usage::is_pinned(record)));
            row.insert(
                "use_count".into(),
                json!(super::usage::counter(record, "use_count")),
            );
            row.insert(
                "view_count".into(),
                json!(super::usage::counter(record, "view_count")),
            );
            row.insert(
                "last_activity_at".into(),
                json!(record.and_then(super::usage::latest_activity_at)),
            );
            if filter.all {
                row.insert("hidden".into(), json!(r.hidden.as_ref().map(Hidden::code)));
                let reason = r
                    .hidden
                    .as_ref()
                    .map(Hidden::reason)
                    .or_else(|| r.note.clone());
                row.insert("reason".into(), json!(reason));
            }
            Json::Object(row)
        })
        .collect()
}

/// The rows of `hermes-skills list --archived`: one per folder of `.archive/`.
pub fn archived_rows(lib: &super::library::Library, index: &super::library::Index) -> Vec<Json> {
    super::archive::list_archived(&lib.home)
        .into_iter()
        .map(|dir_name| {
            let dir = lib.home.archive_dir().join(&dir_name);
            let skill_md = dir.join(super::discover::SKILL_FILE);
            let name = super::provenance::read_identity(&skill_md, &dir_name);
            let description = read_utf8(&skill_md)
                .ok()
                .and_then(|text| {
                    let parsed = frontmatter::parse(pytext::take_chars(&text, LIST_PREFIX_CHARS));
                    list_description(parsed.fields.get("description"), parsed.body).ok()
                })
                .unwrap_or(Json::String(String::new()));
            let record = index.usage.get(&name);
            json!({
                "name": name,
                "category": null,
                "description": description,
                "path": dir.display().to_string(),
                "source": index.provenance.origin(&name).as_str().replace("agent", "local").replace("bundled", "builtin"),
                "state": super::usage::STATE_ARCHIVED,
                "pinned": super::usage::is_pinned(record),
                "use_count": super::usage::counter(record, "use_count"),
                "view_count": super::usage::counter(record, "view_count"),
                "last_activity_at": record.and_then(super::usage::latest_activity_at),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::{Config, Home};
    use std::path::Path;

    fn home_with(files: &[(&str, &str)], config: &str) -> (tempfile::TempDir, Roots, Catalog) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        let home = Home::at(dir.path());
        let config = Config::from_bytes(config.as_bytes(), Path::new("c")).expect("config");
        let roots = Roots::new(&home, &config);
        let catalog = Catalog::scan(&roots);
        (dir, roots, catalog)
    }

    #[test]
    fn reasons_in_hermes_order() {
        let (_dir, roots, catalog) = home_with(
            &[
                (
                    "skills/a/SKILL.md",
                    "---\nname: dup\ndescription: first\n---\nx",
                ),
                (
                    "skills/b/SKILL.md",
                    "---\nname: dup\ndescription: second\n---\nx",
                ),
                (
                    "skills/c/SKILL.md",
                    "---\nname: mac\nplatforms: [macos]\n---\nx",
                ),
                (
                    "skills/d/SKILL.md",
                    "---\nname: offline\ndescription: d\n---\nx",
                ),
                ("skills/e/SKILL.md", "---\nname: 12\n---\nx"),
                ("skills/f/SKILL.md", "---\ndescription: yes\n---\nx"),
                ("skills/g/SKILL.md", "---\nenvironments: [kanban]\n---\nx"),
                ("skills/cat/h/SKILL.md", "# Title\n\nFirst line.\n"),
            ],
            "skills:\n  disabled: [offline]\n",
        );
        let disabled = BTreeSet::from(["offline".to_string()]);
        let rows = listing(&catalog, &roots, &Runtime::plain_linux(), &disabled);
        let got: Vec<(String, Option<&str>)> = rows
            .iter()
            .map(|r| (r.name.clone(), r.hidden.as_ref().map(Hidden::code)))
            .collect();
        assert_eq!(
            got,
            vec![
                ("dup".into(), None),
                ("dup".into(), Some("shadowed")),
                ("mac".into(), Some("platform")),
                ("h".into(), None),
                ("offline".into(), Some("disabled")),
                ("e".into(), Some("invalid")),
                ("f".into(), Some("invalid")),
                ("g".into(), Some("environment")),
            ]
        );
        assert_eq!(rows[3].category.as_deref(), Some("cat"));
        assert_eq!(rows[3].description, Json::String("First line.".into()));
        let visible: Vec<&str> = visible_sorted(&rows)
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(visible, vec!["dup", "h"]);
    }

    #[test]
    fn platform_disabled_names_its_key() {
        let (_dir, roots, catalog) = home_with(
            &[
                ("skills/a/SKILL.md", "---\nname: a\n---\nx"),
                ("skills/b/SKILL.md", "---\nname: b\n---\nx"),
            ],
            "",
        );
        let runtime = Runtime {
            platform_hint: Some("telegram".into()),
            ..Runtime::plain_linux()
        };
        let disabled = BTreeSet::from(["a".to_string(), "b".to_string()]);
        let globally = BTreeSet::from(["a".to_string()]);
        let rows = listing_explained(&catalog, &roots, &runtime, &disabled, &globally);
        let reasons: Vec<String> = rows
            .iter()
            .map(|r| r.hidden.as_ref().map(Hidden::reason).unwrap_or_default())
            .collect();
        assert_eq!(
            reasons,
            vec![
                "disabled in config.yaml (skills.disabled)",
                "disabled in config.yaml (skills.platform_disabled.telegram)",
            ]
        );
    }

    #[test]
    fn long_frontmatter_is_cut_at_4000_chars_like_hermes() {
        let long = format!(
            "---\nname: long\ndescription: d\nnotes: \"{}\"\n---\nbody",
            "x".repeat(4100)
        );
        let (_dir, roots, catalog) = home_with(&[("skills/long-dir/SKILL.md", &long)], "");
        let rows = listing(&catalog, &roots, &Runtime::plain_linux(), &BTreeSet::new());
        assert_eq!(rows[0].name, "long-dir");
        assert_eq!(rows[0].description, Json::String("---".into()));
    }
}
