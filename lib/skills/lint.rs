//! The skill linter: the mistakes that make a skill silently unusable or read differently
//! from how it looks. It reads SKILL.md with the one frontmatter parser the loader uses, so
//! the linter and Hermes never disagree about what a skill says.
//!
//! Two profiles: `agentskills` holds a skill to the open agentskills.io specification (its
//! keys only, name equal to the folder); `hermes` (the default) to what Hermes 0.19.0 reads
//! and enforces (its extra keys allowed, its prompt-index cut, `skill_manage`'s limits).

use std::fmt;
use std::path::Path;

use serde::Serialize;

use super::frontmatter::{self, Status};
use super::limits::{
    self, HERMES_NAME, LIST_PREFIX_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_SKILL_CHARS,
    MAX_SUPPORT_FILE_BYTES, PROMPT_DESCRIPTION_CHARS,
};
use crate::yaml::Value;

/// Which rules a skill is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Profile {
    /// The agentskills.io specification: its frontmatter keys only.
    Agentskills,
    /// What Hermes reads: its own keys (platforms, metadata.hermes.*) allowed.
    #[default]
    Hermes,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Agentskills => "agentskills",
            Profile::Hermes => "hermes",
        }
    }
}

/// How serious a lint issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A lint rule: its id, level per profile (`None`: not checked in that profile), what it
/// catches and the one-line fix.
#[derive(Debug, Clone, Copy)]
pub struct LintRule {
    pub id: &'static str,
    pub hermes: Option<Level>,
    pub agentskills: Option<Level>,
    pub title: &'static str,
    pub why: &'static str,
    pub hint: &'static str,
}

impl LintRule {
    pub fn level(&self, profile: Profile) -> Option<Level> {
        match profile {
            Profile::Hermes => self.hermes,
            Profile::Agentskills => self.agentskills,
        }
    }
}

use Level::{Error as E, Warning as W};

const fn r(
    id: &'static str,
    hermes: Option<Level>,
    agentskills: Option<Level>,
    title: &'static str,
    why: &'static str,
    hint: &'static str,
) -> LintRule {
    LintRule {
        id,
        hermes,
        agentskills,
        title,
        why,
        hint,
    }
}

