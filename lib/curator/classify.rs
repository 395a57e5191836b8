//! Which skills a consolidation pass removed, and what became of each (reference `loop`
//! §4.9): consolidated into an umbrella, or pruned. Three sources, reconciled in upstream's
//! order: the model's `absorbed_into` declarations at delete, the YAML block of its final
//! summary, and an audit of its tool calls (the removed name in a destination's path
//! component, or as a whole word in the content it wrote).
//!
//! Unlike upstream, the audit reads the full arguments (upstream cuts them to 400 characters,
//! which makes large `create` calls undecodable), and a name that cannot be read is not
//! silently dropped from the audit.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

/// One recorded tool call: its name and its arguments as an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub arguments: Value,
}

/// What a pass did to the library.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Classification {
    pub removed: Vec<String>,
    pub added: Vec<String>,
    /// `{name, into, source, reason[, evidence][, model_claimed_into]}`
    pub consolidated: Vec<Value>,
    /// `{name, source, reason}`
    pub pruned: Vec<Value>,
}

impl Classification {
    /// `old name → umbrella`, for the cron rewrite.
    pub fn rename_map(&self) -> BTreeMap<String, String> {
        self.consolidated
            .iter()
            .filter_map(|c| {
                Some((
                    c["name"].as_str()?.to_string(),
                    c["into"].as_str()?.to_string(),
                ))
            })
            .collect()
    }

    pub fn pruned_names(&self) -> Vec<String> {
        self.pruned
            .iter()
            .filter_map(|p| p["name"].as_str().map(str::to_string))
            .collect()
    }
}

/// `_needle_in_path_component`: some `/`-separated component of `path`, without its last
/// extension and with `-` as `_`, equals the needle with `-` as `_`.
pub fn needle_in_path(needle: &str, path: &str) -> bool {
    let want = needle.replace('-', "_");
    path.replace('\\', "/").split('/').any(|component| {
        let stem = match component.rfind('.') {
            Some(i) if i > 0 => &component[..i],
            _ => component,
        };
        stem.replace('-', "_") == want
    })
}

/// `\bneedle\b` as Python's `re` means it: word characters are letters, digits and `_`.
pub fn has_word(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let word_start = needle.chars().next().is_some_and(is_word);
    let word_end = needle.chars().last().is_some_and(is_word);
    // Every occurrence is tried, overlapping ones too, as `re.search` tries every position:
    // `a-a` in `xa-a-a` is not a word at 1 but is at 3.
    hay.char_indices()
        .filter(|&(start, _)| hay[start..].starts_with(needle))
        .any(|(start, _)| {
            let before = hay[..start].chars().next_back();
            let after = hay[start + needle.len()..].chars().next();
            let left = if word_start {
                before.is_none_or(|c| !is_word(c))
            } else {
                before.is_some_and(is_word)
            };
            let right = if word_end {
                after.is_none_or(|c| !is_word(c))
            } else {
                after.is_some_and(is_word)
            };
            left && right
        })
}

/// The audit: for a removed skill, the first `skill_manage` call on a destination that
/// mentions it. `(into, evidence)`.
fn audit(name: &str, calls: &[Call], destinations: &BTreeSet<String>) -> Option<(String, String)> {
    let mut needles = vec![name.to_string()];
    for n in [name.replace('-', "_"), name.replace('_', "-")] {
        if !needles.contains(&n) {
            needles.push(n);
        }
    }
    for call in calls.iter().filter(|c| c.name == "skill_manage") {
        let Some(into) = call.arguments.get("name").and_then(Value::as_str) else {
            continue;
        };
        if into.is_empty() || into == name || !destinations.contains(into) {
            continue;
        }
        let action = call
            .arguments
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("?");
        for key in ["file_path", "file_content", "content", "new_string"] {
            let Some(hay) = call.arguments.get(key).and_then(Value::as_str) else {
                continue;
            };
            let hit = needles.iter().any(|n| {
                if key == "file_path" {
                    needle_in_path(n, hay)
                } else {
                    has_word(hay, n)
                }
            });
            if hit {
                let shown: String = hay.chars().take(80).collect();
                return Some((
                    into.to_string(),
                    format!(
                        "skill_manage action={action} on '{into}' referenced '{name}' in {shown}"
                    ),
                ));
            }
        }
    }
    None
}

