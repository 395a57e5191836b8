//! SARIF 2.1.0: one run, one result per finding (and per lint issue), with the rules that
//! occur described, so GitHub code scanning shows each where it is.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::batch::SkillResult;
use super::catalogue;
use super::finding::{SKILL_DIR, line_fingerprint as fingerprint};
use super::rule::Severity;
use crate::skills::discover::SKILL_FILE;
use crate::skills::lint::{self, Level};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The base id every relative URI is resolved against (GitHub maps it to the checkout).
pub const SRCROOT: &str = "%SRCROOT%";

/// Where code-scanning pages link the tool's name: the package's repository when Cargo.toml
/// names one.
const INFORMATION_URI: &str = match env!("CARGO_PKG_REPOSITORY").is_empty() {
    true => "https://example.org/hermes-loop",
    false => env!("CARGO_PKG_REPOSITORY"),
};

/// The key of our fingerprint in `partialFingerprints` (stable across runs and line shifts).
const FINGERPRINT_KEY: &str = "hermesSkillScan/v1";

/// How the log names files.
#[derive(Debug, Clone)]
pub struct Options {
    /// URIs under this folder are relative to `%SRCROOT%`; others stay absolute.
    pub root: PathBuf,
    /// The root as given, made absolute: a path through a symbolic link is under this one.
    pub root_as_given: PathBuf,
    /// What relative scanned paths are relative to.
    pub cwd: PathBuf,
}

impl Options {
    /// Relative to `root`; relative scanned paths are taken from the current directory.
    pub fn with_root(root: &Path) -> Options {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        Options::in_dir(root, cwd)
    }

    fn in_dir(root: &Path, cwd: PathBuf) -> Options {
        let root_as_given = absolute(&cwd, root);
        Options {
            root: std::fs::canonicalize(&root_as_given).unwrap_or_else(|_| root_as_given.clone()),
            root_as_given,
            cwd,
        }
    }

    /// `path` relative to the root, if under it, as given or with links resolved.
    fn relative(&self, path: &Path) -> Option<PathBuf> {
        let path = absolute(&self.cwd, path);
        let relative = |p: &Path| {
            p.strip_prefix(&self.root_as_given)
                .or_else(|_| p.strip_prefix(&self.root))
                .ok()
                .map(Path::to_path_buf)
        };
        relative(&path).or_else(|| {
            // Resolve the folder, not the file: a linked file stays where the skill has it.
            let parent = std::fs::canonicalize(path.parent()?).ok()?;
            relative(&parent.join(path.file_name()?))
        })
    }

    /// The default root: the top of the git repository holding the first scanned path, else
    /// the current directory.
    pub fn for_paths(paths: &[PathBuf]) -> Options {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let root = paths
            .first()
            .and_then(|p| repository_top(&absolute(&cwd, p)))
            .unwrap_or_else(|| cwd.clone());
        Options::with_root(&root)
    }
}

/// `path` made absolute and lexically normal: `root/../x` is not under `root`.
fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `git rev-parse --show-toplevel` run in `path` (or its folder, for a file).
fn repository_top(path: &Path) -> Option<PathBuf> {
    let dir = if path.is_dir() { path } else { path.parent()? };
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-toplevel"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let top = String::from_utf8(out.stdout).ok()?;
    let top = top.trim_end_matches(['\n', '\r']);
    (!top.is_empty()).then(|| PathBuf::from(top))
}