/// Every lint rule.
pub const RULES: &[LintRule] = &[
    r(
        "skill-md-unreadable",
        Some(E),
        Some(E),
        "SKILL.md cannot be read",
        "Hermes cannot load a skill whose SKILL.md it cannot read",
        "fix the file's permissions",
    ),
    r(
        "skill-md-not-utf8",
        Some(E),
        Some(E),
        "SKILL.md is not UTF-8",
        "Hermes reads SKILL.md as UTF-8 and skips the skill when that fails",
        "save SKILL.md as UTF-8",
    ),
    r(
        "frontmatter-missing",
        Some(E),
        Some(E),
        "no frontmatter",
        "without frontmatter Hermes uses the folder name and guesses a description from the body; skill_manage refuses to edit it",
        "start SKILL.md with ---, name: and description: lines, then ---",
    ),
    r(
        "frontmatter-unclosed",
        Some(E),
        Some(E),
        "frontmatter not closed",
        "no closing --- line, so Hermes reads the whole file as body and sees no fields",
        "add a line with --- after the last frontmatter field",
    ),
    r(
        "frontmatter-invalid-yaml",
        Some(E),
        Some(E),
        "frontmatter is not valid YAML",
        "Hermes falls back to splitting lines at the first colon, so nested fields and lists are lost, and skill_manage refuses edits",
        "fix the YAML; quote values that contain ': ' or start with a special character",
    ),
    r(
        "frontmatter-not-mapping",
        Some(E),
        Some(E),
        "frontmatter is not a mapping",
        "Hermes only reads key: value frontmatter; a list or scalar gives the skill no fields",
        "write the frontmatter as key: value lines",
    ),
    r(
        "frontmatter-past-list-window",
        Some(W),
        None,
        "frontmatter longer than 4,000 characters",
        "skills_list parses only the first 4,000 characters of SKILL.md, so a longer frontmatter is not closed there and the listed description is wrong",
        "shorten the frontmatter; move long metadata into the body or a reference file",
    ),
    r(
        "name-missing",
        Some(E),
        Some(E),
        "no name",
        "the name is how the skill is listed and invoked; skill_manage requires it",
        "add name: <folder name>",
    ),
    r(
        "name-not-string",
        Some(E),
        Some(E),
        "name is not text",
        "YAML read the name as a number, boolean or date, so it is not the text you wrote",
        "quote the name",
    ),
    r(
        "name-invalid",
        Some(E),
        Some(E),
        "name has invalid characters",
        "names are lowercase letters, digits and hyphens (Hermes also allows . and _), starting with a letter or digit",
        "rename using lowercase letters, digits and hyphens",
    ),
    r(
        "name-too-long",
        Some(E),
        Some(E),
        "name longer than 64 characters",
        "skill_manage refuses names over 64 characters and skills_list cuts them",
        "shorten the name to 64 characters or fewer",
    ),
    r(
        "name-folder-mismatch",
        Some(W),
        Some(E),
        "name differs from the folder",
        "skill_manage finds skills by folder while usage and curation key them by name, so the two drift apart; the agentskills.io spec requires them equal",
        "rename the folder or the name so they match",
    ),
    r(
        "description-missing",
        Some(E),
        Some(E),
        "no description",
        "the description is what the agent sees to decide when to use the skill; skill_manage requires it",
        "add description: <one sentence saying when to use the skill>",
    ),
    r(
        "description-not-string",
        Some(E),
        Some(E),
        "description is not text",
        "YAML read the description as a boolean, number or date (`description: yes` is true); Hermes then drops the skill from skills_list, or lists it with its first body line",
        "quote the description",
    ),
    r(
        "description-empty",
        Some(E),
        Some(E),
        "empty description",
        "an empty description tells the agent nothing about when to use the skill",
        "write one sentence saying when to use the skill",
    ),
    r(
        "description-too-long",
        Some(E),
        Some(E),
        "description longer than 1,024 characters",
        "skill_manage refuses it and skills_list cuts it to 1,021 characters",
        "shorten the description to 1,024 characters or fewer",
    ),
    r(
        "description-cut-in-prompt",
        Some(W),
        None,
        "description cut in the prompt index",
        "the system prompt's skill index shows only the first 57 characters of a description over 60",
        "lead with what matters, or keep the description to 60 characters",
    ),
    r(
        "yaml11-trap",
        Some(W),
        Some(W),
        "value read differently by YAML 1.1",
        "Hermes reads frontmatter as YAML 1.1, where yes/no/on/off are booleans, 0755 is octal and 1:30 is a number; other tools (YAML 1.2) read the text",
        "quote the value",
    ),
    // Warning in agentskills: the format's validator does not look at the body.
    r(
        "body-missing",
        Some(E),
        Some(W),
        "no instructions after the frontmatter",
        "a skill with an empty body gives the agent nothing to follow; skill_manage refuses it",
        "write the procedure below the frontmatter",
    ),
    r(
        "skill-md-too-large",
        Some(E),
        None,
        "SKILL.md over 100,000 characters",
        "skill_manage refuses to write or patch a SKILL.md this large, so the agent can never update the skill",
        "move detail into references/ files and link to them",
    ),
    r(
        "skill-md-long",
        None,
        Some(W),
        "SKILL.md over 500 lines",
        "the agentskills.io spec recommends keeping SKILL.md under 500 lines so it loads cheaply",
        "move detail into references/ files and link to them",
    ),
    r(
        "support-file-too-large",
        Some(W),
        None,
        "support file over 1 MiB",
        "skill_manage refuses to write support files over 1 MiB, so the agent cannot update this one",
        "split the file or move the data out of the skill",
    ),
    // Warning in agentskills: the format's reference validator does not follow links, and a
    // profile named after the format agrees with it (docs/decisions.md, issue 18 part B).
    r(
        "broken-link",
        Some(E),
        Some(W),
        "link to a missing file",
        "the skill links to a file of its own that does not exist; the agent will fail to open it",
        "add the file or fix the link",
    ),
    r(
        "unknown-key",
        Some(W),
        Some(E),
        "unknown frontmatter key",
        "the key is not read by the profile's loader (in the hermes profile, only likely misspellings are reported); the agentskills.io reference validator rejects a skill with any key outside its six",
        "remove the key, fix its spelling, or move it under metadata",
    ),
    r(
        "frontmatter-not-strict-yaml",
        None,
        Some(E),
        "YAML the format's validator refuses",
        "the agentskills.io reference validator (skills-ref) reads frontmatter with StrictYAML, which refuses flow-style lists and mappings ([a, b], {a: 1}), anchors, aliases and tags, so `agentskills validate` fails the skill although Hermes reads it",
        "write lists as `- item` lines and mappings as `key: value` lines; drop anchors, aliases and tags",
    ),
    r(
        "metadata-not-mapping",
        Some(E),
        Some(E),
        "metadata is not a mapping",
        "metadata must be a mapping of keys to values",
        "write metadata as key: value lines",
    ),
    r(
        "metadata-value-not-string",
        None,
        Some(W),
        "metadata value is not text",
        "the agentskills.io spec makes metadata a map of strings to strings",
        "quote the value, or use the hermes profile",
    ),
    r(
        "compatibility-too-long",
        None,
        Some(E),
        "compatibility longer than 500 characters",
        "the agentskills.io spec limits compatibility to 500 characters",
        "shorten it",
    ),
    r(
        "platforms-unknown",
        Some(W),
        None,
        "unknown platform",
        "Hermes knows macos, linux and windows (other values must be a sys.platform prefix); an unknown one hides the skill everywhere",
        "use macos, linux or windows",
    ),
];

