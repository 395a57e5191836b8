//! What a rule is: an id that never changes, a category and severity, the kind of text it
//! is about (which decides how context weighs a match), and either a line pattern with the
//! literals that must appear for it to match, or a built-in check done in code.

use std::fmt;

use serde::Serialize;

/// How bad a finding is. Ordered: `Low < Medium < High < Critical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// `levels` steps less severe, never below `Low`.
    pub fn lowered(self, levels: u8) -> Severity {
        let rank = (self as u8).saturating_sub(levels);
        match rank {
            0 => Severity::Low,
            1 => Severity::Medium,
            2 => Severity::High,
            _ => Severity::Critical,
        }
    }

    /// One step more severe, capped at `Critical`.
    pub fn raised(self) -> Severity {
        match self {
            Severity::Low => Severity::Medium,
            Severity::Medium => Severity::High,
            Severity::High | Severity::Critical => Severity::Critical,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The twelve threat categories of Hermes's Skills Guard, `agent_tampering` of our own, and
/// `structural` for facts about the folder itself (sizes, binaries, symlinks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Exfiltration,
    Injection,
    Destructive,
    Persistence,
    Network,
    Obfuscation,
    Execution,
    Traversal,
    Mining,
    SupplyChain,
    PrivilegeEscalation,
    CredentialExposure,
    /// Attacks on the agent itself: its memory, config, skills, schedules and safeguards.
    AgentTampering,
    Structural,
}

impl Category {
    pub const ALL: [Category; 14] = [
        Category::Exfiltration,
        Category::Injection,
        Category::Destructive,
        Category::Persistence,
        Category::Network,
        Category::Obfuscation,
        Category::Execution,
        Category::Traversal,
        Category::Mining,
        Category::SupplyChain,
        Category::PrivilegeEscalation,
        Category::CredentialExposure,
        Category::AgentTampering,
        Category::Structural,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Exfiltration => "exfiltration",
            Category::Injection => "injection",
            Category::Destructive => "destructive",
            Category::Persistence => "persistence",
            Category::Network => "network",
            Category::Obfuscation => "obfuscation",
            Category::Execution => "execution",
            Category::Traversal => "traversal",
            Category::Mining => "mining",
            Category::SupplyChain => "supply_chain",
            Category::PrivilegeEscalation => "privilege_escalation",
            Category::CredentialExposure => "credential_exposure",
            Category::AgentTampering => "agent_tampering",
            Category::Structural => "structural",
        }
    }

    pub fn parse(text: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of text a rule is about. It decides how the place of a match weighs it: a shell
/// command is a threat in a code block and an explanation in prose, a prompt injection is the
/// reverse, a leaked key is a leak anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// Commands and code: count fully in scripts, code blocks and inline code, less in prose.
    Command,
    /// Words addressed to the agent: count fully in prose, less when shown as code or quoted.
    Instruction,
    /// Hidden markup (HTML comments, invisible divs, image URLs): counts where it renders.
    Markup,
    /// Key material: counts wherever it is, less only in declared fixtures.
    Secret,
    /// Facts about files and characters, checked in code; context does not apply.
    Fact,
}

impl Domain {
    pub fn as_str(self) -> &'static str {
        match self {
            Domain::Command => "command",
            Domain::Instruction => "instruction",
            Domain::Markup => "markup",
            Domain::Secret => "secret",
            Domain::Fact => "fact",
        }
    }
}

/// A half of a correlated pair: a rule that reads a secret, sends data out, decodes, runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    SecretRead,
    NetworkSend,
    Decode,
    Exec,
    Download,
    RunFile,
}

/// A candidate match handed to a rule's gate: the line and the span the pattern matched.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub line: &'a str,
    pub start: usize,
    pub end: usize,
    /// The line after, for rules whose evidence spans two lines (a PEM header and its body).
    pub next_line: Option<&'a str>,
}

impl<'a> Candidate<'a> {
    pub fn matched(&self) -> &'a str {
        &self.line[self.start..self.end]
    }

    pub fn before(&self) -> &'a str {
        &self.line[..self.start]
    }

    pub fn after(&self) -> &'a str {
        &self.line[self.end..]
    }
}

/// A gate's decision about a candidate match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Keep,
    /// Not what the rule is about (the `(?!…)` of a lookahead, a placeholder key).
    Drop,
    /// Real, but less severe by this many levels, for this reason.
    Lower(u8, &'static str),
}

/// Code that refines a pattern match: what a regex alone cannot say (lookaheads, entropy,
/// well-known hosts).
pub type GateFn = fn(&Candidate<'_>) -> Gate;

/// A shape with no literal to anchor on, found by a byte loop instead of a regex pass over
/// the whole text; the rule's regex then runs on the lines found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A run of at least this many base64 characters.
    Base64Run(usize),
    /// `a.b.c.d:port`.
    IpPort,
}

/// How a rule finds its matches.
#[derive(Debug, Clone, Copy)]
pub enum Detect {
    /// A regex matched line by line (never across lines). Every match contains one of
    /// `anchors` (ASCII case-insensitively): they are the aho-corasick prefilter, so lines
    /// without any anchor are never given to the regex. With no anchors, `shape` finds the
    /// candidate lines (or, without one, the regex runs over the whole text).
    Pattern {
        anchors: &'static [&'static str],
        shape: Option<Shape>,
        pattern: &'static str,
        case_sensitive: bool,
        gate: Option<GateFn>,
    },
    /// Checked in code (structure, unicode, correlation, suppressions).
    Builtin,
}

/// One rule of the catalogue.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable, kebab-case; used in suppressions, baselines, SARIF and `--explain`.
    pub id: &'static str,
    pub category: Category,
    pub severity: Severity,
    pub domain: Domain,
    /// What it detects, a few words (SARIF short description).
    pub title: &'static str,
    /// The finding's message: what was found and why it matters.
    pub why: &'static str,
    /// What to do instead.
    pub fix: &'static str,
    /// The Hermes 0.19.0 Skills Guard pattern ids this rule covers.
    pub upstream: &'static [&'static str],
    pub detect: Detect,
    /// The correlation role of a match, if any.
    pub signal: Option<Signal>,
    /// False for rules that only feed correlation and are never reported alone.
    pub report: bool,
    /// Rules that, matching the same line, make this one redundant (the generic `~/.ssh`
    /// mention when the line reads a private key).
    pub shadowed_by: &'static [&'static str],
    /// Lines it must match (unit-tested; shown by `--explain`).
    pub examples: &'static [&'static str],
    /// Lines it must not match (unit-tested).
    pub clean: &'static [&'static str],
}

impl Rule {
    /// A rule with the defaults most entries use; the catalogue overrides fields.
    pub const fn base(
        id: &'static str,
        category: Category,
        severity: Severity,
        domain: Domain,
    ) -> Rule {
        Rule {
            id,
            category,
            severity,
            domain,
            title: "",
            why: "",
            fix: "",
            upstream: &[],
            detect: Detect::Builtin,
            signal: None,
            report: true,
            shadowed_by: &[],
            examples: &[],
            clean: &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_steps() {
        assert_eq!(Severity::Critical.lowered(2), Severity::Medium);
        assert_eq!(Severity::Medium.lowered(5), Severity::Low);
        assert_eq!(Severity::High.raised(), Severity::Critical);
        assert_eq!(Severity::Critical.raised(), Severity::Critical);
        assert!(Severity::Low < Severity::Critical);
    }

    #[test]
    fn category_names_round_trip() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.as_str()), Some(c));
        }
        assert_eq!(
            Category::ALL.len() - 1,
            13,
            "twelve upstream threat categories and ours"
        );
    }
}