/// A reporting descriptor: GitHub reads `security-severity` from the rule, never the result,
/// so each (rule, weighed severity) pair gets its own: `RULE` at the rule's base severity,
/// `RULE/<severity>` when context weighed a finding down (or up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Descriptor {
    /// Catalogue position, then the weighed severity, highest first.
    Guard(usize, std::cmp::Reverse<Severity>, &'static str),
    Lint(usize, &'static str),
}

impl Descriptor {
    fn guard(rule: &'static str, severity: Severity) -> Descriptor {
        Descriptor::Guard(
            catalogue::index_of(rule).unwrap_or(usize::MAX),
            std::cmp::Reverse(severity),
            rule,
        )
    }

    fn lint(rule: &'static str) -> Descriptor {
        let position = lint::RULES.iter().position(|r| r.id == rule);
        Descriptor::Lint(position.unwrap_or(usize::MAX), rule)
    }

    fn id(self) -> String {
        match self {
            Descriptor::Guard(_, std::cmp::Reverse(severity), rule) => {
                descriptor_id(rule, severity)
            }
            Descriptor::Lint(_, rule) => rule.to_string(),
        }
    }

    fn value(self) -> Option<Value> {
        match self {
            Descriptor::Guard(_, std::cmp::Reverse(severity), rule) => guard_rule(rule, severity),
            Descriptor::Lint(_, rule) => lint_rule(rule),
        }
    }
}

/// `RULE` at the rule's base severity, `RULE/<severity>` at any other.
pub fn descriptor_id(rule: &str, severity: Severity) -> String {
    match catalogue::rule(rule) {
        Some(r) if r.severity != severity => format!("{rule}/{}", severity.as_str()),
        _ => rule.to_string(),
    }
}

/// The SARIF log of a run.
pub fn log(results: &[SkillResult], options: &Options) -> Value {
    let mut descriptors: Vec<Descriptor> = Vec::new();
    for result in results {
        if let Some(report) = &result.report {
            descriptors.extend(
                report
                    .findings
                    .iter()
                    .map(|f| Descriptor::guard(f.rule, f.severity)),
            );
        }
        descriptors.extend(result.lint.iter().map(|i| Descriptor::lint(i.rule)));
    }
    descriptors.sort();
    descriptors.dedup();
    // A descriptor the catalogue does not know is left out; its results then name no index.
    descriptors.retain(|d| d.value().is_some());
    let rules: Vec<Value> = descriptors.iter().filter_map(|d| d.value()).collect();
    let index_of = |d: Descriptor| descriptors.iter().position(|x| *x == d);
    let mut lines = LineCache::default();
    let mut out = Vec::new();
    for result in results {
        let skill = absolute(&options.cwd, &result.path);
        if let Some(report) = &result.report {
            for f in &report.findings {
                let descriptor = Descriptor::guard(f.rule, f.severity);
                let mut place = location(options, &skill, &f.file, f.line, f.column);
                if f.line > 0 && !f.excerpt.is_empty() {
                    place["physicalLocation"]["region"]["snippet"] = json!({ "text": f.excerpt });
                }
                let related: Vec<Value> = f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let mut loc = location(options, &skill, &r.file, r.line, 0);
                        loc["id"] = json!(i + 1);
                        loc["message"] = json!({ "text": r.excerpt });
                        loc
                    })
                    .collect();
                let mut entry = json!({
                    "ruleId": descriptor.id(),
                    "level": severity_level(f.severity),
                    "message": { "text": f.message },
                    "locations": [place],
                    "partialFingerprints": { FINGERPRINT_KEY: f.fingerprint() },
                    "properties": {
                        "skill": result.name,
                        "rule": f.rule,
                        "category": f.category,
                        "severity": f.severity,
                        "baseSeverity": f.base_severity,
                        "context": f.context,
                    },
                });
                if let Some(index) = index_of(descriptor) {
                    entry["ruleIndex"] = json!(index);
                }
                if !related.is_empty() {
                    entry["relatedLocations"] = Value::Array(related);
                }
                out.push(entry);
            }
        }
        for issue in &result.lint {
            let text = lines.line(&skill, &issue.file, issue.line);
            let fingerprint = fingerprint(
                issue.rule,
                &issue.file,
                text.as_deref().unwrap_or(&issue.message),
            );
            let mut entry = json!({
                "ruleId": issue.rule,
                "level": lint_level(issue.level),
                "message": { "text": format!("{} (hint: {})", issue.message, issue.hint) },
                "locations": [location(options, &skill, &issue.file, issue.line, 0)],
                "partialFingerprints": { FINGERPRINT_KEY: fingerprint },
                "properties": { "skill": result.name },
            });
            if let Some(index) = index_of(Descriptor::lint(issue.rule)) {
                entry["ruleIndex"] = json!(index);
            }
            out.push(entry);
        }
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "hermes-skill-scan",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": INFORMATION_URI,
                    "rules": rules,
                }
            },
            // The category alone (a trailing slash): GitHub keeps one analysis per category.
            "automationDetails": { "id": "hermes-skill-scan/" },
            "originalUriBaseIds": {
                SRCROOT: { "uri": directory_uri(&options.root) },
            },
            "results": out,
        }],
    })
}

/// Each file read once, for the text of the lines lint issues point at.
#[derive(Default)]
struct LineCache {
    files: HashMap<PathBuf, Option<String>>,
}

