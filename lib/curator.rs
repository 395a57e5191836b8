//! The curator: keeps the skill library lean. From cron it marks agent-created skills that
//! nobody uses stale, archives them later, reactivates them when they are used again, and
//! never touches what a person wrote, what came bundled or from the hub, or what a cron job
//! needs. Every real run is preceded by a backup of `skills/` and followed by a report.
//!
//! On Hermes 0.19.0's formats (`.curator_state`, `.usage.json`, `.archive/`,
//! `.curator_backups/`, `logs/curator/`), so Python Hermes reads what this writes. Unlike
//! upstream, one run reads the tree and the sidecar once and writes the sidecar once.

pub mod backup;
pub mod classify;
pub mod command;
pub mod consolidate;
pub mod cron;
pub mod manage;
pub mod model;
pub mod prune;
pub mod report;
pub mod rows;
pub mod run;
pub mod state;
pub mod status;
pub mod transitions;
pub mod usage_report;

use jiff::Timestamp;

/// `strftime` of a UTC instant (`%Y%m%d-%H%M%S` and the like).
pub(crate) fn utc_stamp(ts: Timestamp, format: &str) -> String {
    jiff::fmt::strtime::format(format, &ts.to_zoned(jiff::tz::TimeZone::UTC)).unwrap_or_default()
}

/// `now - days`, clamped where Python's `timedelta` would overflow.
pub(crate) fn days_before(now: Timestamp, days: i64) -> Timestamp {
    let secs = days.saturating_mul(86_400);
    match now.checked_sub(jiff::SignedDuration::from_secs(secs)) {
        Ok(ts) => ts,
        Err(_) if secs > 0 => Timestamp::MIN,
        Err(_) => Timestamp::MAX,
    }
}

/// Python's `_fmt_ts`: how long ago, in the largest whole unit (`never` when absent; the
/// text itself when it does not parse).
pub fn ago(text: Option<&str>, now: Timestamp) -> String {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return "never".into();
    };
    let Some(then) = crate::clock::parse_timestamp(text) else {
        return text.to_string();
    };
    // int(total_seconds()) truncates toward zero.
    let micros = now.as_microsecond() - then.as_microsecond();
    let secs = micros / 1_000_000;
    if secs < 60 {
        format!("{secs}s ago")
    } else if secs < 3600 {
        format!("{}m ago", secs / 60)
    } else if secs < 86_400 {
        format!("{}h ago", secs / 3600)
    } else {
        format!("{}d ago", secs / 86_400)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        crate::clock::parse_timestamp(s).expect("ts")
    }

    #[test]
    fn ago_uses_the_largest_whole_unit() {
        let now = ts("2026-06-01T12:00:00Z");
        assert_eq!(ago(None, now), "never");
        assert_eq!(ago(Some("garbage"), now), "garbage");
        assert_eq!(ago(Some("2026-06-01T11:59:01Z"), now), "59s ago");
        assert_eq!(ago(Some("2026-06-01T11:00:00"), now), "1h ago");
        assert_eq!(ago(Some("2026-05-29T12:00:00+00:00"), now), "3d ago");
        assert_eq!(ago(Some("2026-06-01T12:00:30Z"), now), "-30s ago");
        // Each unit starts at its first whole one.
        assert_eq!(ago(Some("2026-06-01T11:59:00Z"), now), "1m ago");
        assert_eq!(ago(Some("2026-06-01T11:00:01Z"), now), "59m ago");
        assert_eq!(ago(Some("2026-05-31T12:00:01Z"), now), "23h ago");
        assert_eq!(ago(Some("2026-05-31T12:00:00Z"), now), "1d ago");
    }

    #[test]
    fn cutoffs_clamp_instead_of_overflowing() {
        let now = ts("2026-06-01T12:00:00Z");
        assert_eq!(days_before(now, 30), ts("2026-05-02T12:00:00Z"));
        assert_eq!(days_before(now, i64::MAX), Timestamp::MIN);
        assert_eq!(days_before(now, i64::MIN), Timestamp::MAX);
    }
}