/// The model's YAML block: `consolidations` (`from`, `into`, `reason`) and `prunings`
/// (`name`, `reason`). Anything unreadable is empty.
pub fn structured_summary(
    text: &str,
) -> (BTreeMap<String, (String, String)>, BTreeMap<String, String>) {
    let mut consolidations = BTreeMap::new();
    let mut prunings = BTreeMap::new();
    let lower = text.to_lowercase();
    let Some(open) = ["```yaml", "```yml"]
        .iter()
        .filter_map(|f| lower.find(f))
        .min()
    else {
        return (consolidations, prunings);
    };
    let after_fence = &text[open + 3..];
    let Some(newline) = after_fence.find('\n') else {
        return (consolidations, prunings);
    };
    // The opener may only be followed by whitespace on its line.
    let opener_rest = after_fence[..newline].trim_start_matches(|c: char| c.is_alphabetic());
    if !opener_rest.trim().is_empty() {
        return (consolidations, prunings);
    }
    // The body keeps the opener's newline, so that the closing fence of an empty block is
    // found by the same search (a leading blank line means nothing to YAML).
    let body = &after_fence[newline..];
    let Some(end) = body.find("\n```") else {
        return (consolidations, prunings);
    };
    let Ok(doc) = crate::yaml::load(&body[..end], "summary") else {
        return (consolidations, prunings);
    };
    let doc = doc.to_json();
    let text_of = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("")
            .to_string()
    };
    for c in doc
        .get("consolidations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (from, into) = (text_of(c, "from"), text_of(c, "into"));
        if !from.is_empty() && !into.is_empty() {
            consolidations.insert(from, (into, text_of(c, "reason")));
        }
    }
    for p in doc
        .get("prunings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = text_of(p, "name");
        if !name.is_empty() {
            prunings.insert(name, text_of(p, "reason"));
        }
    }
    (consolidations, prunings)
}

/// `absorbed_into` as declared at delete (later calls win).
pub fn declarations(calls: &[Call]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for call in calls.iter().filter(|c| c.name == "skill_manage") {
        let a = &call.arguments;
        if a.get("action").and_then(Value::as_str) != Some("delete") {
            continue;
        }
        let Some(name) = a
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if let Some(into) = a.get("absorbed_into").and_then(Value::as_str) {
            out.insert(name.to_string(), into.trim().to_string());
        }
    }
    out
}

/// Classifies the skills in `before` but not in `after`.
pub fn classify(
    before: &BTreeSet<String>,
    after: &BTreeSet<String>,
    calls: &[Call],
    final_text: &str,
) -> Classification {
    let removed: Vec<String> = before.difference(after).cloned().collect();
    let added: Vec<String> = after.difference(before).cloned().collect();
    let destinations: BTreeSet<String> = after.iter().cloned().collect();
    let (yaml_consolidations, yaml_prunings) = structured_summary(final_text);
    let declared = declarations(calls);
    let mut out = Classification {
        removed: removed.clone(),
        added,
        ..Classification::default()
    };
    for name in &removed {
        let heuristic = audit(name, calls, &destinations);
        let yaml_reason = |into: &str| {
            yaml_consolidations
                .get(name)
                .filter(|(i, _)| i == into)
                .map(|(_, r)| r.clone())
                .unwrap_or_default()
        };
        let entry = |into: &str, source: &str, reason: String, evidence: Option<&String>| {
            let mut v = json!({"name": name, "into": into, "source": source, "reason": reason});
            if let Some(e) = evidence {
                v["evidence"] = json!(e);
            }
            v
        };
        if let Some(into) = declared.get(name) {
            if !into.is_empty() && destinations.contains(into) {
                let v = entry(
                    into,
                    "absorbed_into (model-declared at delete)",
                    yaml_reason(into),
                    heuristic.as_ref().map(|h| &h.1),
                );
                out.consolidated.push(v);
                continue;
            }
            if into.is_empty() {
                out.pruned.push(json!({"name": name,
                    "source": "absorbed_into=\"\" (model-declared prune)",
                    "reason": yaml_prunings.get(name).cloned().unwrap_or_default()}));
                continue;
            }
        }
        if let Some((into, reason)) = yaml_consolidations.get(name) {
            if destinations.contains(into) {
                let source = if heuristic.is_some() {
                    "model+audit"
                } else {
                    "model"
                };
                let v = entry(
                    into,
                    source,
                    reason.clone(),
                    heuristic.as_ref().map(|h| &h.1),
                );
                out.consolidated.push(v);
                continue;
            }
            match &heuristic {
                Some((found, evidence)) => {
                    let mut v = entry(
                        found,
                        "tool-call audit (model named missing umbrella)",
                        String::new(),
                        Some(evidence),
                    );
                    v["model_claimed_into"] = json!(into);
                    out.consolidated.push(v);
                }
                None => out.pruned.push(json!({"name": name,
                    "source": "fallback (model named missing umbrella, no tool-call evidence)",
                    "reason": ""})),
            }
            continue;
        }
        if let Some((into, evidence)) = &heuristic {
            let v = entry(
                into,
                "tool-call audit (model omitted from structured block)",
                String::new(),
                Some(evidence),
            );
            out.consolidated.push(v);
            continue;
        }
        match yaml_prunings.get(name) {
            Some(reason) => out
                .pruned
                .push(json!({"name": name, "source": "model", "reason": reason})),
            None => out
                .pruned
                .push(json!({"name": name, "source": "no-evidence fallback", "reason": ""})),
        }
    }
    out
}