impl LineCache {
    fn line(&mut self, skill: &Path, file: &str, line: usize) -> Option<String> {
        if line == 0 {
            return None;
        }
        let path = skill.join(file);
        let text = self
            .files
            .entry(path)
            .or_insert_with_key(|p| std::fs::read_to_string(p).ok());
        let text = text.as_ref()?.lines().nth(line - 1)?;
        (!text.trim().is_empty()).then(|| text.to_string())
    }
}

fn guard_rule(id: &'static str, severity: Severity) -> Option<Value> {
    let rule = catalogue::rule(id)?;
    let weighed = (severity != rule.severity).then(|| {
        format!(
            " Findings of this descriptor were weighed from {} to {} by their context.",
            rule.severity.as_str(),
            severity.as_str()
        )
    });
    let weighed = weighed.unwrap_or_default();
    Some(json!({
        "id": descriptor_id(id, severity),
        "name": descriptor_name(rule.id, (severity != rule.severity).then_some(severity)),
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": format!("{}{weighed}", sentence(rule.why)) },
        "help": {
            "text": format!("{} Run `hermes-skill-scan --explain {}` for details.", sentence(rule.fix), rule.id),
            "markdown": help_markdown(rule.title, rule.why, rule.fix, rule.id, &weighed),
        },
        "defaultConfiguration": { "level": severity_level(severity) },
        "properties": {
            "tags": ["security", rule.category.as_str()],
            "security-severity": security_severity(severity),
            "precision": "medium",
        },
    }))
}

fn lint_rule(id: &str) -> Option<Value> {
    let rule = lint::rule(id)?;
    let level = rule.hermes.or(rule.agentskills).unwrap_or(Level::Warning);
    Some(json!({
        "id": rule.id,
        "name": descriptor_name(rule.id, None),
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": sentence(rule.why) },
        "help": {
            "text": format!("{} Run `hermes-skill-scan --explain {}` for details.", sentence(rule.hint), rule.id),
            "markdown": help_markdown(rule.title, rule.why, rule.hint, rule.id, ""),
        },
        "defaultConfiguration": { "level": lint_level(level) },
        "properties": { "tags": ["lint", "skill-format"] },
    }))
}

fn help_markdown(title: &str, why: &str, fix: &str, id: &str, weighed: &str) -> String {
    format!(
        "**{}**\n\n{}{weighed}\n\n**Fix:** {}\n\nRun `hermes-skill-scan --explain {id}` for details.",
        sentence(title),
        sentence(why),
        sentence(fix)
    )
}

fn severity_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

fn lint_level(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
    }
}

/// GitHub sorts security alerts by this score (0-10).
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "3.0",
    }
}

/// Where a result is: every location has a region (line 1 for what is about a whole file),
/// and what is about the skill's folder is shown on its SKILL.md, since code scanning shows
/// alerts on files.
fn location(options: &Options, skill: &Path, file: &str, line: usize, column: usize) -> Value {
    let path = if file == SKILL_DIR {
        skill.join(SKILL_FILE)
    } else {
        skill.join(file)
    };
    let artifact = match options.relative(&path) {
        Some(relative) => json!({ "uri": uri(&relative), "uriBaseId": SRCROOT }),
        None => json!({ "uri": uri(&path) }),
    };
    let mut region = json!({ "startLine": line.max(1) });
    if line > 0 && column > 0 {
        region["startColumn"] = json!(column);
    }
    json!({ "physicalLocation": { "artifactLocation": artifact, "region": region } })
}

/// The `file://` URI of a folder, with the trailing slash SARIF requires of a base.
fn directory_uri(path: &Path) -> String {
    let uri = uri(path);
    if uri.ends_with('/') {
        uri
    } else {
        format!("{uri}/")
    }
}