/// The lint rule with this id.
pub fn rule(id: &str) -> Option<&'static LintRule> {
    RULES.iter().find(|r| r.id == id)
}

/// One lint issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub rule: &'static str,
    pub level: Level,
    /// Path inside the skill (`SKILL.md` or a support file).
    pub file: String,
    /// 1-based; 0 when it is about the whole file.
    pub line: usize,
    pub message: String,
    pub hint: &'static str,
}

const AGENTSKILLS_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

const HERMES_KEYS: &[&str] = &[
    "platforms",
    "environments",
    "version",
    "author",
    "tags",
    "related_skills",
    "required_environment_variables",
    "setup",
    "prerequisites",
    "required_credential_files",
];

/// Platform values Hermes maps or that are common `sys.platform` prefixes.
const PLATFORMS: &[&str] = &[
    "macos", "linux", "windows", "darwin", "win32", "cygwin", "freebsd", "openbsd", "android",
    "termux",
];

/// What is wrong with an invalid name, in the words a person needs to fix it.
fn why_invalid(name: &str, profile: Profile) -> String {
    let allowed = |c: char| {
        c.is_ascii_lowercase()
            || c.is_ascii_digit()
            || c == '-'
            || (profile == Profile::Hermes && (c == '.' || c == '_'))
    };
    if name.is_empty() {
        return "it is empty".into();
    }
    if let Some(c) = name.chars().find(|&c| !allowed(c)) {
        return match c.is_ascii_uppercase() {
            true => format!("it has an uppercase letter ({c:?}); names are lowercase"),
            false => format!("{c:?} is not allowed (lowercase letters, digits and hyphens)"),
        };
    }
    if let Some(first) = name.chars().next().filter(|c| !c.is_ascii_alphanumeric()) {
        return format!("it starts with {first:?}; start with a letter or digit");
    }
    if name.ends_with('-') {
        return "it ends with a hyphen".into();
    }
    if name.contains("--") {
        return "it has two hyphens in a row".into();
    }
    "it does not follow the naming rule".into()
}

/// Lints the skill folder `dir`.
pub fn lint_skill(dir: &Path, profile: Profile) -> Vec<Issue> {
    let skill_md = dir.join("SKILL.md");
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut issues = match std::fs::read(&skill_md) {
        Err(err) => vec![issue(profile, "skill-md-unreadable", 0, err.to_string())],
        Ok(bytes) => match String::from_utf8(bytes) {
            Err(err) => vec![issue(
                profile,
                "skill-md-not-utf8",
                0,
                format!("invalid UTF-8 at byte {}", err.utf8_error().valid_up_to()),
            )],
            Ok(text) => lint_text(&text, &dir_name, profile, &|rel| dir.join(rel).exists()),
        },
    };
    issues.extend(support_file_issues(dir, profile));
    issues.retain(|i| rule(i.rule).is_some_and(|r| r.level(profile).is_some()));
    let rank = |id: &str| RULES.iter().position(|r| r.id == id);
    issues.sort_by(|a, b| (&a.file, a.line, rank(a.rule)).cmp(&(&b.file, b.line, rank(b.rule))));
    issues
}

