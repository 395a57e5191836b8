//! `hermes-curate usage`: telemetry for every local skill with its provenance, sorted and
//! filtered as `hermes curator usage` does.

use jiff::Timestamp;

use super::ago;
use super::rows::Row;

/// The order of the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Most activity first (the default).
    #[default]
    Activity,
    /// Most recent activity first; never-active last.
    Recent,
    Name,
}

impl Sort {
    pub fn parse(text: &str) -> Option<Sort> {
        match text {
            "activity" => Some(Sort::Activity),
            "recent" => Some(Sort::Recent),
            "name" => Some(Sort::Name),
            _ => None,
        }
    }
}

/// Filters by provenance (`agent`, `bundled`, `hub`) and sorts. The rows come sorted by
/// name; the sorts are stable, as Python's.
pub fn select(mut rows: Vec<Row>, provenance: Option<&str>, sort: Sort) -> Vec<Row> {
    if let Some(p) = provenance {
        rows.retain(|r| r.provenance.map(|o| o.as_str()) == Some(p));
    }
    match sort {
        Sort::Name => rows.sort_by(|a, b| a.name.cmp(&b.name)),
        Sort::Recent => rows.sort_by(|a, b| {
            let key = |r: &Row| r.last_activity_at.clone().unwrap_or_default();
            key(b).cmp(&key(a))
        }),
        Sort::Activity => rows.sort_by_key(|r| std::cmp::Reverse(r.activity_count)),
    }
    rows
}

/// The table Hermes prints.
pub fn text(rows: &[Row], now: Timestamp) -> String {
    if rows.is_empty() {
        return "curator: no skills found".into();
    }
    let count = |p: &str| {
        rows.iter()
            .filter(|r| r.provenance.map(|o| o.as_str()) == Some(p))
            .count()
    };
    let mut out = vec![
        format!(
            "skills: {} total  (agent={}  bundled={}  hub={})",
            rows.len(),
            count("agent"),
            count("bundled"),
            count("hub")
        ),
        String::new(),
        format!(
            "  {:<40}  {:<8}  {:>4}  {:>4}  {:>5}  {:>4}  last_activity",
            "skill", "origin", "use", "view", "patch", "act"
        ),
    ];
    for r in rows {
        let name: String = r.name.chars().take(40).collect();
        out.push(format!(
            "  {:<40}  {:<8}  {:>4}  {:>4}  {:>5}  {:>4}  {}",
            name,
            r.provenance.map_or("agent", |o| o.as_str()),
            r.counter("use_count"),
            r.counter("view_count"),
            r.counter("patch_count"),
            r.activity_count,
            ago(r.last_activity_at.as_deref(), now)
        ));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::curator::rows::fixture::{row, ts};
    use crate::skills::provenance::Origin;

    const LONG: &str = "a-hub-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

    /// In name order, as `rows::usage` hands them over.
    fn rows() -> Vec<Row> {
        let now = ts("2026-06-01T12:00:00Z");
        let with = |name: &str, origin: Origin, record| {
            let mut r = row(name, record, now);
            r.provenance = Some(origin);
            r
        };
        vec![
            with(
                LONG,
                Origin::Hub,
                json!({"use_count": 1, "last_used_at": "2026-05-01T12:00:00+00:00"}),
            ),
            with(
                "b-agent",
                Origin::Agent,
                json!({"use_count": 5, "view_count": 1,
                       "last_used_at": "2026-05-20T12:00:00+00:00"}),
            ),
            with("c-bundled", Origin::Bundled, json!({})),
            with(
                "d-agent",
                Origin::Agent,
                json!({"use_count": 1, "last_used_at": "2026-05-31T12:00:00+00:00"}),
            ),
        ]
    }

    fn names(rows: &[Row]) -> Vec<&str> {
        rows.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn sort_words() {
        assert_eq!(Sort::parse("activity"), Some(Sort::Activity));
        assert_eq!(Sort::parse("recent"), Some(Sort::Recent));
        assert_eq!(Sort::parse("name"), Some(Sort::Name));
        assert_eq!(Sort::parse("Name"), None);
    }

    /// Most active first (ties keep name order), most recent first (never-active last),
    /// by name; and only one provenance when asked.
    #[test]
    fn select_filters_then_sorts_stably() {
        assert_eq!(
            names(&select(rows(), None, Sort::Activity)),
            ["b-agent", LONG, "d-agent", "c-bundled"]
        );
        assert_eq!(
            names(&select(rows(), None, Sort::Recent)),
            ["d-agent", "b-agent", LONG, "c-bundled"]
        );
        let mut reversed = rows();
        reversed.reverse();
        assert_eq!(
            names(&select(reversed, None, Sort::Name)),
            [LONG, "b-agent", "c-bundled", "d-agent"]
        );
        assert_eq!(
            names(&select(rows(), Some("agent"), Sort::Name)),
            ["b-agent", "d-agent"]
        );
        assert_eq!(names(&select(rows(), Some("hub"), Sort::Activity)), [LONG]);
    }

    #[test]
    fn the_table_hermes_prints() {
        let now = ts("2026-06-01T12:00:00Z");
        let rows = select(rows(), None, Sort::Activity);
        assert_eq!(
            text(&rows, now),
            [
                "skills: 4 total  (agent=2  bundled=1  hub=1)",
                "",
                "  skill                                     origin     use  view  patch   act  last_activity",
                "  b-agent                                   agent        5     1      0     6  12d ago",
                "  a-hub-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  hub          1     0      0     1  31d ago",
                "  d-agent                                   agent        1     0      0     1  1d ago",
                "  c-bundled                                 bundled      0     0      0     0  never",
            ]
            .join("\n")
        );
        assert_eq!(text(&[], now), "curator: no skills found");
    }
}
