//! Suppressions written in the skill's own files, each with a required reason:
//!
//! ```text
//! curl -fsSL https://sh.rustup.rs | sh   # hermes-scan: allow curl-pipe-shell -- rustup's installer
//! <!-- hermes-scan: allow-file sudo -- this skill administers servers -->
//! # hermes-scan: fixture -- sample payloads for the detector's tests
//! ```
//!
//! `allow` covers its own line, and the next line when the comment stands alone on its line;
//! `allow-file` covers the file; `fixture` declares the file a test fixture (findings are
//! lowered, not hidden). A directive without a reason, or naming an unknown rule, is itself
//! reported and has no effect. They are the repository owner's word, so they count for CI
//! verdicts but never for install decisions (see `scan`).

use super::catalogue;
use super::lines::Lines;

/// The marker every directive starts with.
pub const MARKER: &str = "hermes-scan:";

/// A problem with a directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    MissingReason,
    UnknownRule(String),
    UnknownDirective(String),
}

/// The directives of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directives {
    /// (rule, reason) covering the whole file.
    pub file: Vec<(String, String)>,
    /// (0-based line, rule, reason).
    pub lines: Vec<(usize, String, String)>,
    /// The reason a file is declared a fixture.
    pub fixture: Option<String>,
    /// (0-based line, problem).
    pub problems: Vec<(usize, Problem)>,
}

impl Directives {
    /// Whether a finding of `rule` on 0-based `line` is suppressed; the reason if so.
    pub fn allows(&self, rule: &str, line: Option<usize>) -> Option<&str> {
        self.file
            .iter()
            .find(|(r, _)| r == rule)
            .map(|(_, why)| why.as_str())
            .or_else(|| {
                let line = line?;
                self.lines
                    .iter()
                    .find(|(l, r, _)| *l == line && r == rule)
                    .map(|(_, _, why)| why.as_str())
            })
    }
}

/// Parses every directive of `text`.
pub fn parse(text: &str, lines: &Lines) -> Directives {
    let mut out = Directives::default();
    if memchr::memmem::find(text.as_bytes(), MARKER.as_bytes()).is_none() {
        return out;
    }
    let all: Vec<&str> = lines.iter(text).collect();
    for (index, line) in all.iter().enumerate() {
        let Some(at) = line.find(MARKER) else {
            continue;
        };
        let standalone = is_comment_leader(&line[..at]);
        let rest = strip_comment_close(line[at + MARKER.len()..].trim());
        let (head, reason) = match rest.split_once("--") {
            Some((head, reason)) => (head.trim(), reason.trim()),
            None => (rest.trim(), ""),
        };
        let mut words = head
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty());
        let verb = words.next().unwrap_or("");
        let rules: Vec<&str> = words.collect();
        if !matches!(verb, "allow" | "allow-file" | "fixture") {
            out.problems
                .push((index, Problem::UnknownDirective(verb.to_string())));
            continue;
        }
        if reason.is_empty() {
            out.problems.push((index, Problem::MissingReason));
            continue;
        }
        if verb == "fixture" {
            out.fixture = Some(reason.to_string());
            continue;
        }
        for rule in rules {
            if catalogue::rule(rule).is_none() {
                out.problems
                    .push((index, Problem::UnknownRule(rule.to_string())));
                continue;
            }
            if verb == "allow-file" {
                out.file.push((rule.to_string(), reason.to_string()));
                continue;
            }
            out.lines
                .push((index, rule.to_string(), reason.to_string()));
            if standalone
                && let Some(next) = (index + 1..all.len()).find(|&i| !all[i].trim().is_empty())
            {
                out.lines.push((next, rule.to_string(), reason.to_string()));
            }
        }
    }
    out
}

/// Whether the text before a directive is only a comment opener, so that the comment stands
/// alone on its line and speaks about the next one.
fn is_comment_leader(before: &str) -> bool {
    let t = before.trim();
    t.is_empty() || ["#", "//", "<!--", "--", ";", "/*", "*", "REM"].contains(&t)
}

fn strip_comment_close(text: &str) -> &str {
    text.trim_end()
        .trim_end_matches("-->")
        .trim_end_matches("*/")
        .trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Directives {
        parse(text, &Lines::new(text))
    }

    #[test]
    fn inline_and_standalone() {
        let d = parse_text(
            "sudo x # hermes-scan: allow sudo -- admin skill\n# hermes-scan: allow curl-pipe-shell, sudo -- vendor installer\n\ncurl x | sh\n",
        );
        assert_eq!(d.allows("sudo", Some(0)), Some("admin skill"));
        assert_eq!(
            d.allows("curl-pipe-shell", Some(3)),
            Some("vendor installer")
        );
        assert_eq!(d.allows("sudo", Some(3)), Some("vendor installer"));
        assert_eq!(d.allows("curl-pipe-shell", Some(0)), None);
        assert!(d.problems.is_empty());
    }

    #[test]
    fn file_level_and_fixture() {
        let d = parse_text(
            "<!-- hermes-scan: allow-file sudo -- administers servers -->\n<!-- hermes-scan: fixture -- detector samples -->\n",
        );
        assert_eq!(d.allows("sudo", Some(40)), Some("administers servers"));
        assert_eq!(d.allows("sudo", None), Some("administers servers"));
        assert_eq!(d.fixture.as_deref(), Some("detector samples"));
    }

    #[test]
    fn a_reason_is_required_and_rules_must_exist() {
        let d = parse_text(
            "x # hermes-scan: allow sudo\ny # hermes-scan: allow no-such-rule -- why\nz # hermes-scan: permit sudo -- why\n",
        );
        assert_eq!(d.allows("sudo", Some(0)), None);
        assert_eq!(
            d.problems,
            vec![
                (0, Problem::MissingReason),
                (1, Problem::UnknownRule("no-such-rule".into())),
                (2, Problem::UnknownDirective("permit".into())),
            ]
        );
    }
}
