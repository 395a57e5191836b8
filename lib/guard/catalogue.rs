//! The rule catalogue: every rule the scanner knows, compiled into the binary. Pattern rules
//! live in one file per category; built-in rules (structure, unicode, correlation,
//! suppressions) are listed here so that `--explain`, SARIF and suppressions know them too.

mod builtin;
mod credentials;
mod destructive;
mod execution;
mod exfiltration;
pub(crate) mod helpers;
mod injection;
mod mining;
mod network;
mod obfuscation;
mod persistence;
mod privilege;
mod supply_chain;
mod tampering;
mod traversal;

use std::sync::LazyLock;

use super::rule::{Detect, GateFn, Rule, Shape};

pub use builtin::{DISGUISE_CUES, FIRST_DECODE_CUE, ids};

/// Filler between the words of an instruction ("ignore *all of your* previous
/// instructions"): up to six words of any script, bounded so that the automaton stays small.
macro_rules! fill {
    () => {
        r"(?:\S+\s+){0,6}"
    };
}
pub(crate) use fill;

const fn pattern(anchors: &'static [&'static str], pattern: &'static str) -> Detect {
    Detect::Pattern {
        anchors,
        shape: None,
        pattern,
        case_sensitive: false,
        gate: None,
    }
}

const fn gated(anchors: &'static [&'static str], pattern: &'static str, gate: GateFn) -> Detect {
    Detect::Pattern {
        anchors,
        shape: None,
        pattern,
        case_sensitive: false,
        gate: Some(gate),
    }
}

const fn exact(
    anchors: &'static [&'static str],
    pattern: &'static str,
    gate: Option<GateFn>,
) -> Detect {
    Detect::Pattern {
        anchors,
        shape: None,
        pattern,
        case_sensitive: true,
        gate,
    }
}

const fn shaped(shape: Shape, pattern: &'static str, gate: GateFn) -> Detect {
    Detect::Pattern {
        anchors: &[],
        shape: Some(shape),
        pattern,
        case_sensitive: false,
        gate: Some(gate),
    }
}

static ALL: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let parts: [&[Rule]; 15] = [
        exfiltration::RULES,
        injection::RULES,
        destructive::RULES,
        persistence::RULES,
        network::RULES,
        obfuscation::RULES,
        execution::RULES,
        traversal::RULES,
        mining::RULES,
        supply_chain::RULES,
        privilege::RULES,
        credentials::RULES,
        tampering::RULES,
        builtin::RULES,
        builtin::SIGNALS,
    ];
    parts.concat()
});

/// Every rule, in catalogue order (the order findings of one line are reported in).
pub fn rules() -> &'static [Rule] {
    &ALL
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    rules().iter().find(|r| r.id == id)
}

/// Literals a line must hold one of before the rule named `id` runs on it, for rules
/// whose anchors are everyday words: each is in every match of the rule (tested).
pub fn requires(id: &str) -> &'static [&'static str] {
    match id {
        // The anchors are verbs of sending; what is sent must be a secret.
        "secret-send-instruction" => &[
            "credential",
            "private key",
            "ssh",
            "id_rsa",
            "id_ed25519",
            "api key",
            "api_key",
            "apikey",
            "token",
            "secret",
            "password",
            "cookie",
            "environment variable",
            "env var",
            ".env",
            "environ",
            "process.env",
            "keychain",
            "conversation",
            "chat history",
            "session log",
            ".aws",
            ".kube",
            ".gnupg",
            "wallet",
            "seed phrase",
            ".pem",
            ".key",
            "private",
            "netrc",
            "hosts.yml",
        ],
        "remote-code-instruction" => &[
            "run",
            "exec",
            "eval",
            "iex",
            "invoke-expression",
            "source",
            "pipe",
            "launch",
            "mshta",
            "follow",
            "obey",
            "what it says",
        ],
        "security-removal" => &[
            "delete",
            "remove",
            "uninstall",
            "disable",
            "empty",
            "clear",
            "wipe",
            "purge",
            "rm ",
            "every",
            "all",
        ],
        "destroy-instruction" => &[
            "everything",
            "every",
            "each",
            "entire",
            "whole",
            "/dev/",
            "history",
            "home",
            "documents",
            "desktop",
            "downloads",
            "photos",
            "pictures",
            " all",
            "\tall",
        ],
        "hide-from-user" => &["user", "human", "operator", "owner"],
        // Each literal below is in every match of its rule's pattern (read off the
        // pattern: a URL, a variable, a verb every branch ends with), so a line without one
        // cannot match and the rule's automaton need not run on it.
        "secret-in-request" => &["key", "token", "secret", "password", "passwd", "credential"],
        "remote-fetch" => &["://"],
        "markdown-link-exfil" => &["$", "{{", "%24%7b"],
        "markdown-image-exfil" => &["$", "{", "%24%7b"],
        "unpinned-pip-install" => &["install"],
        "package-from-url" => &["://", "-index-url", "--trusted-host"],
        "dns-exfil" => &["$"],
        "role-hijack" => &["now"],
        "hidden-html" => &["none", "hidden", "font-size", "opacity"],
        "translate-execute" => &["execute", "run", "eval", "follow", "obey"],
        "conversation-exfil" => &[
            "send",
            "share",
            "upload",
            "post",
            "forward",
            "transmit",
            "leak",
            "exfiltrate",
            "dump",
            "email",
        ],
        "secrets-file-read" => &[
            "cat",
            "less",
            "more",
            "head",
            "tail",
            "bat",
            "get-content",
            "gc",
        ],
        "image-beacon" => &[
            "$",
            "{",
            "%",
            "followed by",
            "append",
            "plus the",
            "value of",
            "contents of",
        ],
        "history-rewrite" => &["max-parents", "force", " -f"],
        "persistence-instruction" => &[
            "download",
            "fetch",
            "curl",
            "wget",
            "execut",
            "http",
            "authorized_keys",
            "logon",
            "login",
            "boot",
            "startup",
            "new shell",
        ],
        "agent-autonomy" => &[
            ".hermes/hooks",
            "approv",
            "allow",
            "accept",
            "hermes cron",
            "fetch",
            "download",
            "curl",
            "wget",
            "http",
            "hidden powershell",
        ],
        "skill-spread" => &[
            "append",
            "add",
            "insert",
            "copy",
            "write",
            "inject",
            "paste",
            "prepend",
            "put",
            ">>",
            "tee",
            "sed -i",
            "cp ",
            "cat ",
            "replace",
            "overwrite",
            "rewrite",
            "modify",
            "edit",
            "change",
            "update",
        ],
        "dns-leak-instruction" => &[
            "encode",
            "base64",
            "hex",
            "chunk",
            "at a time",
            "label",
            "subdomain",
        ],
        _ => &[],
    }
}

