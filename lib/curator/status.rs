//! `hermes-curate status`: the schedule, the last run and the skills the curator manages,
//! printed as `hermes curator status` prints them.

use jiff::Timestamp;
use serde_json::{Map, Value as Json, json};

use super::ago;
use super::rows::Row;
use super::state::{CuratorState, Schedule, schedule};
use crate::clock;
use crate::home::CuratorConfig;

/// The status of one home.
pub struct Status<'a> {
    pub state: &'a CuratorState,
    pub config: &'a CuratorConfig,
    pub rows: &'a [Row],
    pub now: Timestamp,
}

impl Status<'_> {
    fn label(&self) -> &'static str {
        if self.config.enabled && !self.state.paused() {
            "ENABLED"
        } else if self.state.paused() {
            "PAUSED"
        } else {
            "DISABLED"
        }
    }

    fn summary(&self) -> String {
        self.state
            .str_field("last_run_summary")
            .filter(|s| !s.is_empty())
            .unwrap_or("(none)")
            .to_string()
    }

    fn interval_label(&self) -> String {
        let h = self.config.interval_hours;
        if h % 24 == 0 && h >= 24 {
            format!("{}d", h / 24)
        } else {
            format!("{h}h")
        }
    }

    fn by_state(&self, state: &str) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| r.state() == Some(state))
            .collect()
    }

    fn pinned(&self) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|r| r.pinned())
            .map(|r| r.name.as_str())
            .collect()
    }

    /// The three top-5 lists of Hermes's status, over the active skills.
    fn tops(&self) -> [Vec<&Row>; 3] {
        let active = self.by_state("active");
        let recency_key = |r: &Row| {
            r.last_activity_at
                .clone()
                .filter(|s| !s.is_empty())
                .or_else(|| r.created_at().filter(|s| !s.is_empty()).map(String::from))
                .unwrap_or_default()
        };
        let mut least_recent = active.clone();
        least_recent.sort_by_key(|r| recency_key(r));
        least_recent.truncate(5);
        let activity_key = |r: &Row| {
            (
                r.activity_count,
                r.last_activity_at.clone().unwrap_or_default(),
            )
        };
        let mut most = active.clone();
        most.sort_by_key(|r| std::cmp::Reverse(activity_key(r)));
        most.truncate(5);
        if most.first().is_none_or(|r| r.activity_count <= 0) {
            most.clear();
        }
        let mut least = active;
        least.sort_by_key(|r| activity_key(r));
        least.truncate(5);
        [least_recent, most, least]
    }

    fn row_line(&self, r: &Row) -> String {
        format!(
            "  {:<40}  activity={:3}  use={:3}  view={:3}  patches={:3}  last_activity={}",
            r.name,
            r.activity_count,
            r.counter("use_count"),
            r.counter("view_count"),
            r.counter("patch_count"),
            ago(r.last_activity_at.as_deref(), self.now)
        )
    }

    /// The text Hermes prints, line by line.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        out.push(format!("curator: {}", self.label()));
        out.push(format!("  runs:           {}", self.state.run_count()));
        out.push(format!(
            "  last run:       {}",
            ago(self.state.str_field("last_run_at"), self.now)
        ));
        let summary = self.summary();
        let mut summary_lines = summary.lines();
        out.push(format!(
            "  last summary:   {}",
            summary_lines.next().unwrap_or("")
        ));
        for line in summary_lines {
            out.push(format!("                  {line}"));
        }
        if let Some(report) = self
            .state
            .str_field("last_report_path")
            .filter(|s| !s.is_empty())
        {
            let missing = if std::path::Path::new(report).exists() {
                ""
            } else {
                " (missing)"
            };
            out.push(format!("  last report:    {report}{missing}"));
        }
        out.push(format!("  interval:       every {}", self.interval_label()));
        out.push(format!(
            "  stale after:    {}d unused",
            self.config.stale_after_days
        ));
        out.push(format!(
            "  archive after:  {}d unused",
            self.config.archive_after_days
        ));
        out.push(format!(
            "  consolidate:    {}",
            if self.config.consolidate {
                "on"
            } else {
                "off (prune-only; LLM merge pass opt-in)"
            }
        ));
        if self.rows.is_empty() {
            out.push(String::new());
            out.push("no agent-created skills".into());
            return out.join("\n");
        }
        out.push(String::new());
        out.push(format!("agent-created skills: {} total", self.rows.len()));
        for state in ["active", "stale", "archived"] {
            out.push(format!("  {state:<10} {}", self.by_state(state).len()));
        }
        let pinned = self.pinned();
        if !pinned.is_empty() {
            out.push(String::new());
            out.push(format!("pinned ({}): {}", pinned.len(), pinned.join(", ")));
        }
        let titles = [
            "least recently active (top 5):",
            "most active (top 5):",
            "least active (top 5):",
        ];
        for (title, rows) in titles.iter().zip(self.tops()) {
            if rows.is_empty() {
                continue;
            }
            out.push(String::new());
            out.push((*title).to_string());
            for r in rows {
                out.push(self.row_line(r));
            }
        }
        out.join("\n")
    }

    /// The same facts as one JSON object (documented in docs/formats.md).
    pub fn to_json(&self) -> Json {
        let next_run_at = match schedule(self.state, self.config, self.now) {
            Schedule::Due { .. } => Some(clock::isoformat(self.now)),
            Schedule::NotDue { next_run_at, .. } => Some(clock::isoformat(next_run_at)),
            _ => None,
        };
        let brief = |r: &Row| {
            json!({
                "name": r.name,
                "activity_count": r.activity_count,
                "use_count": r.counter("use_count"),
                "view_count": r.counter("view_count"),
                "patch_count": r.counter("patch_count"),
                "last_activity_at": r.last_activity_at,
            })
        };
        let [least_recent, most, least] = self.tops();
        let mut m = Map::new();
        m.insert("status".into(), json!(self.label()));
        m.insert("enabled".into(), json!(self.config.enabled));
        m.insert("paused".into(), json!(self.state.paused()));
        m.insert("run_count".into(), json!(self.state.run_count()));
        for key in ["last_run_at", "last_run_summary", "last_report_path"] {
            m.insert(
                key.into(),
                self.state.data.get(key).cloned().unwrap_or(Json::Null),
            );
        }
        m.insert("next_run_at".into(), json!(next_run_at));
        m.insert("interval_hours".into(), json!(self.config.interval_hours));
        m.insert(
            "stale_after_days".into(),
            json!(self.config.stale_after_days),
        );
        m.insert(
            "archive_after_days".into(),
            json!(self.config.archive_after_days),
        );
        m.insert("consolidate".into(), json!(self.config.consolidate));
        m.insert(
            "skills".into(),
            json!({
                "total": self.rows.len(),
                "active": self.by_state("active").len(),
                "stale": self.by_state("stale").len(),
                "archived": self.by_state("archived").len(),
            }),
        );
        m.insert("pinned".into(), json!(self.pinned()));
        m.insert(
            "least_recently_active".into(),
            Json::Array(least_recent.into_iter().map(brief).collect()),
        );
        m.insert(
            "most_active".into(),
            Json::Array(most.into_iter().map(brief).collect()),
        );
        m.insert(
            "least_active".into(),
            Json::Array(least.into_iter().map(brief).collect()),
        );
        Json::Object(m)
    }
}
