//! `--explain RULE`: what a rule catches, why it matters, how context weighs it, how to fix
//! or suppress it.

use std::fmt::Write as _;

use super::catalogue;
use super::rule::{Detect, Domain, Rule};
use crate::skills::lint::{self, LintRule};

/// The explanation of a scanner or lint rule (`list`: every rule), or `None` for an unknown
/// id.
pub fn explain(id: &str) -> Option<String> {
    if id == "list" {
        return Some(list());
    }
    if let Some(rule) = catalogue::rule(id) {
        return Some(explain_rule(rule));
    }
    lint::rule(id).map(explain_lint)
}

/// `--explain list`: every rule id a finding can carry, scanner rules then lint rules, each
/// with its title, one a line (`id  title`), for `grep` and for picking what to explain.
pub fn list() -> String {
    let scanner = catalogue::rules()
        .iter()
        .filter(|r| r.report)
        .map(|r| (r.id, r.title));
    let lints = lint::RULES.iter().map(|r| (r.id, r.title));
    let rows: Vec<(&str, &str)> = scanner.chain(lints).collect();
    let width = rows.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (id, title) in rows {
        let _ = writeln!(out, "{id:width$}  {title}");
    }
    out
}

/// Rule ids that look like `id` (for the error message of an unknown one).
pub fn similar(id: &str) -> Vec<&'static str> {
    let lower = id.to_ascii_lowercase();
    let mut out: Vec<&'static str> = catalogue::rules()
        .iter()
        .filter(|r| r.report)
        .map(|r| r.id)
        .chain(lint::RULES.iter().map(|r| r.id))
        .filter(|candidate| {
            candidate.contains(&lower)
                || lower.contains(candidate)
                || lower
                    .split(['-', '_'])
                    .any(|w| w.len() > 3 && candidate.contains(w))
        })
        .collect();
    out.truncate(8);
    out
}

fn explain_rule(rule: &Rule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", rule.id, rule.title);
    let _ = writeln!(out, "  category:  {}", rule.category);
    let _ = writeln!(
        out,
        "  severity:  {} (before context weighting)",
        rule.severity
    );
    let _ = writeln!(out, "  weighing:  {}", weighing(rule.domain));
    if !rule.upstream.is_empty() {
        let _ = writeln!(
            out,
            "  upstream:  {} (Hermes 0.19.0 Skills Guard)",
            rule.upstream.join(", ")
        );
    }
    if !rule.report {
        let _ = writeln!(
            out,
            "  reported:  never alone; it is one half of a correlated pair"
        );
    }
    let required = catalogue::requires(rule.id);
    if !required.is_empty() {
        let _ = writeln!(
            out,
            "  prefilter: a line must also hold one of: {}",
            required.join(", ")
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Why: {}", rule.why);
    let _ = writeln!(out, "Fix: {}", rule.fix);
    if let Detect::Pattern { anchors, .. } = rule.detect
        && anchors.is_empty()
    {
        let _ = writeln!(
            out,
            "\nChecked over the whole text (no literal to anchor on)."
        );
    }
    if !rule.examples.is_empty() {
        let _ = writeln!(out, "\nMatches, for example:");
        for example in rule.examples {
            let _ = writeln!(out, "  {example}");
        }
    }
    if !rule.clean.is_empty() {
        let _ = writeln!(out, "\nDoes not match:");
        for clean in rule.clean {
            let _ = writeln!(out, "  {clean}");
        }
    }
    if !rule.shadowed_by.is_empty() {
        let _ = writeln!(
            out,
            "\nNot reported on a line where {} matches (the more specific finding).",
            rule.shadowed_by.join(" or ")
        );
    }
    let _ = writeln!(
        out,
        "\nSuppress, with a reason (honoured in your own repository; install decisions ignore it):\n  # hermes-scan: allow {} -- <why this is fine here>\n  <!-- hermes-scan: allow-file {} -- <why> -->",
        rule.id, rule.id
    );
    out
}

fn weighing(domain: Domain) -> &'static str {
    match domain {
        Domain::Command => {
            "a command, weighed by intent: full weight wherever the agent can read it as an order (scripts, code blocks, inline code, list steps, prose, HTML comments, frontmatter, link titles, alt text). Two levels lower only where the skill turns the agent away from it: a comment in a script; a block labelled as a bad example on its own line (`# BAD`, `❌`, `Pattern:`) or introduced by a label that forbids it (\"Bad:\", \"Never run this:\"); a sentence that negates it (\"never run …\") or only describes it with no order in it; a section about risks where nothing orders it run. A lead-in that merely sounds cautious (\"to avoid …\", \"instead of …\") lowers nothing. Test fixtures, changelogs and licenses: two levels lower"
        }
        Domain::Instruction => {
            "words to the agent, weighed by intent: full weight in prose, headings, list steps, code blocks, HTML comments, frontmatter, link titles and alt text. Lower when studied rather than ordered: attack vocabulary in the same sentence and no order of its own (two levels), negated (two), quoted (one; two in a table, a section about attacks, or framed as an example), a table row (one), a string in a program (two; one when the program prints it), a data file (one). Test fixtures, changelogs and licenses: two levels lower"
        }
        Domain::Markup => {
            "hidden markup: full weight where markdown renders; two levels lower inside code blocks and inline code"
        }
        Domain::Secret => {
            "key material: full weight anywhere; lower only in test fixtures or when labelled as an example"
        }
        Domain::Fact => {
            "a fact about the files: hidden characters are two levels lower only in test fixtures, changelogs and licenses; structure is never lowered"
        }
    }
}

fn explain_lint(rule: &LintRule) -> String {
    let mut out = String::new();
    let level = |l: Option<lint::Level>| l.map_or("not checked".to_string(), |l| l.to_string());
    let _ = writeln!(out, "{} — {} (lint)", rule.id, rule.title);
    let _ = writeln!(out, "  hermes profile:       {}", level(rule.hermes));
    let _ = writeln!(out, "  agentskills profile:  {}", level(rule.agentskills));
    let _ = writeln!(out);
    let _ = writeln!(out, "Why: {}", rule.why);
    let _ = writeln!(out, "Fix: {}", rule.hint);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explains_both_kinds() {
        let text = explain("curl-pipe-shell").expect("rule");
        assert!(text.starts_with("curl-pipe-shell — download piped into a shell\n"));
        assert!(text.contains("upstream:  curl_pipe_shell, wget_pipe_shell"));
        assert!(
            explain("description-not-string")
                .expect("lint")
                .contains("(lint)")
        );
        assert!(explain("nope").is_none());
        assert!(similar("curl").contains(&"curl-pipe-shell"));
    }

    #[test]
    fn list_names_each_reported_rule_once_and_each_explains() {
        let list = explain("list").expect("list");
        let ids: Vec<&str> = list
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let reported = catalogue::rules().iter().filter(|r| r.report).count();
        assert_eq!(ids.len(), reported + lint::RULES.len());
        let unique: std::collections::BTreeSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        assert!(ids.iter().all(|id| explain(id).is_some()));
        assert!(list.contains("curl-pipe-shell  ") || list.contains("curl-pipe-shell "));
    }
}
