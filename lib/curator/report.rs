//! The report of a run: `logs/curator/<YYYYMMDD-HHMMSS>[-N]/run.json` and `REPORT.md`, with
//! Hermes's keys and sections (`_write_run_report`, `_render_report_markdown`).
//!
//! Hermes diffs the library around the LLM pass only, so the skills its automatic pass
//! archived appear nowhere but in a counter. Here they do: `run.json` gains
//! `auto_archived` and `auto_state_changes` (after Hermes's keys, which keep their
//! meaning), and `REPORT.md` lists them under the auto-transitions.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_json::{Map, Value as Json, json};

use super::classify::Classification;
use super::rows::Row;
use super::transitions::{ArchivedSkill, Change, Counts};
use crate::clock;
use crate::io::pyjson::{Dumps, dumps};

/// What the LLM pass reported (`llm_meta`); without one, the "skipped" record.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmMeta {
    pub final_text: String,
    pub summary: String,
    pub model: String,
    pub provider: String,
    pub tool_calls: Vec<Json>,
    pub error: Option<String>,
}

impl LlmMeta {
    pub fn skipped(why: &str) -> LlmMeta {
        LlmMeta {
            final_text: String::new(),
            summary: format!("skipped ({why})"),
            model: String::new(),
            provider: String::new(),
            tool_calls: Vec::new(),
            error: None,
        }
    }
}

/// Everything a report says.
#[derive(Debug, Clone)]
pub struct RunReport<'a> {
    pub started_at: Timestamp,
    pub elapsed_seconds: f64,
    pub auto_counts: Counts,
    /// The rows before and after the LLM pass (both after the automatic transitions).
    pub before: &'a [Row],
    pub after: &'a [Row],
    pub llm: LlmMeta,
    pub auto_archived: &'a [ArchivedSkill],
    pub auto_changes: &'a [Change],
    pub skills_dir: &'a Path,
    /// What the consolidation pass removed and why, and the cron jobs it rewrote.
    pub classified: Option<&'a Classification>,
    pub cron_rewrites: Option<Json>,
}

