//! Printing results: JSONL records, one JSON document, and text for people. Keys and their
//! order are the contract of `docs/formats.md`.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Value, json};

use super::batch::{SkillResult, Summary};
use super::finding::Finding;
use super::policy::{Install, Trust, Verdict};
use super::rule::Severity;
use crate::io::sanitize::for_terminal;
use crate::skills::lint::{Issue, Level};

/// A finding record.
pub fn finding_record(result: &SkillResult, finding: &Finding) -> Value {
    json!({
        "type": "finding",
        "skill": result.name,
        "path": result.path.display().to_string(),
        "file": finding.file,
        "line": finding.line,
        "rule": finding.rule,
        "category": finding.category,
        "severity": finding.severity,
        "message": finding.message,
        "excerpt": finding.excerpt,
        "column": finding.column,
        "context": finding.context,
        "base_severity": finding.base_severity,
        "notes": finding.notes,
        "related": finding.related,
        "fingerprint": finding.fingerprint(),
    })
}

/// A lint record.
pub fn lint_record(result: &SkillResult, issue: &Issue) -> Value {
    json!({
        "type": "lint",
        "skill": result.name,
        "path": result.path.display().to_string(),
        "file": issue.file,
        "line": issue.line,
        "rule": issue.rule,
        "level": issue.level,
        "message": issue.message,
        "hint": issue.hint,
    })
}

/// A skill record. With `--lint-only` the verdict, install and finding keys are null.
/// Typed rather than built as a map: one per skill.
#[derive(Debug, Serialize)]
pub struct SkillRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    skill: &'a str,
    path: String,
    verdict: Option<Verdict>,
    trust: Trust,
    install: Option<Install>,
    findings: Option<usize>,
    lint_errors: usize,
    lint_warnings: usize,
    install_verdict: Option<Verdict>,
    suppressed: usize,
    baselined: usize,
    files: usize,
    bytes: u64,
}

pub fn skill_record(result: &SkillResult, trust: Trust) -> SkillRecord<'_> {
    let report = result.report.as_ref();
    SkillRecord {
        kind: "skill",
        skill: &result.name,
        path: result.path.display().to_string(),
        verdict: report.map(|r| r.verdict),
        trust,
        install: report.map(|r| r.install()),
        findings: report.map(|r| r.findings.len()),
        lint_errors: result.lint_count(Level::Error),
        lint_warnings: result.lint_count(Level::Warning),
        install_verdict: report.map(|r| r.install_verdict),
        suppressed: report.map_or(0, |r| r.suppressed.len()),
        baselined: result.baselined,
        files: report.map_or(0, |r| r.files),
        bytes: report.map_or(0, |r| r.bytes),
    }
}

