//! The current time, injectable with `HERMES_NOW`, and timestamps in the ISO-8601 form Python's
//! `datetime.isoformat()` writes (`2026-11-29T19:08:47.655155+00:00`, fraction dropped when 0).

use jiff::civil::DateTime;
use jiff::tz::{Offset, TimeZone};
use jiff::{Timestamp, Zoned};

/// The variable that, when set, replaces the system clock for every binary.
pub const NOW_VAR: &str = "HERMES_NOW";

/// `HERMES_NOW` holds something that is not a timestamp.
#[derive(Debug, thiserror::Error)]
#[error("HERMES_NOW={value:?} is not an ISO-8601 timestamp (try 2026-11-29T12:00:00Z)")]
pub struct BadNow {
    pub value: String,
}

/// Now, at microsecond precision like Python's `datetime`: `HERMES_NOW` when set, else the
/// system clock. A malformed `HERMES_NOW` is an error, never silently ignored.
pub fn now() -> Result<Timestamp, BadNow> {
    match std::env::var(NOW_VAR) {
        Ok(value) if !value.trim().is_empty() => parse_timestamp(&value).ok_or(BadNow { value }),
        _ => Ok(truncate_to_micros(Timestamp::now())),
    }
}

fn truncate_to_micros(ts: Timestamp) -> Timestamp {
    Timestamp::from_microsecond(ts.as_microsecond()).unwrap_or(ts)
}

/// Parses what Python's `datetime.fromisoformat` accepts in practice: an offset or `Z`, or
/// none (a naive time, taken as UTC as Hermes does), `T` or a space between date and time,
/// or a date alone (midnight UTC). `None` for anything else.
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Some(truncate_to_micros(ts));
    }
    if let Ok(zoned) = text.parse::<Zoned>() {
        return Some(truncate_to_micros(zoned.timestamp()));
    }
    if let Ok(zoned) = jiff::fmt::temporal::Pieces::parse(text)
        && let Some(offset) = zoned.offset()
    {
        // Valid but past the last instant jiff represents (9999-12-30T22:00Z, so that every
        // offset can be applied): the latest instant there is, not an error.
        let civil = zoned.date().to_datetime(zoned.time().unwrap_or_default());
        return Some(clamp(civil, offset.to_numeric_offset()));
    }
    let naive = text.replacen(' ', "T", 1);
    let civil = naive.parse::<DateTime>().ok().or_else(|| {
        naive
            .parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    })?;
    Some(clamp(civil, Offset::UTC))
}

/// `civil` at `offset`, clamped to the range of instants jiff can hold.
fn clamp(civil: DateTime, offset: Offset) -> Timestamp {
    match civil.to_zoned(TimeZone::fixed(offset)) {
        Ok(z) => truncate_to_micros(z.timestamp()),
        Err(_) if civil.year() > 0 => truncate_to_micros(Timestamp::MAX),
        Err(_) => truncate_to_micros(Timestamp::MIN),
    }
}

/// `datetime.isoformat()` of an aware UTC datetime.
pub fn isoformat(ts: Timestamp) -> String {
    isoformat_with_offset(ts, Offset::UTC)
}

/// `datetime.isoformat()` at a given UTC offset (`+05:30`, `-08:00`).
pub fn isoformat_with_offset(ts: Timestamp, offset: Offset) -> String {
    let dt = offset.to_datetime(ts);
    let micros = dt.subsec_nanosecond() / 1000;
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    );
    if micros != 0 {
        out.push_str(&format!(".{micros:06}"));
    }
    let total = offset.seconds();
    let sign = if total < 0 { '-' } else { '+' };
    let abs = total.unsigned_abs();
    out.push_str(&format!("{sign}{:02}:{:02}", abs / 3600, (abs % 3600) / 60));
    if !abs.is_multiple_of(60) {
        out.push_str(&format!(":{:02}", abs % 60));
    }
    out
}

/// Seconds since the Unix epoch as a float, like Python's `time.time()`.
pub fn unix_seconds(ts: Timestamp) -> f64 {
    ts.as_microsecond() as f64 / 1_000_000.0
}

/// The seconds a run's clock holds still at: `now` when `hermes_now` (the value of
/// `HERMES_NOW`) is set and not blank; `None` for a live clock.
pub fn fixed_seconds(now: Timestamp, hermes_now: Option<String>) -> Option<f64> {
    hermes_now
        .filter(|v| !v.trim().is_empty())
        .map(|_| unix_seconds(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermes_now_fixes_the_clock_unless_blank() {
        let now = Timestamp::from_second(1_780_000_000).unwrap_or_default();
        assert_eq!(
            fixed_seconds(now, Some("2026-05-28T20:26:40Z".into())),
            Some(1_780_000_000.0)
        );
        assert_eq!(fixed_seconds(now, Some("  ".into())), None);
        assert_eq!(fixed_seconds(now, None), None);
    }

    #[test]
    fn isoformat_drops_zero_fraction_like_python() {
        let ts = parse_timestamp("2026-11-29T19:08:47Z").expect("parses");
        assert_eq!(isoformat(ts), "2026-11-29T19:08:47+00:00");
        let ts = parse_timestamp("2026-11-29T19:08:47.655155+00:00").expect("parses");
        assert_eq!(isoformat(ts), "2026-11-29T19:08:47.655155+00:00");
    }

    #[test]
    fn naive_and_spaced_forms_are_utc() {
        let a = parse_timestamp("2026-06-01 12:00:00").expect("spaced");
        let b = parse_timestamp("2026-06-01T12:00:00").expect("naive");
        let c = parse_timestamp("2026-06-01T14:00:00+02:00").expect("offset");
        assert_eq!(a, b);
        assert_eq!(b, c);
        assert_eq!(
            parse_timestamp("2026-06-01"),
            parse_timestamp("2026-06-01T00:00:00Z")
        );
        assert_eq!(parse_timestamp("garbage"), None);
        assert_eq!(parse_timestamp(""), None);
    }

    #[test]
    fn the_last_second_of_9999_is_valid() {
        let last = parse_timestamp("9999-12-31T23:59:59Z").expect("valid");
        assert_eq!(last, truncate_to_micros(Timestamp::MAX));
        assert_eq!(parse_timestamp("9999-12-31T23:59:59"), Some(last));
        assert_eq!(parse_timestamp("9999-12-31"), Some(last));
        assert_eq!(parse_timestamp("9999-13-31T00:00:00Z"), None);
    }

    #[test]
    fn nanoseconds_are_truncated_to_micros() {
        let ts = parse_timestamp("2026-06-01T12:00:00.1234567Z").expect("parses");
        assert_eq!(isoformat(ts), "2026-06-01T12:00:00.123456+00:00");
    }

    #[test]
    fn offsets_print_like_python() {
        let ts = parse_timestamp("2026-06-01T12:00:00Z").expect("parses");
        let offset = Offset::from_seconds(-(5 * 3600 + 30 * 60)).expect("offset");
        assert_eq!(
            isoformat_with_offset(ts, offset),
            "2026-06-01T06:30:00-05:30"
        );
    }
}