/// Python's `round(x, 2)` for the durations we produce (never negative, never huge).
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl RunReport<'_> {
    /// `run.json`'s object, keys in Hermes's order, then ours.
    pub fn payload(&self) -> Json {
        let before: std::collections::BTreeMap<&str, &Row> =
            self.before.iter().map(|r| (r.name.as_str(), r)).collect();
        let after: std::collections::BTreeMap<&str, &Row> =
            self.after.iter().map(|r| (r.name.as_str(), r)).collect();
        let removed: Vec<&str> = before
            .keys()
            .filter(|n| !after.contains_key(*n))
            .copied()
            .collect();
        let added: Vec<&str> = after
            .keys()
            .filter(|n| !before.contains_key(*n))
            .copied()
            .collect();
        let mut transitions = Vec::new();
        for (name, row) in &after {
            let Some(old) = before.get(name) else {
                continue;
            };
            let (from, to) = (state_text(old), state_text(row));
            if let (Some(from), Some(to)) = (from, to)
                && from != to
            {
                transitions.push(json!({"name": name, "from": from, "to": to}));
            }
        }
        let mut tool_counts = Map::new();
        for call in &self.llm.tool_calls {
            let name = call
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or("unknown")
                .to_string();
            let n = tool_counts.get(&name).and_then(Json::as_u64).unwrap_or(0);
            tool_counts.insert(name, Json::from(n + 1));
        }
        let tool_total: u64 = tool_counts.values().filter_map(Json::as_u64).sum();
        let (nb, na) = (before.len() as i64, after.len() as i64);
        let mut p = Map::new();
        p.insert(
            "started_at".into(),
            Json::String(clock::isoformat(self.started_at)),
        );
        p.insert(
            "duration_seconds".into(),
            serde_json::Number::from_f64(round2(self.elapsed_seconds))
                .map_or(Json::Null, Json::Number),
        );
        p.insert("model".into(), Json::String(self.llm.model.clone()));
        p.insert("provider".into(), Json::String(self.llm.provider.clone()));
        p.insert("auto_transitions".into(), self.auto_counts.to_json());
        p.insert(
            "counts".into(),
            json!({
                "before": nb,
                "after": na,
                "delta": na - nb,
                "archived_this_run": removed.len(),
                "added_this_run": added.len(),
                "consolidated_this_run": self.classified.map_or(0, |c| c.consolidated.len()),
                "pruned_this_run": self.classified.map_or(0, |c| c.pruned.len()),
                "state_transitions": transitions.len(),
                "cron_jobs_rewritten": self.cron_rewrites.as_ref()
                    .and_then(|c| c.get("jobs_updated")).and_then(Json::as_u64).unwrap_or(0),
                "tool_calls_total": tool_total,
            }),
        );
        p.insert("tool_call_counts".into(), Json::Object(tool_counts));
        p.insert("archived".into(), json!(removed));
        let (consolidated, pruned, pruned_names) = match self.classified {
            Some(c) => (
                json!(c.consolidated),
                json!(c.pruned),
                json!(c.pruned_names()),
            ),
            None => (json!([]), json!([]), json!([])),
        };
        p.insert("consolidated".into(), consolidated);
        p.insert("pruned".into(), pruned);
        p.insert("pruned_names".into(), pruned_names);
        p.insert("added".into(), json!(added));
        p.insert("state_transitions".into(), Json::Array(transitions));
        p.insert(
            "cron_rewrites".into(),
            self.cron_rewrites
                .clone()
                .unwrap_or_else(|| json!({"rewrites": [], "jobs_updated": 0, "jobs_scanned": 0})),
        );
        p.insert(
            "llm_final".into(),
            Json::String(self.llm.final_text.clone()),
        );
        p.insert("llm_summary".into(), Json::String(self.llm.summary.clone()));
        p.insert(
            "llm_error".into(),
            self.llm.error.clone().map_or(Json::Null, Json::String),
        );
        p.insert(
            "tool_calls".into(),
            Json::Array(self.llm.tool_calls.clone()),
        );
        let archived: Vec<Json> = self
            .auto_archived
            .iter()
            .map(|a| {
                json!({
                    "name": a.name,
                    "archived_to": a.dest.strip_prefix(self.skills_dir).unwrap_or(&a.dest).display().to_string(),
                })
            })
            .collect();
        p.insert("auto_archived".into(), Json::Array(archived));
        let changes: Vec<Json> = self
            .auto_changes
            .iter()
            .filter(|c| c.to != crate::skills::usage::STATE_ARCHIVED)
            .map(|c| json!({"name": c.name, "from": c.from, "to": c.to}))
            .collect();
        p.insert("auto_state_changes".into(), Json::Array(changes));
        Json::Object(p)
    }

    /// Writes the report directory; returns its path.
    pub fn write(&self, logs: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(logs)?;
        let stamp = super::utc_stamp(self.started_at, "%Y%m%d-%H%M%S");
        let mut dir = logs.join(&stamp);
        let mut suffix = 1;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    suffix += 1;
                    dir = logs.join(format!("{stamp}-{suffix}"));
                }
                Err(e) => return Err(e),
            }
        }
        let payload = self.payload();
        let mut text = dumps(
            &payload,
            Dumps {
                indent: Some(2),
                ensure_ascii: false,
                sort_keys: false,
            },
        );
        text.push('\n');
        std::fs::write(dir.join("run.json"), text)?;
        std::fs::write(dir.join("REPORT.md"), render_markdown(&payload))?;
        Ok(dir)
    }
}