/// The summary record.
pub fn summary_record(summary: &Summary) -> Value {
    json!({
        "type": "summary",
        "skills": summary.skills,
        "safe": summary.safe,
        "caution": summary.caution,
        "dangerous": summary.dangerous,
        "files": summary.files,
        "bytes": summary.bytes,
        "seconds": round3(summary.seconds),
        "findings": summary.findings,
        "suppressed": summary.suppressed,
        "baselined": summary.baselined,
        "lint_errors": summary.lint_errors,
        "lint_warnings": summary.lint_warnings,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One skill's JSONL records, each line ended: its findings, its lint issues, then its
/// skill record. A run's output is these in the order of the skills, then the summary;
/// being one skill's alone, they are rendered on the thread that scanned it.
pub fn skill_jsonl(result: &SkillResult, trust: Trust) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(512);
    let findings = result.report.iter().flat_map(|r| &r.findings);
    for finding in findings {
        serde_json::to_writer(&mut out, &finding_record(result, finding))?;
        out.push(b'\n');
    }
    for issue in &result.lint {
        serde_json::to_writer(&mut out, &lint_record(result, issue))?;
        out.push(b'\n');
    }
    serde_json::to_writer(&mut out, &skill_record(result, trust))?;
    out.push(b'\n');
    Ok(out)
}

/// The `--format json` document: one object per skill with its findings and lint issues
/// as lists, then the summary.
pub fn document(results: &[SkillResult], summary: &Summary, trust: Trust) -> Value {
    let skills: Vec<Value> = results
        .iter()
        .map(|result| {
            let report = result.report.as_ref();
            let findings: Vec<Value> = report
                .iter()
                .flat_map(|r| &r.findings)
                .map(|f| strip(finding_record(result, f)))
                .collect();
            let lint: Vec<Value> = result
                .lint
                .iter()
                .map(|i| strip(lint_record(result, i)))
                .collect();
            json!({
                "skill": result.name,
                "path": result.path.display().to_string(),
                "verdict": report.map(|r| r.verdict),
                "trust": trust,
                "install": report.map(|r| r.install()),
                "install_verdict": report.map(|r| r.install_verdict),
                "findings": findings,
                "lint": lint,
                "lint_errors": result.lint_count(Level::Error),
                "lint_warnings": result.lint_count(Level::Warning),
                "suppressed": report.map_or(0, |r| r.suppressed.len()),
                "baselined": result.baselined,
                "files": report.map_or(0, |r| r.files),
                "bytes": report.map_or(0, |r| r.bytes),
            })
        })
        .collect();
    let mut summary = summary_record(summary);
    if let Some(map) = summary.as_object_mut() {
        map.remove("type");
    }
    json!({ "skills": skills, "summary": summary })
}

/// A nested record without the keys its parent already has.
fn strip(mut record: Value) -> Value {
    if let Some(map) = record.as_object_mut() {
        for key in ["type", "skill", "path"] {
            map.remove(key);
        }
    }
    record
}

/// ANSI styles, or nothing without colour.
struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn severity(&self, severity: Severity) -> String {
        let text = format!("{:<8}", severity.as_str());
        match severity {
            Severity::Critical => self.wrap("1;31", &text),
            Severity::High => self.wrap("31", &text),
            Severity::Medium => self.wrap("33", &text),
            Severity::Low => self.wrap("2", &text),
        }
    }

    fn level(&self, level: Level) -> String {
        let text = format!("{:<8}", level.as_str());
        match level {
            Level::Error => self.wrap("35", &text),
            Level::Warning => self.wrap("36", &text),
        }
    }
}

/// Text for people: only skills with something to say, grouped, then one summary line.
pub fn text(
    out: &mut dyn Write,
    results: &[SkillResult],
    summary: &Summary,
    trust: Trust,
    color: bool,
) -> io::Result<()> {
    let paint = Paint { on: color };
    for result in results {
        let findings: &[Finding] = result.report.as_ref().map_or(&[], |r| &r.findings);
        if findings.is_empty() && result.lint.is_empty() {
            continue;
        }
        let name = for_terminal(&result.name);
        let path = result.path.display().to_string();
        let head = match &result.report {
            Some(report) => {
                let verdict = report.verdict.as_str().to_uppercase();
                let verdict = match report.verdict {
                    super::policy::Verdict::Dangerous => paint.wrap("1;31", &verdict),
                    super::policy::Verdict::Caution => paint.wrap("33", &verdict),
                    super::policy::Verdict::Safe => paint.wrap("32", &verdict),
                };
                format!(
                    "{} ({name})  {verdict}  install: {} ({trust})",
                    for_terminal(&path),
                    report.install()
                )
            }
            None => format!("{} ({name})", for_terminal(&path)),
        };
        writeln!(out, "{}", paint.wrap("1", &head))?;
        for f in findings {
            let at = if f.line > 0 {
                format!("{}:{}", f.file, f.line)
            } else {
                f.file.clone()
            };
            writeln!(
                out,
                "  {} {:<20} {:<28} {}",
                paint.severity(f.severity),
                f.category.as_str(),
                for_terminal(&at),
                f.rule
            )?;
            writeln!(out, "           {}", for_terminal(&f.message))?;
            if !f.excerpt.is_empty() {
                writeln!(
                    out,
                    "           {}",
                    paint.wrap("2", &format!("> {}", f.excerpt))
                )?;
            }
            for related in &f.related {
                writeln!(
                    out,
                    "           {}",
                    paint.wrap(
                        "2",
                        &format!(
                            "> {}:{}: {}",
                            for_terminal(&related.file),
                            related.line,
                            related.excerpt
                        )
                    )
                )?;
            }
        }
        for issue in &result.lint {
            let at = if issue.line > 0 {
                format!("{}:{}", issue.file, issue.line)
            } else {
                issue.file.clone()
            };
            writeln!(
                out,
                "  {} {:<20} {:<28} {}",
                paint.level(issue.level),
                "lint",
                for_terminal(&at),
                issue.rule
            )?;
            writeln!(out, "           {}", for_terminal(&issue.message))?;
            writeln!(
                out,
                "           {}",
                paint.wrap("2", &format!("hint: {}", issue.hint))
            )?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", summary_line(summary))
}

/// `1444 skills: 1442 safe, 1 caution, 1 dangerous; 12 findings, 3 lint errors, 5 lint warnings; 2350 files, 12.8 MB in 0.21 s`
pub fn summary_line(s: &Summary) -> String {
    let mut extra = String::new();
    if s.suppressed > 0 {
        extra.push_str(&format!(", {} suppressed", s.suppressed));
    }
    if s.baselined > 0 {
        extra.push_str(&format!(", {} in the baseline", s.baselined));
    }
    format!(
        "{}: {} safe, {} caution, {} dangerous; {}{extra}, {}, {}; {}, {:.1} MB in {:.2} s",
        count(s.skills, "skill"),
        s.safe,
        s.caution,
        s.dangerous,
        count(s.findings, "finding"),
        count(s.lint_errors, "lint error"),
        count(s.lint_warnings, "lint warning"),
        count(s.files, "file"),
        s.bytes as f64 / 1e6,
        s.seconds
    )
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
