//! SARIF 2.1.0: one run, one result per finding (and per lint issue), with the rules that
//! occur described, so GitHub code scanning shows each where it is.

use std::path::Path;

use serde_json::{Value, json};

use super::batch::SkillResult;
use super::catalogue;
use super::finding::SKILL_DIR;
use super::rule::Severity;
use crate::skills::lint::{self, Level};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log of a run.
pub fn log(results: &[SkillResult]) -> Value {
    let mut guard_ids: Vec<&'static str> = Vec::new();
    let mut lint_ids: Vec<&'static str> = Vec::new();
    for result in results {
        if let Some(report) = &result.report {
            guard_ids.extend(report.findings.iter().map(|f| f.rule));
        }
        lint_ids.extend(result.lint.iter().map(|i| i.rule));
    }
    guard_ids.sort_by_key(|id| catalogue::index_of(id));
    guard_ids.dedup();
    lint_ids.sort_by_key(|id| lint::RULES.iter().position(|r| r.id == *id));
    lint_ids.dedup();
    let mut rules: Vec<Value> = guard_ids.iter().filter_map(|id| guard_rule(id)).collect();
    rules.extend(lint_ids.iter().filter_map(|id| lint_rule(id)));
    let index_of = |id: &str| -> usize {
        guard_ids
            .iter()
            .chain(&lint_ids)
            .position(|r| *r == id)
            .unwrap_or(0)
    };
    let mut out = Vec::new();
    for result in results {
        if let Some(report) = &result.report {
            for f in &report.findings {
                let mut location = location(&result.path, &f.file, f.line, f.column);
                if f.line > 0 && !f.excerpt.is_empty() {
                    location["physicalLocation"]["region"]["snippet"] =
                        json!({ "text": f.excerpt });
                }
                let related: Vec<Value> = f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let mut loc = location_of(&result.path, &r.file, r.line, 0);
                        loc["id"] = json!(i + 1);
                        loc["message"] = json!({ "text": r.excerpt });
                        loc
                    })
                    .collect();
                let mut entry = json!({
                    "ruleId": f.rule,
                    "ruleIndex": index_of(f.rule),
                    "level": severity_level(f.severity),
                    "message": { "text": f.message },
                    "locations": [location],
                    "partialFingerprints": { "hermesSkillScan/v1": f.fingerprint() },
                    "properties": {
                        "skill": result.name,
                        "category": f.category,
                        "severity": f.severity,
                        "baseSeverity": f.base_severity,
                        "context": f.context,
                    },
                });
                if !related.is_empty() {
                    entry["relatedLocations"] = Value::Array(related);
                }
                out.push(entry);
            }
        }
        for issue in &result.lint {
            out.push(json!({
                "ruleId": issue.rule,
                "ruleIndex": index_of(issue.rule),
                "level": lint_level(issue.level),
                "message": { "text": format!("{} (hint: {})", issue.message, issue.hint) },
                "locations": [location(&result.path, &issue.file, issue.line, 0)],
                "properties": { "skill": result.name },
            }));
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
                    "rules": rules,
                }
            },
            "results": out,
        }],
    })
}

fn guard_rule(id: &str) -> Option<Value> {
    let rule = catalogue::rule(id)?;
    Some(json!({
        "id": rule.id,
        "name": pascal(rule.id),
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": sentence(rule.why) },
        "help": { "text": format!("{} Run `hermes-skill-scan --explain {}` for details.", sentence(rule.fix), rule.id) },
        "defaultConfiguration": { "level": severity_level(rule.severity) },
        "properties": {
            "tags": ["security", rule.category.as_str()],
            "security-severity": security_severity(rule.severity),
            "precision": "medium",
        },
    }))
}

fn lint_rule(id: &str) -> Option<Value> {
    let rule = lint::rule(id)?;
    let level = rule.hermes.or(rule.agentskills).unwrap_or(Level::Warning);
    Some(json!({
        "id": rule.id,
        "name": pascal(rule.id),
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": sentence(rule.why) },
        "help": { "text": format!("{} Run `hermes-skill-scan --explain {}` for details.", sentence(rule.hint), rule.id) },
        "defaultConfiguration": { "level": lint_level(level) },
        "properties": { "tags": ["lint", "skill-format"] },
    }))
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

fn location(skill: &Path, file: &str, line: usize, column: usize) -> Value {
    location_of(skill, file, line, column)
}

fn location_of(skill: &Path, file: &str, line: usize, column: usize) -> Value {
    let path = if file == SKILL_DIR {
        skill.to_path_buf()
    } else {
        skill.join(file)
    };
    let mut physical = json!({ "artifactLocation": { "uri": uri(&path) } });
    if line > 0 {
        let mut region = json!({ "startLine": line });
        if column > 0 {
            region["startColumn"] = json!(column);
        }
        physical["region"] = region;
    }
    json!({ "physicalLocation": physical })
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
            .filter_map(|r| guard_rule(r.id))
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
    fn names() {
        assert_eq!(pascal("curl-pipe-shell"), "CurlPipeShell");
    }
}