fn state_text(row: &Row) -> Option<String> {
    match row.record.get("state") {
        Some(Json::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

fn get_i64(v: &Json, key: &str) -> i64 {
    v.get(key).and_then(Json::as_i64).unwrap_or(0)
}

fn get_str<'a>(v: &'a Json, key: &str) -> &'a str {
    v.get(key).and_then(Json::as_str).unwrap_or("")
}

const SHOW: usize = 50;

/// `REPORT.md` from `run.json`'s payload.
pub fn render_markdown(p: &Json) -> String {
    let mut lines: Vec<String> = Vec::new();
    let started = get_str(p, "started_at");
    let duration = p
        .get("duration_seconds")
        .and_then(Json::as_f64)
        .unwrap_or(0.0);
    let whole = duration.trunc() as i64;
    let (mins, secs) = (whole.div_euclid(60), whole.rem_euclid(60));
    let dur = if mins != 0 {
        format!("{mins}m {secs}s")
    } else {
        format!("{secs}s")
    };
    lines.push(format!("# Curator run — {started}\n"));
    let model = Some(get_str(p, "model"))
        .filter(|s| !s.is_empty())
        .unwrap_or("(not resolved)");
    let provider = Some(get_str(p, "provider"))
        .filter(|s| !s.is_empty())
        .unwrap_or("(not resolved)");
    let null = Json::Null;
    let counts = p.get("counts").unwrap_or(&null);
    lines.push(format!(
        "Model: `{model}` via `{provider}`  ·  Duration: {dur}  ·  Agent-created skills: {} → {} ({:+})\n",
        get_i64(counts, "before"),
        get_i64(counts, "after"),
        get_i64(counts, "delta")
    ));
    let error = get_str(p, "llm_error");
    if !error.is_empty() {
        lines.push(format!("> ⚠ LLM pass error: `{error}`\n"));
    }
    let auto = p.get("auto_transitions").unwrap_or(&null);
    lines.push("## Auto-transitions (pure, no LLM)\n".into());
    lines.push(format!("- checked: {}", get_i64(auto, "checked")));
    lines.push(format!("- marked stale: {}", get_i64(auto, "marked_stale")));
    lines.push(format!(
        "- archived (no LLM, pure time-based staleness): {}",
        get_i64(auto, "archived")
    ));
    lines.push(format!("- reactivated: {}", get_i64(auto, "reactivated")));
    lines.push(String::new());

    let empty = Vec::new();
    let auto_archived = p
        .get("auto_archived")
        .and_then(Json::as_array)
        .unwrap_or(&empty);
    if !auto_archived.is_empty() {
        lines.push(format!(
            "### Archived by the automatic pass ({})\n",
            auto_archived.len()
        ));
        lines.push(
            "_Unused for `curator.archive_after_days` or longer. Each directory now lives under \
             `~/.hermes/skills/.archive/`; restore any with `hermes-curate restore <name>`._\n"
                .into(),
        );
        // Hermes's header counts from after this pass; over the whole run the library went
        // from `before + archived` to `after`.
        let before = get_i64(counts, "before") + auto_archived.len() as i64;
        let after = get_i64(counts, "after");
        lines.push(format!(
            "Over the whole run, agent-created skills went from {before} to {after} ({:+}); the \
             header counts from after this pass, as Hermes does.\n",
            after - before
        ));
        for a in auto_archived.iter().take(SHOW) {
            lines.push(format!(
                "- `{}` → `{}`",
                get_str(a, "name"),
                get_str(a, "archived_to")
            ));
        }
        if auto_archived.len() > SHOW {
            lines.push(format!(
                "- … and {} more (see `run.json`)",
                auto_archived.len() - SHOW
            ));
        }
        lines.push(String::new());
    }
    let auto_changes = p
        .get("auto_state_changes")
        .and_then(Json::as_array)
        .unwrap_or(&empty);
    if !auto_changes.is_empty() {
        lines.push(format!(
            "### Automatic state changes ({})\n",
            auto_changes.len()
        ));
        for c in auto_changes.iter().take(SHOW) {
            lines.push(format!(
                "- `{}`: {} → {}",
                get_str(c, "name"),
                get_str(c, "from"),
                get_str(c, "to")
            ));
        }
        if auto_changes.len() > SHOW {
            lines.push(format!(
                "- … and {} more (see `run.json`)",
                auto_changes.len() - SHOW
            ));
        }
        lines.push(String::new());
    }

    let mut by_name: Vec<(String, i64)> = p
        .get("tool_call_counts")
        .and_then(Json::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_i64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default();
    by_name.sort();
    let by_name = if by_name.is_empty() {
        "none".to_string()
    } else {
        by_name
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    lines.push("## LLM consolidation pass\n".into());
    lines.push(format!(
        "- tool calls: **{}** (by name: {by_name})",
        get_i64(counts, "tool_calls_total")
    ));
    lines.push(format!(
        "- consolidated into umbrellas: **{}**",
        get_i64(counts, "consolidated_this_run")
    ));
    lines.push(format!(
        "- pruned (archived for staleness): **{}**",
        get_i64(counts, "pruned_this_run")
    ));
    lines.push(format!(
        "- new skills this run: **{}**",
        get_i64(counts, "added_this_run")
    ));
    lines.push(format!(
        "- state transitions (active ↔ stale ↔ archived): **{}**",
        get_i64(counts, "state_transitions")
    ));
    lines.push(String::new());

    let consolidated = p
        .get("consolidated")
        .and_then(Json::as_array)
        .unwrap_or(&empty);
    if !consolidated.is_empty() {
        lines.push(format!(
            "### Consolidated into umbrella skills ({})\n",
            consolidated.len()
        ));
        lines.push(
            "_Each of these narrow skills was merged into a broader umbrella and archived; its \
             content now lives in the umbrella's SKILL.md or its `references/`._\n"
                .into(),
        );
        for c in consolidated.iter().take(SHOW) {
            let mut line = format!(
                "- `{}` → merged into `{}`",
                get_str(c, "name"),
                get_str(c, "into")
            );
            let reason = get_str(c, "reason");
            if !reason.is_empty() {
                line.push_str(&format!(" — {reason}"));
            }
            let source = get_str(c, "source");
            if source.starts_with("tool-call audit") {
                line.push_str(&format!("  _(detected via {source})_"));
            }
            lines.push(line);
            let claimed = get_str(c, "model_claimed_into");
            if !claimed.is_empty() {
                lines.push(format!(
                    "  ⚠ The curator's summary named `{claimed}` as the umbrella but that skill doesn't exist post-run; showing the tool-call audit's finding instead."
                ));
            }
        }
        if consolidated.len() > SHOW {
            lines.push(format!(
                "- … and {} more (see `run.json`)",
                consolidated.len() - SHOW
            ));
        }
        lines.push(String::new());
    }
    let pruned = p.get("pruned").and_then(Json::as_array).unwrap_or(&empty);
    if !pruned.is_empty() {
        lines.push(format!(
            "### Pruned — archived for staleness ({})\n",
            pruned.len()
        ));
        lines.push("_Stale skills that no umbrella covers; archived, not deleted._\n".into());
        for c in pruned.iter().take(SHOW) {
            let reason = get_str(c, "reason");
            if reason.is_empty() {
                lines.push(format!("- `{}`", get_str(c, "name")));
            } else {
                lines.push(format!("- `{}` — {reason}", get_str(c, "name")));
            }
        }
        if pruned.len() > SHOW {
            lines.push(format!(
                "- … and {} more (see `run.json`)",
                pruned.len() - SHOW
            ));
        }
        lines.push(String::new());
    }
    let added = p.get("added").and_then(Json::as_array).unwrap_or(&empty);
    if !added.is_empty() {
        lines.push(format!("### New skills this run ({})\n", added.len()));
        lines.push(
            "_Usually these are new class-level umbrellas created via `skill_manage action=create`._\n"
                .into(),
        );
        for n in added {
            lines.push(format!("- `{}`", n.as_str().unwrap_or("")));
        }
        lines.push(String::new());
    }
    let trans = p
        .get("state_transitions")
        .and_then(Json::as_array)
        .unwrap_or(&empty);
    if !trans.is_empty() {
        lines.push(format!("### State transitions ({})\n", trans.len()));
        for t in trans {
            lines.push(format!(
                "- `{}`: {} → {}",
                get_str(t, "name"),
                get_str(t, "from"),
                get_str(t, "to")
            ));
        }
        lines.push(String::new());
    }
    let rewrites = p
        .pointer("/cron_rewrites/rewrites")
        .and_then(Json::as_array)
        .unwrap_or(&empty);
    if !rewrites.is_empty() {
        lines.push(format!(
            "### Cron job skill references rewritten ({})\n",
            rewrites.len()
        ));
        lines.push(
            "_Scheduled jobs that loaded a consolidated skill now load its umbrella; pruned skills \
             were dropped from their lists._\n"
                .into(),
        );
        let csv = |v: Option<&Json>| {
            let names: Vec<&str> = v
                .and_then(Json::as_array)
                .map(|a| a.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        };
        for r in rewrites.iter().take(25) {
            let job = r
                .get("job_name")
                .and_then(Json::as_str)
                .unwrap_or_else(|| get_str(r, "job_id"));
            lines.push(format!(
                "- `{job}`: `{}` → `{}`",
                csv(r.get("before")),
                csv(r.get("after"))
            ));
            if let Some(mapped) = r.get("mapped").and_then(Json::as_object) {
                for (old, new) in mapped {
                    lines.push(format!(
                        "    - `{old}` → `{}` (consolidated)",
                        new.as_str().unwrap_or("")
                    ));
                }
            }
            for d in r.get("dropped").and_then(Json::as_array).unwrap_or(&empty) {
                lines.push(format!(
                    "    - `{}` dropped (pruned)",
                    d.as_str().unwrap_or("")
                ));
            }
        }
        lines.push(String::new());
    }
    let final_text = get_str(p, "llm_final").trim();
    if !final_text.is_empty() {
        lines.push("## LLM final summary\n".into());
        lines.push(final_text.to_string());
        lines.push(String::new());
    } else if error.is_empty() {
        let summary = get_str(p, "llm_summary");
        if !summary.is_empty() {
            lines.push("## LLM summary\n".into());
            lines.push(summary.to_string());
            lines.push(String::new());
        }
    }
    lines.push("## Recovery\n".into());
    lines.push("- Restore an archived skill: `hermes-curate restore <name>`".into());
    lines.push(
        "- All archives live under `~/.hermes/skills/.archive/` and are recoverable by `mv`".into(),
    );
    lines.push("- See `run.json` in this directory for the full machine-readable record.".into());
    lines.push(String::new());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_dirs_take_a_suffix_from_two() {
        let dir = tempfile::tempdir().expect("tempdir");
        let start = clock::parse_timestamp("2026-06-01T12:00:00Z").expect("ts");
        let report = RunReport {
            started_at: start,
            elapsed_seconds: 75.456,
            auto_counts: Counts::default(),
            before: &[],
            after: &[],
            llm: LlmMeta::skipped("consolidation off"),
            auto_archived: &[],
            auto_changes: &[],
            skills_dir: dir.path(),
            classified: None,
            cron_rewrites: None,
        };
        let a = report.write(dir.path()).expect("a");
        let b = report.write(dir.path()).expect("b");
        assert_eq!(a, dir.path().join("20260601-120000"));
        assert_eq!(b, dir.path().join("20260601-120000-2"));
        let md = std::fs::read_to_string(a.join("REPORT.md")).expect("md");
        assert!(md.starts_with("# Curator run — 2026-06-01T12:00:00+00:00\n\nModel: `(not resolved)` via `(not resolved)`  ·  Duration: 1m 15s  ·  Agent-created skills: 0 → 0 (+0)\n\n## Auto-transitions (pure, no LLM)\n\n- checked: 0\n"), "{md}");
        let run: Json =
            serde_json::from_str(&std::fs::read_to_string(a.join("run.json")).expect("json"))
                .expect("parse");
        assert_eq!(run["duration_seconds"], json!(75.46));
    }

    fn tiny(dir: &Path) -> RunReport<'_> {
        RunReport {
            started_at: clock::parse_timestamp("2026-06-01T12:00:00Z").expect("ts"),
            elapsed_seconds: 75.456,
            auto_counts: Counts::default(),
            before: &[],
            after: &[],
            llm: LlmMeta::skipped("consolidation off"),
            auto_archived: &[],
            auto_changes: &[],
            skills_dir: dir,
            classified: None,
            cron_rewrites: None,
        }
    }

    /// `run.json` as Python's `json.dumps(indent=2, ensure_ascii=False)` writes it, with a
    /// newline; a run without an LLM pass has every key, empty.
    #[test]
    fn run_json_bytes_of_a_run_without_llm() {
        let dir = tempfile::tempdir().expect("tempdir");
        let at = tiny(dir.path())
            .write(&dir.path().join("logs"))
            .expect("write");
        assert_eq!(
            std::fs::read_to_string(at.join("run.json")).expect("read"),
            "{\n  \"started_at\": \"2026-06-01T12:00:00+00:00\",\n  \"duration_seconds\": 75.46,\n  \"model\": \"\",\n  \"provider\": \"\",\n  \"auto_transitions\": {\n    \"marked_stale\": 0,\n    \"archived\": 0,\n    \"reactivated\": 0,\n    \"checked\": 0,\n    \"seeded\": 0\n  },\n  \"counts\": {\n    \"before\": 0,\n    \"after\": 0,\n    \"delta\": 0,\n    \"archived_this_run\": 0,\n    \"added_this_run\": 0,\n    \"consolidated_this_run\": 0,\n    \"pruned_this_run\": 0,\n    \"state_transitions\": 0,\n    \"cron_jobs_rewritten\": 0,\n    \"tool_calls_total\": 0\n  },\n  \"tool_call_counts\": {},\n  \"archived\": [],\n  \"consolidated\": [],\n  \"pruned\": [],\n  \"pruned_names\": [],\n  \"added\": [],\n  \"state_transitions\": [],\n  \"cron_rewrites\": {\n    \"rewrites\": [],\n    \"jobs_updated\": 0,\n    \"jobs_scanned\": 0\n  },\n  \"llm_final\": \"\",\n  \"llm_summary\": \"skipped (consolidation off)\",\n  \"llm_error\": null,\n  \"tool_calls\": [],\n  \"auto_archived\": [],\n  \"auto_state_changes\": []\n}\n"
        );
        assert_eq!(round2(4.567), 4.57);
    }

    /// A report directory that cannot be made (here: a path too long for the kernel) is an
    /// error at once, not a search for a free suffix.
    #[test]
    fn a_report_directory_that_cannot_be_made_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut logs = dir.path().to_path_buf();
        while logs.as_os_str().len() < 3_800 {
            logs.push("d".repeat(200));
        }
        let room = 4_090 - logs.as_os_str().len() - 1;
        logs.push("e".repeat(room));
        let err = tiny(dir.path()).write(&logs).expect_err("too long");
        // ENAMETOOLONG
        assert_eq!(err.raw_os_error(), Some(36));
    }

    /// Everything a run with an LLM pass reports: the diff of the library around the pass
    /// (removed, added, state transitions; a state that is empty is no state), the tool
    /// calls by name, the classification and cron rewrites, and the automatic pass's own
    /// archives and state changes (its archives not repeated as state changes).
    #[test]
    fn a_full_report_payload_and_markdown() {
        use crate::curator::rows::fixture::row;
        let dir = tempfile::tempdir().expect("tempdir");
        let skills = dir.path().join("skills");
        let now = clock::parse_timestamp("2026-06-01T12:00:00Z").expect("ts");
        let rows = |spec: &[(&str, &str)]| -> Vec<Row> {
            spec.iter()
                .map(|(n, s)| row(n, json!({"created_by": "agent", "state": s}), now))
                .collect()
        };
        let before = rows(&[
            ("a", "active"),
            ("b", "active"),
            ("d", ""),
            ("e", "stale"),
            ("gone", "active"),
        ]);
        let after = rows(&[
            ("a", "stale"),
            ("b", "active"),
            ("d", "active"),
            ("umbrella", "active"),
        ]);
        let classified = Classification {
            removed: vec!["e".into(), "gone".into()],
            added: vec!["umbrella".into()],
            consolidated: vec![json!({"name": "gone", "into": "umbrella",
                "source": "tool-call audit", "reason": "same topic",
                "model_claimed_into": "umbrela"})],
            pruned: vec![json!({"name": "e", "source": "model summary",
                "reason": "stale and unused"})],
        };
        let cron = json!({"rewrites": [{"job_id": "j1", "job_name": "nightly",
            "before": ["gone", "e"], "after": ["umbrella"],
            "mapped": {"gone": "umbrella"}, "dropped": ["e"]}],
            "jobs_updated": 1, "jobs_scanned": 2});
        let calls = vec![
            json!({"name": "skill_view", "arguments": "{\"name\": \"a\"}"}),
            json!({"name": "skill_manage", "arguments": "{}"}),
            json!({"name": "skill_view", "arguments": "{}"}),
            json!({"arguments": "{}"}),
        ];
        let archived = [ArchivedSkill {
            name: "old".into(),
            dest: skills.join(".archive/old"),
        }];
        let change = |n: &str, f: &str, t: &str| Change {
            name: n.into(),
            from: f.into(),
            to: t.into(),
        };
        let changes = [
            change("a", "active", "stale"),
            change("old", "active", "archived"),
        ];
        let report = RunReport {
            started_at: now,
            elapsed_seconds: 4.567,
            auto_counts: Counts {
                marked_stale: 1,
                archived: 1,
                reactivated: 0,
                checked: 6,
                seeded: 0,
            },
            before: &before,
            after: &after,
            llm: LlmMeta {
                final_text: "Merged the docker skills.".into(),
                summary: "Merged the docker skills.".into(),
                model: "m1".into(),
                provider: "custom".into(),
                tool_calls: calls.clone(),
                error: None,
            },
            auto_archived: &archived,
            auto_changes: &changes,
            skills_dir: &skills,
            classified: Some(&classified),
            cron_rewrites: Some(cron.clone()),
        };
        let expected = json!({
            "started_at": "2026-06-01T12:00:00+00:00",
            "duration_seconds": 4.57,
            "model": "m1",
            "provider": "custom",
            "auto_transitions": {"marked_stale": 1, "archived": 1, "reactivated": 0,
                                 "checked": 6, "seeded": 0},
            "counts": {"before": 5, "after": 4, "delta": -1, "archived_this_run": 2,
                       "added_this_run": 1, "consolidated_this_run": 1,
                       "pruned_this_run": 1, "state_transitions": 1,
                       "cron_jobs_rewritten": 1, "tool_calls_total": 4},
            "tool_call_counts": {"skill_view": 2, "skill_manage": 1, "unknown": 1},
            "archived": ["e", "gone"],
            "consolidated": classified.consolidated.clone(),
            "pruned": classified.pruned.clone(),
            "pruned_names": ["e"],
            "added": ["umbrella"],
            "state_transitions": [{"name": "a", "from": "active", "to": "stale"}],
            "cron_rewrites": cron,
            "llm_final": "Merged the docker skills.",
            "llm_summary": "Merged the docker skills.",
            "llm_error": null,
            "tool_calls": calls,
            "auto_archived": [{"name": "old", "archived_to": ".archive/old"}],
            "auto_state_changes": [{"name": "a", "from": "active", "to": "stale"}],
        });
        let payload = report.payload();
        assert_eq!(payload.to_string(), expected.to_string());
        let md = [
            "# Curator run — 2026-06-01T12:00:00+00:00\n",
            "Model: `m1` via `custom`  ·  Duration: 4s  ·  Agent-created skills: 5 → 4 (-1)\n",
            "## Auto-transitions (pure, no LLM)\n",
            "- checked: 6",
            "- marked stale: 1",
            "- archived (no LLM, pure time-based staleness): 1",
            "- reactivated: 0",
            "",
            "### Archived by the automatic pass (1)\n",
            "_Unused for `curator.archive_after_days` or longer. Each directory now lives under `~/.hermes/skills/.archive/`; restore any with `hermes-curate restore <name>`._\n",
            "Over the whole run, agent-created skills went from 6 to 4 (-2); the header counts from after this pass, as Hermes does.\n",
            "- `old` → `.archive/old`",
            "",
            "### Automatic state changes (1)\n",
            "- `a`: active → stale",
            "",
            "## LLM consolidation pass\n",
            "- tool calls: **4** (by name: skill_manage=1, skill_view=2, unknown=1)",
            "- consolidated into umbrellas: **1**",
            "- pruned (archived for staleness): **1**",
            "- new skills this run: **1**",
            "- state transitions (active ↔ stale ↔ archived): **1**",
            "",
            "### Consolidated into umbrella skills (1)\n",
            "_Each of these narrow skills was merged into a broader umbrella and archived; its content now lives in the umbrella's SKILL.md or its `references/`._\n",
            "- `gone` → merged into `umbrella` — same topic  _(detected via tool-call audit)_",
            "  ⚠ The curator's summary named `umbrela` as the umbrella but that skill doesn't exist post-run; showing the tool-call audit's finding instead.",
            "",
            "### Pruned — archived for staleness (1)\n",
            "_Stale skills that no umbrella covers; archived, not deleted._\n",
            "- `e` — stale and unused",
            "",
            "### New skills this run (1)\n",
            "_Usually these are new class-level umbrellas created via `skill_manage action=create`._\n",
            "- `umbrella`",
            "",
            "### State transitions (1)\n",
            "- `a`: active → stale",
            "",
            "### Cron job skill references rewritten (1)\n",
            "_Scheduled jobs that loaded a consolidated skill now load its umbrella; pruned skills were dropped from their lists._\n",
            "- `nightly`: `gone, e` → `umbrella`",
            "    - `gone` → `umbrella` (consolidated)",
            "    - `e` dropped (pruned)",
            "",
            "## LLM final summary\n",
            "Merged the docker skills.",
            "",
            "## Recovery\n",
            "- Restore an archived skill: `hermes-curate restore <name>`",
            "- All archives live under `~/.hermes/skills/.archive/` and are recoverable by `mv`",
            "- See `run.json` in this directory for the full machine-readable record.",
            "",
        ]
        .join("\n");
        assert_eq!(render_markdown(&payload), md);
    }

    const RECOVERY: &str = "## Recovery\n\n- Restore an archived skill: `hermes-curate restore <name>`\n- All archives live under `~/.hermes/skills/.archive/` and are recoverable by `mv`\n- See `run.json` in this directory for the full machine-readable record.\n";

    /// An LLM error is shown at the top and replaces the summary; entries without a reason,
    /// an audit source or a claimed umbrella are shown bare; a job without a name by its id,
    /// an empty list as `(none)`.
    #[test]
    fn markdown_of_an_errored_pass_with_bare_entries() {
        let p = json!({
            "started_at": "2026-06-01T12:00:00+00:00",
            "duration_seconds": 125.9,
            "llm_error": "error: boom",
            "llm_final": "  \n",
            "llm_summary": "error: boom",
            "counts": {"before": 2, "after": 1, "delta": -1, "consolidated_this_run": 1,
                       "pruned_this_run": 1},
            "consolidated": [{"name": "c1", "into": "u1", "source": "model summary"}],
            "pruned": [{"name": "p1", "source": "model summary"}],
            "cron_rewrites": {"rewrites": [{"job_id": "j2", "before": [], "after": ["u1"]}]},
        });
        let expected = "# Curator run — 2026-06-01T12:00:00+00:00\n\n\
            Model: `(not resolved)` via `(not resolved)`  ·  Duration: 2m 5s  ·  Agent-created skills: 2 → 1 (-1)\n\n\
            > ⚠ LLM pass error: `error: boom`\n\n\
            ## Auto-transitions (pure, no LLM)\n\n\
            - checked: 0\n- marked stale: 0\n- archived (no LLM, pure time-based staleness): 0\n- reactivated: 0\n\n\
            ## LLM consolidation pass\n\n\
            - tool calls: **0** (by name: none)\n\
            - consolidated into umbrellas: **1**\n\
            - pruned (archived for staleness): **1**\n\
            - new skills this run: **0**\n\
            - state transitions (active ↔ stale ↔ archived): **0**\n\n\
            ### Consolidated into umbrella skills (1)\n\n\
            _Each of these narrow skills was merged into a broader umbrella and archived; its content now lives in the umbrella's SKILL.md or its `references/`._\n\n\
            - `c1` → merged into `u1`\n\n\
            ### Pruned — archived for staleness (1)\n\n\
            _Stale skills that no umbrella covers; archived, not deleted._\n\n\
            - `p1`\n\n\
            ### Cron job skill references rewritten (1)\n\n\
            _Scheduled jobs that loaded a consolidated skill now load its umbrella; pruned skills were dropped from their lists._\n\n\
            - `j2`: `(none)` → `u1`\n\n";
        assert_eq!(render_markdown(&p), format!("{expected}{RECOVERY}"));
    }

    /// Without a final answer or an error, the summary is shown (a skipped pass says why).
    #[test]
    fn markdown_of_a_skipped_pass_shows_its_summary() {
        let p = json!({"llm_summary": "skipped (consolidation off)", "duration_seconds": 59.99});
        let expected = "# Curator run — \n\n\
            Model: `(not resolved)` via `(not resolved)`  ·  Duration: 59s  ·  Agent-created skills: 0 → 0 (+0)\n\n\
            ## Auto-transitions (pure, no LLM)\n\n\
            - checked: 0\n- marked stale: 0\n- archived (no LLM, pure time-based staleness): 0\n- reactivated: 0\n\n\
            ## LLM consolidation pass\n\n\
            - tool calls: **0** (by name: none)\n\
            - consolidated into umbrellas: **0**\n\
            - pruned (archived for staleness): **0**\n\
            - new skills this run: **0**\n\
            - state transitions (active ↔ stale ↔ archived): **0**\n\n\
            ## LLM summary\n\n\
            skipped (consolidation off)\n\n";
        assert_eq!(render_markdown(&p), format!("{expected}{RECOVERY}"));
    }

    /// Each list shows its first 50 entries; past 50 a line says how many more are in
    /// `run.json`, at exactly 50 none does.
    #[test]
    fn long_lists_stop_at_fifty() {
        let payload = |n: usize| {
            let names: Vec<String> = (1..=n).map(|i| format!("s{i}")).collect();
            json!({
                "auto_archived": names.iter()
                    .map(|s| json!({"name": s, "archived_to": format!(".archive/{s}")}))
                    .collect::<Vec<_>>(),
                "auto_state_changes": names.iter()
                    .map(|s| json!({"name": s, "from": "active", "to": "stale"}))
                    .collect::<Vec<_>>(),
                "consolidated": names.iter()
                    .map(|s| json!({"name": s, "into": "u"}))
                    .collect::<Vec<_>>(),
                "pruned": names.iter().map(|s| json!({"name": s})).collect::<Vec<_>>(),
            })
        };
        let more = |md: &str| -> Vec<String> {
            md.lines()
                .filter(|l| l.starts_with("- … and"))
                .map(String::from)
                .collect()
        };
        let fifty = render_markdown(&payload(50));
        assert_eq!(more(&fifty), Vec::<String>::new());
        assert!(fifty.contains("- `s50` → `.archive/s50`\n"), "{fifty}");
        assert!(fifty.contains("- `s50`: active → stale\n"));
        assert!(fifty.contains("- `s50` → merged into `u`\n"));
        assert!(fifty.contains("- `s50`\n"));
        let more_than_fifty = render_markdown(&payload(52));
        assert_eq!(
            more(&more_than_fifty),
            vec!["- … and 2 more (see `run.json`)"; 4]
        );
        assert!(!more_than_fifty.contains("s51"));
    }
}