/// The rename summary printed after a run (empty when nothing was removed).
pub fn rename_summary(c: &Classification) -> String {
    let total = c.consolidated.len() + c.pruned.len();
    if total == 0 {
        return String::new();
    }
    let mut lines = vec![format!("archived {total} skill(s):")];
    let mut bullets: Vec<String> = c
        .consolidated
        .iter()
        .map(|v| {
            format!(
                "  • {} → {}",
                v["name"].as_str().unwrap_or(""),
                v["into"].as_str().unwrap_or("")
            )
        })
        .collect();
    bullets.extend(
        c.pruned
            .iter()
            .map(|v| format!("  • {} — pruned (stale)", v["name"].as_str().unwrap_or(""))),
    );
    lines.extend(bullets.iter().take(10).cloned());
    if total > 10 {
        lines.push(format!("  … and {} more", total - 10));
    }
    lines.push("full report: hermes-curate status".into());
    if let Some(first) = c
        .consolidated
        .iter()
        .filter_map(|v| v["into"].as_str())
        .min()
    {
        lines.push(format!(
            "keep an umbrella stable: hermes-curate pin {first}"
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: Value) -> Call {
        Call {
            name: "skill_manage".into(),
            arguments: args,
        }
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn path_components_and_word_boundaries() {
        assert!(!needle_in_path("api", "references/api-design.md"));
        assert!(needle_in_path(
            "open-webui-setup",
            "references/open_webui_setup.md"
        ));
        assert!(needle_in_path("api", "api/notes.txt"));
        assert!(has_word("merged docker-prune here", "docker-prune"));
        assert!(!has_word("the latest tests", "test"));
        assert!(has_word("a test.", "test"));
    }

    #[test]
    fn declarations_then_yaml_then_audit_then_fallback() {
        let before = set(&["docker-a", "docker-b", "docker-c", "old-notes", "stray"]);
        let after = set(&["docker"]);
        let calls = vec![
            call(
                json!({"action": "create", "name": "docker", "content": "## docker-c\nsee below"}),
            ),
            call(json!({"action": "delete", "name": "docker-a", "absorbed_into": "docker"})),
            call(json!({"action": "delete", "name": "old-notes", "absorbed_into": ""})),
        ];
        let text = "Done.\n```yaml\nconsolidations:\n  - from: docker-b\n    into: docker\n    reason: same tool\nprunings: []\n```\n";
        let c = classify(&before, &after, &calls, text);
        let sources: Vec<(&str, &str)> = c
            .consolidated
            .iter()
            .map(|v| (v["name"].as_str().unwrap(), v["source"].as_str().unwrap()))
            .collect();
        assert_eq!(
            sources,
            [
                ("docker-a", "absorbed_into (model-declared at delete)"),
                ("docker-b", "model"),
                (
                    "docker-c",
                    "tool-call audit (model omitted from structured block)"
                )
            ]
        );
        assert_eq!(c.consolidated[1]["reason"], "same tool");
        assert_eq!(
            c.pruned,
            [
                json!({"name": "old-notes", "source": "absorbed_into=\"\" (model-declared prune)", "reason": ""}),
                json!({"name": "stray", "source": "no-evidence fallback", "reason": ""})
            ]
        );
        assert_eq!(c.added, ["docker"]);
        assert_eq!(
            c.removed,
            ["docker-a", "docker-b", "docker-c", "old-notes", "stray"]
        );
        assert_eq!(
            rename_summary(&c),
            "archived 5 skill(s):\n  • docker-a → docker\n  • docker-b → docker\n  • docker-c → docker\n  • old-notes — pruned (stale)\n  • stray — pruned (stale)\nfull report: hermes-curate status\nkeep an umbrella stable: hermes-curate pin docker"
        );
    }

    #[test]
    fn path_components_drop_one_extension_but_never_a_leading_dot() {
        assert!(needle_in_path(".env", "config/.env"));
        assert!(!needle_in_path("notes", "a\\b\\notes.tar.gz"));
        assert!(needle_in_path("notes.tar", "a\\b\\notes.tar.gz"));
        assert!(needle_in_path("docker-c", "references/docker_c.md"));
        assert!(!needle_in_path("docker-c", "references/docker_cx.md"));
    }

    #[test]
    fn word_boundaries_are_pythons() {
        // Underscore is a word character, a hyphen is not.
        assert!(!has_word("my_test here", "test"));
        assert!(!has_word("test_it", "test"));
        assert!(has_word("pre-test", "test"));
        // A later occurrence is found after an earlier one that is not a word.
        assert!(has_word("tests test", "test"));
        assert!(has_word("é-test é", "test"));
        // `\b` before a non-word first character needs a word character before it.
        assert!(has_word("a-x", "-x"));
        assert!(!has_word(" -x", "-x"));
        assert!(!has_word("-x", "-x"));
        assert!(has_word("x-a", "x-"));
        assert!(!has_word("x- a", "x-"));
        assert!(!has_word("anything", ""));
        // Overlapping occurrences: the second one is a whole word (Python finds it too).
        assert!(has_word("xa-a-a", "a-a"));
    }

    /// The audit skips other tools, nameless calls, calls on the removed skill itself and
    /// on skills that are not in the library after the pass; it matches a path component
    /// in `file_path` and a whole word elsewhere, under `-`/`_` spellings; first hit wins.
    #[test]
    fn the_audit_reads_destinations_only() {
        let dest = set(&["", "docker", "other"]);
        let tool = |name: &str, args: Value| Call {
            name: name.into(),
            arguments: args,
        };
        let calls = vec![
            tool(
                "write_file",
                json!({"name": "docker", "content": "open_webui"}),
            ),
            call(json!({"action": "patch", "content": "open_webui"})),
            call(json!({"action": "patch", "name": "", "content": "open_webui"})),
            call(json!({"action": "patch", "name": "ghost", "content": "open_webui"})),
            call(json!({"action": "patch", "name": "open-webui", "content": "open_webui"})),
            call(
                json!({"name": "docker", "file_path": "references/open-webui-setup.md",
                "new_string": "x"}),
            ),
            call(json!({"action": "edit", "name": "docker",
                "file_path": "references/open_webui/notes.md"})),
            call(json!({"action": "patch", "name": "other", "content": "open_webui"})),
        ];
        assert_eq!(
            audit("open-webui", &calls, &dest),
            Some((
                "docker".into(),
                "skill_manage action=edit on 'docker' referenced 'open-webui' in references/open_webui/notes.md".into()
            ))
        );
        // A file path is not searched for words, content is not split into components.
        let calls = vec![
            call(json!({"action": "write_file", "name": "docker",
                "file_path": "references/api-design.md"})),
            call(json!({"action": "create", "name": "other",
                "content": "see api-design", "file_content": "x"})),
        ];
        let long = "x".repeat(100);
        assert_eq!(
            audit("api", &calls, &dest),
            Some((
                "other".into(),
                "skill_manage action=create on 'other' referenced 'api' in see api-design".into()
            ))
        );
        let calls = vec![call(
            json!({"name": "docker", "file_content": format!("docker_b {long}")}),
        )];
        assert_eq!(
            audit("docker-b", &calls, &dest),
            Some((
                "docker".into(),
                format!(
                    "skill_manage action=? on 'docker' referenced 'docker-b' in docker_b {}",
                    &long[..71]
                )
            ))
        );
        assert_eq!(
            audit("docker_b", &calls, &dest).map(|h| h.0),
            Some("docker".into())
        );
        assert_eq!(audit("stray", &calls, &dest), None);
    }

    #[test]
    fn the_summary_block_is_read_from_the_first_yaml_fence() {
        let (c, p) = structured_summary(
            "Intro\n```YML  \nconsolidations:\n  - from: ' a '\n    into: ' b '\n    reason: ' why '\n  - from: c\n    into: ''\n  - from: ''\n    into: d\n  - into: e\n  - from: f\n    into: g\nprunings:\n  - name: old\n    reason: stale\n  - name: ' '\n    reason: blank\n  - name: bare\n```\n```yaml\nprunings:\n  - name: later\n```\n",
        );
        assert_eq!(
            c,
            BTreeMap::from([
                ("a".to_string(), ("b".to_string(), "why".to_string())),
                ("f".to_string(), ("g".to_string(), String::new())),
            ])
        );
        assert_eq!(
            p,
            BTreeMap::from([
                ("bare".to_string(), String::new()),
                ("old".to_string(), "stale".to_string()),
            ])
        );
        let none = (BTreeMap::new(), BTreeMap::new());
        for text in [
            "no fence",
            "```yaml",
            "```yaml x\nprunings:\n  - name: a\n```",
            "```yaml\nprunings:\n  - name: a\n",
            "```yaml\nprunings: [\n```",
        ] {
            assert_eq!(structured_summary(text), none, "{text}");
        }
        assert_eq!(structured_summary("```yaml\n```"), none);
        assert_eq!(
            structured_summary("```yaml\nprunings:\n  - name: a\n```").1,
            BTreeMap::from([("a".to_string(), String::new())])
        );
    }

    #[test]
    fn declarations_are_deletes_with_absorbed_into_later_ones_winning() {
        let calls = vec![
            call(json!({"action": "delete", "name": " a ", "absorbed_into": " x "})),
            call(json!({"action": "delete", "name": "a", "absorbed_into": "y"})),
            call(json!({"action": "patch", "name": "b", "absorbed_into": "x"})),
            call(json!({"action": "delete", "name": "  ", "absorbed_into": "x"})),
            call(json!({"action": "delete", "name": "c"})),
            call(json!({"action": "delete", "name": "d", "absorbed_into": 3})),
            call(json!({"action": "delete", "name": "e", "absorbed_into": ""})),
            Call {
                name: "other_tool".into(),
                arguments: json!({"action": "delete", "name": "f", "absorbed_into": "x"}),
            },
        ];
        assert_eq!(
            declarations(&calls),
            BTreeMap::from([
                ("a".to_string(), "y".to_string()),
                ("e".to_string(), String::new()),
            ])
        );
    }

    /// Rules 1 to 6 of reference `loop` §4.9, each on its own removed skill.
    #[test]
    fn every_reconciliation_rule() {
        let before = set(&[
            "both",
            "declared",
            "forgotten",
            "found",
            "lost",
            "misdeclared",
            "overruled",
            "umbrella",
        ]);
        let after = set(&["umbrella", "new-one"]);
        let calls = vec![
            call(json!({"action": "delete", "name": "declared", "absorbed_into": "umbrella"})),
            call(json!({"action": "delete", "name": "misdeclared", "absorbed_into": "ghost"})),
            call(json!({"action": "patch", "name": "umbrella",
                "content": "both found overruled declared"})),
        ];
        let text = "```yaml\nconsolidations:\n  - from: declared\n    into: umbrella\n    reason: r1\n  - from: misdeclared\n    into: umbrella\n    reason: r2\n  - from: both\n    into: umbrella\n    reason: r3\n  - from: lost\n    into: ghost\n    reason: r4\n  - from: found\n    into: ghost\nprunings:\n  - name: overruled\n    reason: r5\n  - name: forgotten\n    reason: r6\n```";
        let c = classify(&before, &after, &calls, text);
        let ev = |name: &str| {
            format!(
                "skill_manage action=patch on 'umbrella' referenced '{name}' in both found overruled declared"
            )
        };
        assert_eq!(
            c.consolidated,
            [
                json!({"name": "both", "into": "umbrella", "source": "model+audit",
                    "reason": "r3", "evidence": ev("both")}),
                json!({"name": "declared", "into": "umbrella",
                    "source": "absorbed_into (model-declared at delete)", "reason": "r1",
                    "evidence": ev("declared")}),
                json!({"name": "found", "into": "umbrella",
                    "source": "tool-call audit (model named missing umbrella)", "reason": "",
                    "evidence": ev("found"), "model_claimed_into": "ghost"}),
                json!({"name": "misdeclared", "into": "umbrella", "source": "model",
                    "reason": "r2"}),
                json!({"name": "overruled", "into": "umbrella",
                    "source": "tool-call audit (model omitted from structured block)",
                    "reason": "", "evidence": ev("overruled")}),
            ]
        );
        assert_eq!(
            c.pruned,
            [
                json!({"name": "forgotten", "source": "model", "reason": "r6"}),
                json!({"name": "lost",
                    "source": "fallback (model named missing umbrella, no tool-call evidence)",
                    "reason": ""}),
            ]
        );
        assert_eq!(c.added, ["new-one"]);
        assert_eq!(
            c.rename_map(),
            BTreeMap::from(
                ["both", "declared", "found", "misdeclared", "overruled"]
                    .map(|n| (n.to_string(), "umbrella".to_string()))
            )
        );
        assert_eq!(c.pruned_names(), ["forgotten", "lost"]);
    }

    /// A declared umbrella's reason comes from the YAML only when the YAML names the same
    /// umbrella; a declared prune takes the YAML pruning's reason.
    #[test]
    fn declared_entries_take_the_yaml_reason_of_the_same_target() {
        let before = set(&["a", "b", "c", "u", "v"]);
        let after = set(&["u", "v"]);
        let calls = vec![
            call(json!({"action": "delete", "name": "a", "absorbed_into": "u"})),
            call(json!({"action": "delete", "name": "b", "absorbed_into": "u"})),
            call(json!({"action": "delete", "name": "c", "absorbed_into": ""})),
        ];
        let text = "```yaml\nconsolidations:\n  - from: a\n    into: u\n    reason: same\n  - from: b\n    into: v\n    reason: other\nprunings:\n  - name: c\n    reason: stale\n```";
        let c = classify(&before, &after, &calls, text);
        assert_eq!(
            c.consolidated,
            [
                json!({"name": "a", "into": "u",
                    "source": "absorbed_into (model-declared at delete)", "reason": "same"}),
                json!({"name": "b", "into": "u",
                    "source": "absorbed_into (model-declared at delete)", "reason": ""}),
            ]
        );
        assert_eq!(
            c.pruned,
            [
                json!({"name": "c", "source": "absorbed_into=\"\" (model-declared prune)",
                "reason": "stale"})
            ]
        );
    }

    #[test]
    fn the_rename_summary_shows_ten_bullets() {
        let mut c = Classification::default();
        assert_eq!(rename_summary(&c), "");
        for n in 0..10 {
            c.pruned.push(json!({"name": format!("p{n}")}));
        }
        let ten = rename_summary(&c);
        assert_eq!(
            ten,
            "archived 10 skill(s):\n  • p0 — pruned (stale)\n  • p1 — pruned (stale)\n  • p2 — pruned (stale)\n  • p3 — pruned (stale)\n  • p4 — pruned (stale)\n  • p5 — pruned (stale)\n  • p6 — pruned (stale)\n  • p7 — pruned (stale)\n  • p8 — pruned (stale)\n  • p9 — pruned (stale)\nfull report: hermes-curate status"
        );
        c.consolidated.push(json!({"name": "z", "into": "zeta"}));
        c.consolidated.push(json!({"name": "y", "into": "alpha"}));
        assert_eq!(
            rename_summary(&c),
            "archived 12 skill(s):\n  • z → zeta\n  • y → alpha\n  • p0 — pruned (stale)\n  • p1 — pruned (stale)\n  • p2 — pruned (stale)\n  • p3 — pruned (stale)\n  • p4 — pruned (stale)\n  • p5 — pruned (stale)\n  • p6 — pruned (stale)\n  • p7 — pruned (stale)\n  … and 2 more\nfull report: hermes-curate status\nkeep an umbrella stable: hermes-curate pin alpha"
        );
    }
}