fn issue(profile: Profile, id: &'static str, line: usize, message: impl Into<String>) -> Issue {
    let found = rule(id);
    Issue {
        rule: id,
        level: found
            .and_then(|r| r.level(profile))
            .unwrap_or(Level::Warning),
        file: "SKILL.md".to_string(),
        line,
        message: message.into(),
        hint: found.map_or("", |r| r.hint),
    }
}

/// Lints SKILL.md text. `dir_name` is the skill's folder; `exists` says whether a path
/// relative to the skill folder exists (for links).
pub fn lint_text(
    text: &str,
    dir_name: &str,
    profile: Profile,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<Issue> {
    let mut out = Vec::new();
    let mut add = |id: &'static str, line: usize, message: String| {
        if rule(id).is_some_and(|r| r.level(profile).is_some()) {
            out.push(issue(profile, id, line, message));
        }
    };
    let fm = frontmatter::parse(text);
    match &fm.status {
        Status::Missing => add(
            "frontmatter-missing",
            1,
            "SKILL.md does not start with ---".into(),
        ),
        Status::Unclosed => add(
            "frontmatter-unclosed",
            1,
            "the opening --- has no closing --- line".into(),
        ),
        Status::NotMapping(kind) => add(
            "frontmatter-not-mapping",
            1,
            format!("the frontmatter is a {kind}, not a mapping"),
        ),
        Status::Invalid(err) => add(
            "frontmatter-invalid-yaml",
            err.line().unwrap_or(1),
            format!("YAML error: {}", one_line(&err.to_string())),
        ),
        Status::Parsed => {}
    }
    let has_fields = matches!(fm.status, Status::Parsed | Status::Invalid(_));
    if has_fields {
        check_fields(&fm, dir_name, profile, &mut add);
        if let Some(found) = frontmatter::fences(text) {
            let consumed = text.len() - found.body.len();
            let chars = text[..consumed].chars().count();
            if chars > LIST_PREFIX_CHARS {
                add(
                    "frontmatter-past-list-window",
                    1,
                    format!("the frontmatter ends at character {chars}"),
                );
            }
        }
    }
    if profile == Profile::Agentskills
        && matches!(fm.status, Status::Parsed | Status::NotMapping(_))
        && let Some(found) = frontmatter::fences(text)
    {
        for issue in crate::yaml::strict_issues(found.yaml) {
            add(
                "frontmatter-not-strict-yaml",
                issue.line + 1,
                format!(
                    "{} (StrictYAML, which the format's validator uses, refuses it)",
                    issue.what
                ),
            );
        }
    }
    for trap in &fm.traps {
        add(
            "yaml11-trap",
            trap.line,
            format!(
                "`{}` is {} to Hermes (YAML 1.1) but {} to YAML 1.2 tools",
                trap.text,
                describe(&trap.python),
                describe(&trap.yaml12)
            ),
        );
    }
    if !matches!(fm.status, Status::Missing | Status::Unclosed) && fm.body.trim().is_empty() {
        let fence_line = frontmatter::fences(text).map_or(1, |f| f.yaml.matches('\n').count() + 2);
        add(
            "body-missing",
            fence_line,
            "nothing follows the frontmatter".into(),
        );
    }
    let chars = text.chars().count();
    if chars > MAX_SKILL_CHARS {
        add(
            "skill-md-too-large",
            0,
            format!("SKILL.md is {chars} characters (limit {MAX_SKILL_CHARS})"),
        );
    }
    let line_count = text.lines().count();
    if line_count > 500 {
        add(
            "skill-md-long",
            0,
            format!("SKILL.md has {line_count} lines"),
        );
    }
    for (line, target) in relative_links(fm.body, fm.body_line) {
        if !exists(&target) {
            add(
                "broken-link",
                line,
                format!("`{target}` does not exist in the skill"),
            );
        }
    }
    out
}

