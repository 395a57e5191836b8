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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::curator::rows::fixture::{row, ts};
    use crate::home::Config;

    fn now() -> Timestamp {
        ts("2026-06-01T12:00:00Z")
    }

    /// Three active skills (one pinned), one stale, one archived.
    fn rows() -> Vec<Row> {
        vec![
            row(
                "alpha",
                json!({"created_by": "agent", "state": "active", "use_count": 3,
                       "last_used_at": "2026-05-31T12:00:00+00:00",
                       "created_at": "2026-01-01T00:00:00+00:00"}),
                now(),
            ),
            row(
                "beta",
                json!({"created_by": "agent", "state": "active", "view_count": 1,
                       "patch_count": 1, "last_viewed_at": "2026-05-01T12:00:00+00:00",
                       "created_at": "2026-02-01T00:00:00+00:00", "pinned": true}),
                now(),
            ),
            row(
                "delta",
                json!({"created_by": "agent", "state": "stale"}),
                now(),
            ),
            row(
                "eps",
                json!({"created_by": "agent", "state": "archived"}),
                now(),
            ),
            row(
                "gamma",
                json!({"created_by": "agent", "state": "active",
                       "created_at": "2026-05-20T00:00:00+00:00"}),
                now(),
            ),
        ]
    }

    fn state(value: Json) -> CuratorState {
        let mut s = CuratorState::default();
        if let Json::Object(m) = value {
            for (k, v) in m {
                s.set(&k, v);
            }
        }
        s
    }

    const ALPHA: &str = "  alpha                                     activity=  3  use=  3  view=  0  patches=  0  last_activity=1d ago";
    const BETA: &str = "  beta                                      activity=  2  use=  0  view=  1  patches=  1  last_activity=31d ago";
    const GAMMA: &str = "  gamma                                     activity=  0  use=  0  view=  0  patches=  0  last_activity=never";

    /// Hermes's layout: the schedule, the last run (a summary of several lines indented
    /// under the first), the counts by state, the pinned skills and the three top-5 lists:
    /// least recently active (last activity, else creation), most and least active.
    #[test]
    fn the_text_hermes_prints() {
        let report = tempfile::tempdir().expect("tempdir");
        let st = state(json!({
            "run_count": 2,
            "last_run_at": "2026-05-30T12:00:00+00:00",
            "last_run_summary": "auto: 1 marked stale\nllm: skipped (consolidation off)",
            "last_report_path": report.path().display().to_string(),
        }));
        let config = Config::defaults().curator;
        let rows = rows();
        let status = Status {
            state: &st,
            config: &config,
            rows: &rows,
            now: now(),
        };
        let expected = [
            "curator: ENABLED",
            "  runs:           2",
            "  last run:       2d ago",
            "  last summary:   auto: 1 marked stale",
            "                  llm: skipped (consolidation off)",
            &format!("  last report:    {}", report.path().display()),
            "  interval:       every 7d",
            "  stale after:    30d unused",
            "  archive after:  90d unused",
            "  consolidate:    off (prune-only; LLM merge pass opt-in)",
            "",
            "agent-created skills: 5 total",
            "  active     3",
            "  stale      1",
            "  archived   1",
            "",
            "pinned (1): beta",
            "",
            "least recently active (top 5):",
            BETA,
            GAMMA,
            ALPHA,
            "",
            "most active (top 5):",
            ALPHA,
            BETA,
            GAMMA,
            "",
            "least active (top 5):",
            GAMMA,
            BETA,
            ALPHA,
        ]
        .join("\n");
        assert_eq!(status.text(), expected);
    }

    /// Paused wins over enabled; a report that is gone is marked; an interval of whole days
    /// only from a day up; no skills, no lists.
    #[test]
    fn paused_with_a_missing_report_and_no_skills() {
        let st = state(json!({
            "paused": true,
            "last_run_summary": "",
            "last_report_path": "/nonexistent/hermes-loop/report",
        }));
        let mut config = Config::defaults().curator;
        config.interval_hours = 36;
        config.consolidate = true;
        let status = Status {
            state: &st,
            config: &config,
            rows: &[],
            now: now(),
        };
        assert_eq!(
            status.text(),
            "curator: PAUSED\n  runs:           0\n  last run:       never\n  last summary:   (none)\n  last report:    /nonexistent/hermes-loop/report (missing)\n  interval:       every 36h\n  stale after:    30d unused\n  archive after:  90d unused\n  consolidate:    on\n\nno agent-created skills"
        );
        let mut off = Config::defaults().curator;
        off.enabled = false;
        off.interval_hours = 48;
        let idle = vec![row(
            "idle",
            json!({"created_by": "agent", "created_at": "2026-05-01T00:00:00+00:00"}),
            now(),
        )];
        let unpaused = CuratorState::default();
        let status = Status {
            state: &unpaused,
            config: &off,
            rows: &idle,
            now: now(),
        };
        // Nobody used anything: no "most active" list, and no pinned line.
        assert_eq!(
            status.text(),
            "curator: DISABLED\n  runs:           0\n  last run:       never\n  last summary:   (none)\n  interval:       every 2d\n  stale after:    30d unused\n  archive after:  90d unused\n  consolidate:    off (prune-only; LLM merge pass opt-in)\n\nagent-created skills: 1 total\n  active     1\n  stale      0\n  archived   0\n\nleast recently active (top 5):\n  idle                                      activity=  0  use=  0  view=  0  patches=  0  last_activity=never\n\nleast active (top 5):\n  idle                                      activity=  0  use=  0  view=  0  patches=  0  last_activity=never"
        );
        assert_eq!(status.to_json()["status"], json!("DISABLED"));
        assert_eq!(status.to_json()["next_run_at"], Json::Null);
        assert_eq!(status.to_json()["most_active"], json!([]));
    }

    #[test]
    fn the_json_has_the_schedule_counts_and_lists() {
        let st = state(json!({
            "run_count": 2,
            "last_run_at": "2026-05-30T12:00:00+00:00",
            "last_run_summary": "auto: no changes",
        }));
        let config = Config::defaults().curator;
        let rows = rows();
        let status = Status {
            state: &st,
            config: &config,
            rows: &rows,
            now: now(),
        };
        let brief = |name: &str, a: i64, u: i64, v: i64, p: i64, last: Json| {
            json!({"name": name, "activity_count": a, "use_count": u, "view_count": v,
                   "patch_count": p, "last_activity_at": last})
        };
        let alpha = brief("alpha", 3, 3, 0, 0, json!("2026-05-31T12:00:00+00:00"));
        let beta = brief("beta", 2, 0, 1, 1, json!("2026-05-01T12:00:00+00:00"));
        let gamma = brief("gamma", 0, 0, 0, 0, Json::Null);
        let expected = json!({
            "status": "ENABLED",
            "enabled": true,
            "paused": false,
            "run_count": 2,
            "last_run_at": "2026-05-30T12:00:00+00:00",
            "last_run_summary": "auto: no changes",
            "last_report_path": null,
            "next_run_at": "2026-06-06T12:00:00+00:00",
            "interval_hours": 168,
            "stale_after_days": 30,
            "archive_after_days": 90,
            "consolidate": false,
            "skills": {"total": 5, "active": 3, "stale": 1, "archived": 1},
            "pinned": ["beta"],
            "least_recently_active": [beta.clone(), gamma.clone(), alpha.clone()],
            "most_active": [alpha.clone(), beta.clone(), gamma.clone()],
            "least_active": [gamma, beta, alpha],
        });
        assert_eq!(status.to_json().to_string(), expected.to_string());
        // Due: the next run is now.
        let late = Status {
            now: ts("2026-06-10T00:00:00Z"),
            ..status
        };
        assert_eq!(
            late.to_json()["next_run_at"],
            json!("2026-06-10T00:00:00+00:00")
        );
    }
}
