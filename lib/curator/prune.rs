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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::curator::rows::fixture::{row, ts};

    fn c(name: &str, idle_days: i64) -> Candidate {
        Candidate {
            name: name.into(),
            idle_days,
        }
    }

    /// At least `days` idle (the boundary included), counted from the last activity, else
    /// from creation; pinned and archived skills never, a cron job's spared; most idle
    /// first, ties in name order.
    #[test]
    fn candidates_idle_at_least_the_days_most_idle_first() {
        let now = ts("2026-06-01T12:00:00Z");
        let rows = vec![
            row(
                "a-old",
                json!({"last_used_at": "2026-03-01T12:00:00+00:00"}),
                now,
            ),
            row(
                "b-edge",
                json!({"created_at": "2026-05-02T12:00:00+00:00"}),
                now,
            ),
            row(
                "c-young",
                json!({"last_used_at": "2026-05-02T12:00:01+00:00",
                       "created_at": "2026-01-01T00:00:00+00:00"}),
                now,
            ),
            row(
                "d-pinned",
                json!({"pinned": true, "created_at": "2026-01-01T00:00:00+00:00"}),
                now,
            ),
            row(
                "e-archived",
                json!({"state": "archived", "created_at": "2026-01-01T00:00:00+00:00"}),
                now,
            ),
            row(
                "f-cron",
                json!({"created_at": "2026-04-01T12:00:00+00:00"}),
                now,
            ),
            row(
                "g-tie",
                json!({"last_viewed_at": "2026-03-01T12:00:00+00:00"}),
                now,
            ),
            row("h-bad", json!({"created_at": "garbage"}), now),
        ];
        let cron: BTreeSet<String> = ["f-cron".to_string()].into();
        let (picked, spared) = candidates(&rows, &cron, 30, now);
        assert_eq!(picked, [c("a-old", 92), c("g-tie", 92), c("b-edge", 30)]);
        assert_eq!(spared, [c("f-cron", 61)]);
        let (picked, spared) = candidates(&rows, &cron, 31, now);
        assert_eq!(picked, [c("a-old", 92), c("g-tie", 92)]);
        assert_eq!(spared, [c("f-cron", 61)]);
    }

    #[test]
    fn idle_days_are_whole_days_never_negative() {
        let now = ts("2026-06-01T12:00:00Z");
        let idle = |record| idle_days(&row("s", record, now), now);
        assert_eq!(
            idle(json!({"last_used_at": "2026-05-30T00:00:00+00:00",
                        "created_at": "2026-01-01T00:00:00+00:00"})),
            Some(2)
        );
        assert_eq!(
            idle(json!({"created_at": "2026-05-31T11:59:59+00:00"})),
            Some(1)
        );
        assert_eq!(
            idle(json!({"created_at": "2026-05-31T12:00:01+00:00"})),
            Some(0)
        );
        assert_eq!(
            idle(json!({"last_patched_at": "2026-06-03T00:00:00+00:00"})),
            Some(0)
        );
        assert_eq!(idle(json!({"created_at": ""})), None);
        assert_eq!(
            idle(json!({"created_at": "2025-06-01T12:00:00"})),
            Some(365)
        );
    }
}