fn check_fields(
    fm: &frontmatter::Frontmatter<'_>,
    dir_name: &str,
    profile: Profile,
    add: &mut dyn FnMut(&'static str, usize, String),
) {
    let line = |key: &str| fm.fields.line_of(key).unwrap_or(1);
    match fm.fields.get("name") {
        None => add("name-missing", 1, "the frontmatter has no name".into()),
        Some(Value::Str(name)) => {
            let at = line("name");
            let valid = match profile {
                Profile::Hermes => HERMES_NAME.is_match(name),
                Profile::Agentskills => limits::agentskills_name_ok(name),
            };
            if !valid {
                add(
                    "name-invalid",
                    at,
                    format!(
                        "`{name}` is not a valid skill name: {}",
                        why_invalid(name, profile)
                    ),
                );
            }
            let len = name.chars().count();
            if len > MAX_NAME_CHARS {
                add("name-too-long", at, format!("the name is {len} characters"));
            }
            if name != dir_name && !dir_name.is_empty() {
                add(
                    "name-folder-mismatch",
                    at,
                    format!("name `{name}` is in folder `{dir_name}`"),
                );
            }
        }
        Some(other) => add(
            "name-not-string",
            line("name"),
            format!("name is {}; {}", describe(other), name_consequence(other)),
        ),
    }
    match fm.fields.get("description") {
        None => add(
            "description-missing",
            1,
            "the frontmatter has no description".into(),
        ),
        Some(Value::Str(description)) => {
            let at = line("description");
            let len = description.chars().count();
            if description.trim().is_empty() {
                add("description-empty", at, "the description is empty".into());
            } else if len > MAX_DESCRIPTION_CHARS {
                add(
                    "description-too-long",
                    at,
                    format!("the description is {len} characters"),
                );
            } else {
                let visible = description.trim().trim_matches(['\'', '"']);
                if visible.chars().count() > PROMPT_DESCRIPTION_CHARS {
                    let shown = limits::prompt_description(description);
                    add(
                        "description-cut-in-prompt",
                        at,
                        format!("the prompt index shows \"{shown}\""),
                    );
                }
            }
        }
        Some(other) => add(
            "description-not-string",
            line("description"),
            format!(
                "description is {}; {}",
                describe(other),
                description_consequence(other)
            ),
        ),
    }
    for (key, value, key_line) in fm.fields.iter_with_lines() {
        let Value::Str(key) = key else {
            continue;
        };
        let at = key_line.max(1);
        let known = AGENTSKILLS_KEYS.contains(&key.as_str())
            || (profile == Profile::Hermes && HERMES_KEYS.contains(&key.as_str()));
        if !known {
            let near = AGENTSKILLS_KEYS
                .iter()
                .chain(HERMES_KEYS)
                .find(|k| edit_distance(k, key) <= 2 && k.len() > 3);
            match (profile, near) {
                (_, Some(near)) => add(
                    "unknown-key",
                    at,
                    format!("`{key}` is not a frontmatter key; did you mean `{near}`?"),
                ),
                (Profile::Agentskills, None) => add(
                    "unknown-key",
                    at,
                    format!("`{key}` is not in the agentskills.io specification"),
                ),
                (Profile::Hermes, None) => {}
            }
        }
        match key.as_str() {
            "metadata" => match value {
                Value::Map(map) => {
                    for (k, v, l) in map.iter_with_lines() {
                        if !matches!(v, Value::Str(_)) {
                            add(
                                "metadata-value-not-string",
                                l.max(at),
                                format!("metadata.{} is {}", k.py_str(), describe(v)),
                            );
                        }
                    }
                    if profile == Profile::Hermes
                        && let Some(hermes) = map.get("hermes")
                        && !matches!(hermes, Value::Map(_) | Value::Null)
                    {
                        add(
                            "metadata-not-mapping",
                            at,
                            format!("metadata.hermes is {}", describe(hermes)),
                        );
                    }
                }
                Value::Null => {}
                other => add(
                    "metadata-not-mapping",
                    at,
                    format!("metadata is {}", describe(other)),
                ),
            },
            "compatibility" => {
                let len = value.py_str().chars().count();
                if len > 500 {
                    add(
                        "compatibility-too-long",
                        at,
                        format!("compatibility is {len} characters"),
                    );
                }
            }
            "platforms" => {
                let values: Vec<String> = match value {
                    Value::Seq(items) => items.iter().map(Value::py_str).collect(),
                    Value::Null => Vec::new(),
                    other => vec![other.py_str()],
                };
                for platform in values {
                    let lower = platform.trim().to_ascii_lowercase();
                    if !PLATFORMS.iter().any(|p| lower.starts_with(p)) {
                        add(
                            "platforms-unknown",
                            at,
                            format!("platform `{platform}` matches no operating system"),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

fn support_file_issues(dir: &Path, profile: Profile) -> Vec<Issue> {
    if profile != Profile::Hermes {
        return Vec::new();
    }
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
        .flatten()
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == "SKILL.md" {
            continue;
        }
        let size = entry.metadata().map_or(0, |m| m.len());
        if size > MAX_SUPPORT_FILE_BYTES as u64 {
            let mut found = issue(
                profile,
                "support-file-too-large",
                0,
                format!("{rel} is {} KiB", size / 1024),
            );
            found.file = rel;
            out.push(found);
        }
    }
    out
}

/// What Hermes's skills_list does with a non-text name: `name[:64]` fails for scalars and
/// a list cannot be a set member, so the skill is dropped either way.
fn name_consequence(_value: &Value) -> &'static str {
    "Hermes drops the skill from skills_list"
}

/// What Hermes's skills_list does with a non-text description (`len(description)`).
fn description_consequence(value: &Value) -> &'static str {
    if !value.is_truthy() {
        return "Hermes lists the skill with its first body line instead";
    }
    match value {
        Value::Seq(_) | Value::Map(_) | Value::Bytes(_) => {
            "Hermes lists the skill with that value as its description"
        }
        _ => "Hermes drops the skill from skills_list (it has no length)",
    }
}

/// How a YAML value reads, for messages: `true (a boolean)`, `1.5 (a number)`.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::BigInt(_) | Value::Float(_) => "a number",
        Value::Str(_) => "text",
        Value::Bytes(_) => "binary data",
        Value::Timestamp(_) => "a date",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a mapping",
    };
    match value {
        Value::Seq(_) | Value::Map(_) | Value::Null => kind.to_string(),
        Value::Str(s) => format!("\"{s}\" ({kind})"),
        other => format!("{} ({kind})", other.py_repr()),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Relative link targets of the body, with their file line numbers, outside code.
fn relative_links(body: &str, body_line: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (index, line) in body.lines().enumerate() {
        let trimmed = line.trim_start();
        let run = |ch: char| trimmed.chars().take_while(|&c| c == ch).count();
        if let Some((ch, len)) = fence {
            if run(ch) >= len && trimmed.trim_start_matches(ch).trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if let Some(ch) = ['`', '~'].into_iter().find(|&c| run(c) >= 3) {
            fence = Some((ch, run(ch)));
            continue;
        }
        for target in link_targets(line) {
            if let Some(path) = local_target(&target) {
                out.push((body_line + index, path));
            }
        }
    }
    out
}

/// `](target)` of inline links and images outside inline code, plus `[x]: target`
/// reference definitions.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(close) = trimmed.find("]:")
    {
        let target = trimmed[close + 2..].trim();
        if let Some(first) = target.split_whitespace().next() {
            out.push(first.to_string());
        }
        return out;
    }
    let mut in_code = false;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => in_code = !in_code,
            b']' if !in_code && bytes.get(i + 1) == Some(&b'(') => {
                let rest = &line[i + 2..];
                let mut depth = 0usize;
                let end = rest.char_indices().find(|&(_, c)| match c {
                    '(' => {
                        depth += 1;
                        false
                    }
                    ')' if depth == 0 => true,
                    ')' => {
                        depth -= 1;
                        false
                    }
                    _ => false,
                });
                if let Some((end, _)) = end {
                    let inner = rest[..end].trim();
                    let target = if let Some(stripped) = inner.strip_prefix('<') {
                        stripped.split('>').next().unwrap_or("").to_string()
                    } else {
                        inner.split_whitespace().next().unwrap_or("").to_string()
                    };
                    out.push(target);
                    i += 2 + end;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The file a link points at inside the skill, if it is a relative path to one.
fn local_target(target: &str) -> Option<String> {
    let target = target.trim();
    if target.is_empty()
        || target.starts_with('#')
        || target.starts_with('/')
        || target.starts_with('~')
        || target.contains("://")
        || target.contains("${")
        || target.contains("{{")
        || target.contains('<')
        || target.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+')
        })
    {
        return None;
    }
    let path = target.split(['#', '?']).next().unwrap_or(target);
    if path.is_empty() {
        return None;
    }
    Some(percent_decode(path))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(digits) = bytes.get(i + 1..i + 3)
            && let Ok(digits) = std::str::from_utf8(digits)
            && let Ok(hex) = u8::from_str_radix(digits, 16)
        {
            out.push(hex);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Levenshtein distance, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            row[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lint(text: &str, dir: &str, profile: Profile) -> Vec<(&'static str, Level, usize)> {
        lint_text(text, dir, profile, &|rel| rel == "references/ok.md")
            .into_iter()
            .map(|i| (i.rule, i.level, i.line))
            .collect()
    }

    #[test]
    fn a_clean_skill_has_no_issues() {
        let text = "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---\n# PDF\nSee [ok](references/ok.md).\n";
        assert!(lint(text, "pdf-tools", Profile::Hermes).is_empty());
        assert!(lint(text, "pdf-tools", Profile::Agentskills).is_empty());
    }

    #[test]
    fn the_issue_examples() {
        let text = "---\nname: pdf_tools\ndescription: yes\n---\nbody\n";
        assert_eq!(
            lint(text, "pdf", Profile::Hermes),
            vec![
                ("name-folder-mismatch", Level::Warning, 2),
                ("description-not-string", Level::Error, 3),
                ("yaml11-trap", Level::Warning, 3),
            ]
        );
        assert_eq!(
            lint(text, "pdf", Profile::Agentskills),
            vec![
                ("name-invalid", Level::Error, 2),
                ("name-folder-mismatch", Level::Error, 2),
                ("description-not-string", Level::Error, 3),
                ("yaml11-trap", Level::Warning, 3),
            ]
        );
        let long = format!(
            "---\nname: a\ndescription: {}\n---\nbody\n",
            "word ".repeat(14)
        );
        let issues = lint_text(&long, "a", Profile::Hermes, &|_| true);
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].rule, "description-cut-in-prompt");
        assert_eq!(
            issues[0].message,
            format!(
                "the prompt index shows \"{}...\"",
                &"word ".repeat(14)[..57]
            )
        );
    }

    #[test]
    fn structure_errors() {
        assert_eq!(
            lint("# no fm\n", "x", Profile::Hermes)[0].0,
            "frontmatter-missing"
        );
        assert_eq!(
            lint("---\nname: x\n", "x", Profile::Hermes)[0].0,
            "frontmatter-unclosed"
        );
        assert_eq!(
            lint(
                "---\nname: x\ndescription: d\n---\n\n",
                "x",
                Profile::Hermes
            ),
            vec![("body-missing", Level::Error, 4)]
        );
        let bad = lint(
            "---\nname: [x\ndescription: d\n---\nbody\n",
            "x",
            Profile::Hermes,
        );
        assert_eq!(bad[0].0, "frontmatter-invalid-yaml");
    }

    #[test]
    fn links_keys_and_platforms() {
        let text = "---\nname: x\ndescripton: d\ndescription: d\nplatforms: [macos, mac]\nrequires: y\n---\n[a](references/missing.md) [b](https://x.example) `[c](nope.md)`\n```\n[d](nope.md)\n```\n[e]: scripts/gone.py\n";
        assert_eq!(
            lint(text, "x", Profile::Hermes),
            vec![
                ("unknown-key", Level::Warning, 3),
                ("platforms-unknown", Level::Warning, 5),
                ("broken-link", Level::Error, 8),
                ("broken-link", Level::Error, 12),
            ]
        );
        // The format's validator rejects unknown keys and StrictYAML's refusals, and does not
        // follow links.
        assert_eq!(
            lint(text, "x", Profile::Agentskills),
            vec![
                ("unknown-key", Level::Error, 3),
                ("unknown-key", Level::Error, 5),
                ("unknown-key", Level::Error, 6),
                ("frontmatter-not-strict-yaml", Level::Error, 5),
                ("broken-link", Level::Warning, 8),
                ("broken-link", Level::Warning, 12),
            ]
        );
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("descripton", "description"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
