//! What `hermes-memory` prints: the entries of a store with what the scan and the duplicate
//! check say about them, the budgets, and tool results in words for a terminal. The JSON keys
//! are documented in `docs/formats.md`.

use serde::Serialize;
use serde_json::Value;

use super::Target;
use super::dedupe::{self, NearDuplicate};
use super::entries;
use super::store::MemoryStore;
use super::threat::{self, Scope};
use crate::io::format::Format;
use crate::io::output::Output;
use crate::io::pyjson::{self, Dumps};
use crate::io::sanitize::for_terminal;

/// `hermes-memory show`: per target, the entries and warnings (text), or the entry,
/// near-duplicate and target records (jsonl), or one object keyed by target (json).
pub fn print_show(
    out: &mut Output,
    format: Format,
    store: &MemoryStore,
    targets: &[Target],
) -> std::io::Result<()> {
    let views: Vec<TargetView> = targets.iter().map(|&t| TargetView::of(store, t)).collect();
    match format {
        Format::Text => views.iter().try_for_each(|v| out.raw(v.text().as_bytes())),
        Format::Jsonl => views
            .iter()
            .flat_map(TargetView::records)
            .try_for_each(|r| out.jsonl(&r)),
        Format::Json => out.json(&keyed(views.iter().map(|v| (v.usage.target, v)))),
    }
}

/// `hermes-memory usage`.
pub fn print_usage(
    out: &mut Output,
    format: Format,
    store: &MemoryStore,
    targets: &[Target],
) -> std::io::Result<()> {
    let rows: Vec<Usage> = targets.iter().map(|&t| Usage::of(store, t)).collect();
    match format {
        Format::Text => rows.iter().try_for_each(|u| out.line(&u.text())),
        Format::Jsonl => rows.iter().try_for_each(|u| out.jsonl(u)),
        Format::Json => out.json(&keyed(rows.iter().map(|u| (u.target, u)))),
    }
}

/// `hermes-memory show --snapshot`: the system-prompt part made of the `shown` targets'
/// blocks (text), or `{"memory": block|null, "user": block|null}` (json; jsonl adds
/// `"type":"snapshot"` first).
pub fn print_snapshot(
    out: &mut Output,
    format: Format,
    store: &MemoryStore,
    targets: &[Target],
    shown: impl Fn(Target) -> bool,
) -> std::io::Result<()> {
    let block = |t: Target| {
        store
            .snapshot()
            .block(t)
            .filter(|_| shown(t) && targets.contains(&t))
    };
    if format == Format::Text {
        let text = store.snapshot().prompt_part(
            block(Target::Memory).is_some(),
            block(Target::User).is_some(),
        );
        return if text.is_empty() {
            Ok(())
        } else {
            out.line(&text)
        };
    }
    let mut record = serde_json::Map::new();
    if format == Format::Jsonl {
        record.insert("type".into(), Value::from("snapshot"));
    }
    for &t in targets {
        record.insert(t.name().into(), block(t).map_or(Value::Null, Value::from));
    }
    match format {
        Format::Jsonl => out.jsonl(&record),
        _ => out.json(&record),
    }
}

/// Tool results: the exact bytes the model gets, one per line (jsonl); one indented value,
/// an array when there are several (json); in words (text).
pub fn print_results(out: &mut Output, format: Format, results: &[Value]) -> std::io::Result<()> {
    match format {
        Format::Jsonl => results
            .iter()
            .try_for_each(|r| out.line(&pyjson::tool_result(r))),
        // A refusal goes where every binary's refusals go in text: stderr, under its name.
        Format::Text => results.iter().try_for_each(|r| {
            if succeeded(r) {
                out.raw(result_text(r).as_bytes())
            } else {
                std::io::Write::flush(out)?;
                eprint!("hermes-memory: {}", result_text(r));
                Ok(())
            }
        }),
        Format::Json => {
            let pretty = Dumps {
                indent: Some(2),
                ensure_ascii: false,
                sort_keys: false,
            };
            let value = match results {
                [one] => one.clone(),
                many => Value::Array(many.to_vec()),
            };
            out.line(&pyjson::dumps(&value, pretty))
        }
    }
}

/// Whether a tool result is a success.
pub fn succeeded(result: &Value) -> bool {
    result.get("success").and_then(Value::as_bool) == Some(true)
}

