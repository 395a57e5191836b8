//! `_format_timestamp`: a session's start as the tool shows it, `"November 14, 2023 at 10:13
//! PM"`, in the process's local time zone (`TZ`), as `datetime.fromtimestamp(ts).strftime(
//! "%B %d, %Y at %I:%M %p")` writes it.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use rusqlite::types::Value as SqlValue;

use crate::io::pyjson::py_float_repr;

/// Formats a `started_at` value: `"unknown"` for NULL, local time for a number or a numeric
/// string, any other string as it is, and Python's `str()` of the value when it is out of
/// `datetime`'s range.
pub fn format(value: &SqlValue) -> String {
    match value {
        SqlValue::Null => "unknown".into(),
        SqlValue::Integer(i) => local(*i as f64).unwrap_or_else(|| i.to_string()),
        SqlValue::Real(f) => local(*f).unwrap_or_else(|| py_float_repr(*f)),
        SqlValue::Text(s) => {
            let digits: String = s.chars().filter(|c| *c != '.' && *c != '-').collect();
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                match s.parse::<f64>() {
                    Ok(f)
                        if s.bytes()
                            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-') =>
                    {
                        local(f).unwrap_or_else(|| s.clone())
                    }
                    _ => s.clone(),
                }
            } else {
                s.clone()
            }
        }
        SqlValue::Blob(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// `datetime.fromtimestamp(ts)` (microseconds rounded half to even, as CPython does) in
/// the local zone, formatted; `None` where Python raises.
fn local(ts: f64) -> Option<String> {
    if !ts.is_finite() {
        return None;
    }
    let mut seconds = ts.trunc();
    let mut micros = round_half_even((ts - seconds) * 1e6);
    if micros >= 1e6 {
        micros -= 1e6;
        seconds += 1.0;
    } else if micros < 0.0 {
        micros += 1e6;
        seconds -= 1.0;
    }
    if seconds.abs() > 1e15 {
        return None;
    }
    let stamp = Timestamp::new(seconds as i64, (micros as i32) * 1000).ok()?;
    let zoned = stamp.to_zoned(local_zone().clone());
    let year = zoned.year();
    if !(1..=9999).contains(&year) {
        return None;
    }
    Some(format!(
        "{} {:02}, {} at {:02}:{:02} {}",
        MONTHS[(zoned.month() - 1) as usize],
        zoned.day(),
        year,
        match zoned.hour() % 12 {
            0 => 12,
            h => h,
        },
        zoned.minute(),
        if zoned.hour() < 12 { "AM" } else { "PM" }
    ))
}

/// The process's local zone, as C's `localtime` finds it: `TZ` naming a zoneinfo file
/// (`Asia/Kolkata`, `:Europe/Paris`, an absolute path) or a POSIX rule (`EST5EDT`), an empty
/// `TZ` meaning UTC, no `TZ` meaning `/etc/localtime`. Read once, and without walking the
/// whole zoneinfo tree (which `TimeZone::system()` may do, at a cost of milliseconds).
fn local_zone() -> &'static TimeZone {
    static ZONE: std::sync::OnceLock<TimeZone> = std::sync::OnceLock::new();
    ZONE.get_or_init(|| {
        let read = |path: &std::path::Path, name: &str| {
            std::fs::read(path)
                .ok()
                .and_then(|data| TimeZone::tzif(name, &data).ok())
        };
        match std::env::var("TZ") {
            Err(_) => {
                read(std::path::Path::new("/etc/localtime"), "Local").unwrap_or(TimeZone::UTC)
            }
            Ok(tz) => {
                let name = tz.strip_prefix(':').unwrap_or(&tz);
                if name.is_empty() {
                    return TimeZone::UTC;
                }
                let dir = std::env::var("TZDIR").unwrap_or_else(|_| "/usr/share/zoneinfo".into());
                let path = if name.starts_with('/') {
                    std::path::PathBuf::from(name)
                } else {
                    std::path::Path::new(&dir).join(name)
                };
                let from_file = (!name.contains("..")).then(|| read(&path, name)).flatten();
                from_file
                    .or_else(|| TimeZone::posix(name).ok())
                    .unwrap_or(TimeZone::UTC)
            }
        }
    })
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // TZ is process-wide; these tests read only UTC-independent properties or set nothing.
    #[test]
    fn nulls_strings_and_out_of_range_values() {
        assert_eq!(format(&SqlValue::Null), "unknown");
        assert_eq!(format(&SqlValue::Text("yesterday".into())), "yesterday");
        assert_eq!(format(&SqlValue::Real(1e20)), "1e+20");
        assert_eq!(format(&SqlValue::Real(f64::INFINITY)), "inf");
        assert_eq!(format(&SqlValue::Integer(400_000_000_000)), "400000000000");
    }

    #[test]
    fn layout_is_strftimes() {
        let text = format(&SqlValue::Real(1_700_000_000.0));
        // 2023-11-14T22:13:20Z: whatever the zone, the day is the 14th or 15th.
        assert!(
            text.starts_with("November 14, 2023 at ") || text.starts_with("November 15, 2023 at "),
            "{text}"
        );
        assert!(text.ends_with(" AM") || text.ends_with(" PM"), "{text}");
        assert_eq!(format(&SqlValue::Text("1700000000".into())), text);
    }

    #[test]
    fn rounding_is_half_even() {
        assert_eq!(round_half_even(0.5), 0.0);
        assert_eq!(round_half_even(1.5), 2.0);
        assert_eq!(round_half_even(2.4), 2.0);
        assert_eq!(round_half_even(-0.5), -0.0);
    }
}