/// The index of a rule in [`rules`].
pub fn index_of(id: &str) -> Option<usize> {
    rules().iter().position(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::guard::rule::{Category, Domain};

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut seen = HashSet::new();
        for rule in rules() {
            assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
            assert!(
                rule.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                rule.id
            );
            assert!(!rule.title.is_empty(), "{} has no title", rule.id);
            assert!(!rule.why.is_empty(), "{} has no message", rule.id);
            assert!(!rule.fix.is_empty(), "{} has no fix", rule.id);
        }
    }

    #[test]
    fn shadowing_rules_exist() {
        for rule in rules() {
            for other in rule.shadowed_by {
                assert!(
                    rule_exists(other),
                    "{} shadowed by unknown {other}",
                    rule.id
                );
            }
        }
    }

    fn rule_exists(id: &str) -> bool {
        rule(id).is_some()
    }

    #[test]
    fn every_threat_category_has_rules() {
        for category in Category::ALL {
            assert!(
                rules().iter().any(|r| r.category == category && r.report),
                "no rule in {category}"
            );
        }
    }

    #[test]
    fn pattern_rules_have_examples_builtins_have_fact_or_signal() {
        for rule in rules() {
            match rule.detect {
                Detect::Pattern { .. } => assert!(
                    !rule.examples.is_empty(),
                    "{} needs at least one example",
                    rule.id
                ),
                Detect::Builtin => assert!(
                    rule.domain == Domain::Fact || !rule.report,
                    "{} is built in but not a fact",
                    rule.id
                ),
            }
        }
    }

    #[test]
    fn required_literals_are_in_every_example() {
        for rule in rules() {
            let required = requires(rule.id);
            for example in rule.examples.iter().filter(|_| !required.is_empty()) {
                let lower = example.to_ascii_lowercase();
                assert!(
                    required.iter().any(|r| lower.contains(r)),
                    "{}: {example:?} holds none of its required literals",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn every_upstream_pattern_is_covered() {
        // The 121 regexes and 8 structural checks of Hermes 0.19.0's Skills Guard; each must
        // be covered by a rule of ours or be a documented omission.
        const DROPPED: &[&str] = &["allowed_tools_field"];
        let upstream = include_str!("catalogue/upstream_ids.txt");
        let covered: HashSet<&str> = rules()
            .iter()
            .flat_map(|r| r.upstream.iter().copied())
            .collect();
        let mut missing = Vec::new();
        for id in upstream.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if !covered.contains(id) && !DROPPED.contains(&id) {
                missing.push(id);
            }
        }
        assert!(missing.is_empty(), "upstream ids not covered: {missing:?}");
        assert_eq!(
            upstream.lines().filter(|l| !l.trim().is_empty()).count(),
            129
        );
    }
}