fn keyed<'a, T: Serialize + 'a>(
    items: impl Iterator<Item = (&'static str, &'a T)>,
) -> serde_json::Map<String, Value> {
    items
        .map(|(k, v)| {
            (
                k.to_string(),
                serde_json::to_value(v).unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// One target's budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub target: &'static str,
    pub file: String,
    pub entry_count: usize,
    pub chars: usize,
    pub limit: i64,
    pub percent: i64,
    /// As in the tool's success answer: `"2% — 60/2,200 chars"`.
    pub usage: String,
    pub over_budget: bool,
}

impl Usage {
    pub fn of(store: &MemoryStore, target: Target) -> Usage {
        let chars = store.char_count(target);
        let limit = store.limit(target);
        Usage {
            kind: "usage",
            target: target.name(),
            file: store.path(target).display().to_string(),
            entry_count: store.entries(target).len(),
            chars,
            limit,
            percent: entries::percent(chars, limit),
            usage: entries::usage_line(chars, limit),
            over_budget: i64::try_from(chars).unwrap_or(i64::MAX) > limit,
        }
    }

    /// `memory  2% — 60/2,200 chars  3 entries`.
    pub fn text(&self) -> String {
        let entries = plural(self.entry_count, "entry", "entries");
        let over = if self.over_budget {
            "  OVER BUDGET"
        } else {
            ""
        };
        format!("{:<7} {}  {entries}{over}", self.target, self.usage)
    }
}

/// One entry as `show` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryView {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub target: &'static str,
    /// 1-based position in the file.
    pub index: usize,
    pub chars: usize,
    pub text: String,
    /// What the strict scan finds; non-empty means the prompt shows a `[BLOCKED: …]`
    /// placeholder instead of this entry.
    pub threats: Vec<String>,
}

/// Two entries that say nearly the same thing, 1-based.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NearDuplicateView {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub target: &'static str,
    pub first: usize,
    pub second: usize,
    pub similarity: f64,
    pub same_normalised: bool,
}

/// Everything `show` says about one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetView {
    #[serde(flatten)]
    pub usage: Usage,
    /// The file is one the memory tool could not have written; every write is refused until
    /// it is cleaned up.
    pub drift: bool,
    pub blocked: usize,
    pub entries: Vec<EntryView>,
    pub near_duplicates: Vec<NearDuplicateView>,
}

impl TargetView {
    pub fn of(store: &MemoryStore, target: Target) -> TargetView {
        let entries: Vec<EntryView> = store
            .entries(target)
            .iter()
            .enumerate()
            .map(|(i, text)| EntryView {
                kind: "entry",
                target: target.name(),
                index: i + 1,
                chars: text.chars().count(),
                text: text.clone(),
                threats: threat::scan(text, Scope::Strict)
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
            })
            .collect();
        let near_duplicates = dedupe::near_duplicates(store.entries(target))
            .into_iter()
            .map(
                |NearDuplicate {
                     first,
                     second,
                     similarity,
                     same_normalised,
                 }| NearDuplicateView {
                    kind: "near_duplicate",
                    target: target.name(),
                    first: first + 1,
                    second: second + 1,
                    similarity,
                    same_normalised,
                },
            )
            .collect();
        let mut usage = Usage::of(store, target);
        usage.kind = "target";
        TargetView {
            usage,
            drift: store.drifted(target),
            blocked: entries.iter().filter(|e| !e.threats.is_empty()).count(),
            entries,
            near_duplicates,
        }
    }