/// A URI reference for a path: relative paths stay relative (GitHub resolves them against
/// the repository root), absolute ones become `file://` URIs.
pub fn uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = text.strip_prefix("./").unwrap_or(&text);
    let encoded = percent_encode(text);
    if path.is_absolute() {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A descriptor's `name`: the id in PascalCase, never equal to the id whatever the case
/// (SARIF validators flag `sudo`/`Sudo`), with the weighed severity when there is one.
fn descriptor_name(id: &str, weighed: Option<Severity>) -> String {
    let mut name = pascal(id);
    if let Some(severity) = weighed {
        name.push_str("Weighed");
        name.push_str(&capitalize(severity.as_str()));
    } else if name.eq_ignore_ascii_case(id) {
        name.push_str("Rule");
    }
    name
}

fn pascal(id: &str) -> String {
    id.split('-').map(capitalize).collect()
}

/// A rule's text as a sentence for code-scanning pages, which show it as a paragraph: a
/// capital first letter and a full stop (the catalogue keeps fragments, for `--explain`).
fn sentence(text: &str) -> String {
    let text = capitalize(text.trim());
    match text.chars().last() {
        Some('.' | '!' | '?') | None => text,
        Some(_) => format!("{text}."),
    }
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_help_is_full_sentences() {
        let rules = catalogue::rules()
            .iter()
            .filter(|r| r.report)
            .filter_map(|r| guard_rule(r.id, r.severity))
            .chain(lint::RULES.iter().filter_map(|r| lint_rule(r.id)));
        for rule in rules {
            for key in ["fullDescription", "help"] {
                let text = rule[key]["text"].as_str().unwrap_or_default();
                let first = text.chars().next().unwrap_or(' ');
                assert!(
                    first.is_uppercase() || first == '`',
                    "{}: {key}: {text}",
                    rule["id"]
                );
                assert!(text.ends_with('.'), "{}: {key}: {text}", rule["id"]);
            }
        }
    }

    #[test]
    fn uris() {
        assert_eq!(
            uri(Path::new("skills/a b/SKILL.md")),
            "skills/a%20b/SKILL.md"
        );
        assert_eq!(uri(Path::new("./x/SKILL.md")), "x/SKILL.md");
        assert_eq!(uri(Path::new("/tmp/é")), "file:///tmp/%C3%A9");
    }

    #[test]
    fn lint_and_guard_ids_never_collide() {
        for rule in lint::RULES {
            assert!(catalogue::rule(rule.id).is_none(), "{} is in both", rule.id);
        }
    }

    #[test]
    fn descriptors_are_named_by_rule_and_weighed_severity() {
        let sudo = catalogue::rule("sudo").map(|r| r.severity);
        assert_eq!(sudo, Some(Severity::Medium));
        assert_eq!(descriptor_id("sudo", Severity::Medium), "sudo");
        assert_eq!(descriptor_id("sudo", Severity::Low), "sudo/low");
        assert_eq!(descriptor_id("sudo", Severity::High), "sudo/high");
        let rule = guard_rule("sudo", Severity::Low).unwrap_or_default();
        assert_eq!(rule["id"], "sudo/low");
        assert_eq!(rule["properties"]["security-severity"], "3.0");
        assert_eq!(rule["defaultConfiguration"]["level"], "note");
    }

    #[test]
    fn lint_fingerprints_ignore_spacing_not_content() {
        let a = fingerprint("name-invalid", "SKILL.md", "name:   Bad Name");
        assert_eq!(
            a,
            fingerprint("name-invalid", "SKILL.md", " name: Bad\tName ")
        );
        assert_ne!(a, fingerprint("name-invalid", "SKILL.md", "name: Other"));
        assert_ne!(a, fingerprint("name-invalid", "other.md", "name: Bad Name"));
        assert_ne!(a, fingerprint("broken-link", "SKILL.md", "name: Bad Name"));
    }

    #[test]
    fn paths_under_the_root_are_relative_and_others_absolute() {
        let options = Options::in_dir(Path::new("repo"), PathBuf::from("/nowhere"));
        assert_eq!(options.root, Path::new("/nowhere/repo"));
        assert_eq!(
            options.relative(Path::new("repo/skills/a/SKILL.md")),
            Some(PathBuf::from("skills/a/SKILL.md"))
        );
        assert_eq!(options.relative(Path::new("/elsewhere/SKILL.md")), None);
        assert_eq!(options.relative(Path::new("repo/../x/SKILL.md")), None);
        let place = location(
            &options,
            Path::new("/nowhere/repo/skills/a"),
            SKILL_DIR,
            0,
            0,
        );
        assert_eq!(
            place,
            json!({ "physicalLocation": {
                "artifactLocation": { "uri": "skills/a/SKILL.md", "uriBaseId": SRCROOT },
                "region": { "startLine": 1 },
            }})
        );
        assert_eq!(
            directory_uri(Path::new("/nowhere/repo")),
            "file:///nowhere/repo/"
        );
    }

    #[test]
    fn names() {
        assert_eq!(pascal("curl-pipe-shell"), "CurlPipeShell");
        assert_eq!(descriptor_name("curl-pipe-shell", None), "CurlPipeShell");
        assert_eq!(descriptor_name("sudo", None), "SudoRule");
        assert_eq!(
            descriptor_name("sudo", Some(Severity::Low)),
            "SudoWeighedLow"
        );
    }
}
