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