    /// The JSONL records: entries, near-duplicates, then the target's summary.
    pub fn records(&self) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        out.extend(
            self.entries
                .iter()
                .filter_map(|e| serde_json::to_value(e).ok()),
        );
        out.extend(
            self.near_duplicates
                .iter()
                .filter_map(|d| serde_json::to_value(d).ok()),
        );
        let summary = serde_json::json!({
            "type": "target",
            "target": self.usage.target,
            "file": self.usage.file,
            "entry_count": self.usage.entry_count,
            "chars": self.usage.chars,
            "limit": self.usage.limit,
            "percent": self.usage.percent,
            "usage": self.usage.usage,
            "over_budget": self.usage.over_budget,
            "drift": self.drift,
            "blocked": self.blocked,
            "near_duplicates": self.near_duplicates.len(),
        });
        out.push(summary);
        out
    }

    /// For a terminal: a header line, the numbered entries, then the warnings.
    pub fn text(&self) -> String {
        let mut out = format!(
            "{}  {}  {}",
            self.usage.file,
            self.usage.usage,
            plural(self.usage.entry_count, "entry", "entries")
        );
        out.push('\n');
        let width = self.entries.len().to_string().len();
        for entry in &self.entries {
            let marker = if entry.threats.is_empty() {
                String::new()
            } else {
                format!("[blocked in prompt: {}] ", entry.threats.join(", "))
            };
            let text = for_terminal(&entry.text);
            let indent = " ".repeat(width + 4);
            let body = text.replace('\n', &format!("\n{indent}"));
            out.push_str(&format!("  {:>width$}  {marker}{body}\n", entry.index));
        }
        if self.usage.over_budget {
            out.push_str(&format!(
                "  warning: over budget ({} of {} chars): every add is refused until entries are removed or shortened\n",
                crate::pytext::thousands(entries::count(self.usage.chars)),
                crate::pytext::thousands(self.usage.limit)
            ));
        }
        if self.drift {
            out.push_str(
                "  warning: drift: the file holds content the memory tool could not have written; \
                 writes are refused until it is rewritten as a clean §-delimited list\n",
            );
        }
        for dup in &self.near_duplicates {
            let how = if dup.same_normalised {
                "the same text up to case, spacing and punctuation".to_string()
            } else {
                format!("{}% of words shared", (dup.similarity * 100.0).round())
            };
            out.push_str(&format!(
                "  near-duplicate: {} and {} ({how}); merge them with `hermes-memory replace`\n",
                dup.first, dup.second
            ));
        }
        out
    }
}

/// A tool result in words: the message and usage, or the refusal with what the model would
/// see to fix it.
pub fn result_text(result: &Value) -> String {
    let field = |key: &str| result.get(key).and_then(Value::as_str);
    if result.get("success").and_then(Value::as_bool) == Some(true) {
        let message = field("message").unwrap_or("Done.");
        if result.get("staged").and_then(Value::as_bool) == Some(true) {
            return format!("{message}\n");
        }
        let count = result
            .get("entry_count")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        return format!(
            "{message}  ({}: {}, {})\n",
            field("target").unwrap_or("memory"),
            field("usage").unwrap_or(""),
            plural(
                usize::try_from(count).unwrap_or(usize::MAX),
                "entry",
                "entries"
            )
        );
    }
    let error = crate::io::sanitize::for_person(field("error").unwrap_or(""));
    let mut out = format!("refused: {}\n", for_terminal(&error));
    if let Some(backup) = field("drift_backup") {
        out.push_str(&format!("backup: {}\n", for_terminal(backup)));
    }
    for (key, title) in [
        ("matches", "matches"),
        ("current_entries", "current entries"),
    ] {
        if let Some(items) = result.get(key).and_then(Value::as_array) {
            let usage = field("usage")
                .map(|u| format!(" ({u} chars)"))
                .unwrap_or_default();
            out.push_str(&format!("{title}{usage}:\n"));
            for (i, item) in items.iter().enumerate() {
                let text = item.as_str().unwrap_or("");
                out.push_str(&format!(
                    "  {}  {}\n",
                    i + 1,
                    for_terminal(text).replace('\n', "\n     ")
                ));
            }
        }
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn success_and_refusal_in_words() {
        let ok = json!({"success": true, "done": true, "target": "user",
            "usage": "14% — 14/100 chars", "entry_count": 1, "message": "Entry added.",
            "note": "…"});
        assert_eq!(
            result_text(&ok),
            "Entry added.  (user: 14% — 14/100 chars, 1 entry)\n"
        );
        let refused = json!({"success": false, "error": "Multiple entries matched 'P'. Be more specific.",
            "matches": ["Project uses pytest", "Project\nuses uv"]});
        assert_eq!(
            result_text(&refused),
            "refused: Multiple entries matched 'P'. Be more specific.\nmatches:\n  1  Project uses pytest\n  2  Project\n     uses uv\n"
        );
    }
}
