//! `hermes-curate prune`: archive, now, the managed skills idle for at least N days — not
//! pinned, not archived, and (unlike Hermes) not named by a cron job.

use std::collections::BTreeSet;

use jiff::Timestamp;

use super::rows::Row;
use crate::clock;
use crate::skills::usage::STATE_ARCHIVED;

/// A skill prune would archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub idle_days: i64,
}

/// The candidates, most idle first (ties by name), and the skills spared because a cron
/// job needs them.
pub fn candidates(
    rows: &[Row],
    cron_refs: &BTreeSet<String>,
    days: i64,
    now: Timestamp,
) -> (Vec<Candidate>, Vec<Candidate>) {
    let mut picked = Vec::new();
    let mut spared = Vec::new();
    for row in rows {
        if row.pinned() || row.state() == Some(STATE_ARCHIVED) {
            continue;
        }
        let Some(idle) = idle_days(row, now) else {
            continue;
        };
        if idle < days {
            continue;
        }
        let c = Candidate {
            name: row.name.clone(),
            idle_days: idle,
        };
        if cron_refs.contains(&row.name) {
            spared.push(c);
        } else {
            picked.push(c);
        }
    }
    picked.sort_by_key(|c| std::cmp::Reverse(c.idle_days));
    (picked, spared)
}

/// `_idle_days`: whole days since the last activity, else since `created_at`, never
/// negative; `None` when neither parses.
pub fn idle_days(row: &Row, now: Timestamp) -> Option<i64> {
    let text = row
        .last_activity_at
        .as_deref()
        .filter(|s| !s.is_empty())
        .or_else(|| row.created_at().filter(|s| !s.is_empty()))?;
    let then = clock::parse_timestamp(text)?;
    let micros = now.as_microsecond() - then.as_microsecond();
    Some(micros.div_euclid(86_400_000_000).max(0))
}
