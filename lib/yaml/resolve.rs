//! Scalar resolution and construction with PyYAML's `SafeLoader` rules (YAML 1.1), and the
//! YAML 1.2 core-schema reading used to spot scalars the two specs read differently.

use std::sync::LazyLock;

use regex::Regex;

use super::value::Value;

/// The tag a plain scalar resolves to under YAML 1.1, as PyYAML's implicit resolvers decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Implicit {
    Bool,
    Float,
    Int,
    Merge,
    Null,
    Timestamp,
    /// `=`: PyYAML resolves it to `tag:yaml.org,2002:value`, which `safe_load` cannot construct.
    ValueTag,
    Str,
}

const TAG_PREFIX: &str = "tag:yaml.org,2002:";

static BOOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
        .expect("static regex")
});
static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
        r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"|[-+]?\.(?:inf|Inf|INF)",
        r"|\.(?:nan|NaN|NAN))$"
    ))
    .expect("static regex")
});
static INT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?0b[0-1_]+",
        r"|[-+]?0[0-7_]+",
        r"|[-+]?(?:0|[1-9][0-9_]*)",
        r"|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
    ))
    .expect("static regex")
});
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?P<year>[0-9][0-9][0-9][0-9])-(?P<month>[0-9][0-9]?)-(?P<day>[0-9][0-9]?)",
        r"(?:(?:[Tt]|[ \t]+)(?P<hour>[0-9][0-9]?):(?P<minute>[0-9][0-9]):(?P<second>[0-9][0-9])",
        r"(?:\.(?P<fraction>[0-9]*))?",
        r"(?:[ \t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)(?::(?P<tz_minute>[0-9][0-9]))?))?)?$"
    ))
    .expect("static regex")
});
/// The implicit timestamp resolver is stricter than the constructor: a date alone needs two-digit
/// month and day.
static TIMESTAMP_IMPLICIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
        r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"
    ))
    .expect("static regex")
});

/// Resolves a plain scalar the way PyYAML's `Resolver` does: resolvers are looked up by the
/// first character and tried in registration order.
pub(crate) fn resolve_plain(text: &str) -> Implicit {
    let Some(first) = text.chars().next() else {
        return Implicit::Null;
    };
    let candidates: &[Implicit] = match first {
        'y' | 'Y' | 'f' | 'F' | 'o' | 'O' | 't' | 'T' => &[Implicit::Bool],
        'n' | 'N' => &[Implicit::Bool, Implicit::Null],
        '-' | '+' => &[Implicit::Float, Implicit::Int],
        '0'..='9' => &[Implicit::Float, Implicit::Int, Implicit::Timestamp],
        '.' => &[Implicit::Float],
        '<' => &[Implicit::Merge],
        '~' => &[Implicit::Null],
        '=' => &[Implicit::ValueTag],
        _ => &[],
    };
    candidates
        .iter()
        .copied()
        .find(|kind| matches_implicit(*kind, text))
        .unwrap_or(Implicit::Str)
}

fn matches_implicit(kind: Implicit, text: &str) -> bool {
    match kind {
        Implicit::Bool => BOOL.is_match(text),
        Implicit::Float => FLOAT.is_match(text),
        Implicit::Int => INT.is_match(text),
        Implicit::Merge => text == "<<",
        Implicit::Null => matches!(text, "~" | "null" | "Null" | "NULL" | ""),
        Implicit::Timestamp => TIMESTAMP_IMPLICIT.is_match(text),
        Implicit::ValueTag => text == "=",
        Implicit::Str => true,
    }
}

/// Why a scalar could not be built into the type its tag asks for.
pub(crate) type ConstructResult = Result<Value, String>;

/// Builds a scalar for a full tag (`tag:yaml.org,2002:int`, …); `None` for tags `safe_load`
/// has no constructor for.
pub(crate) fn construct_tagged(tag: &str, text: &str) -> Option<ConstructResult> {
    let short = tag.strip_prefix(TAG_PREFIX)?;
    Some(match short {
        "str" => Ok(Value::Str(text.to_string())),
        "null" => Ok(Value::Null),
        "bool" => construct_bool(text),
        "int" => construct_int(text),
        "float" => construct_float(text),
        "timestamp" => construct_timestamp(text),
        "binary" => construct_binary(text),
        _ => return None,
    })
}

pub(crate) fn construct_implicit(kind: Implicit, text: &str) -> ConstructResult {
    match kind {
        Implicit::Bool => construct_bool(text),
        Implicit::Float => construct_float(text),
        Implicit::Int => construct_int(text),
        Implicit::Null => Ok(Value::Null),
        Implicit::Timestamp => construct_timestamp(text),
        Implicit::Str | Implicit::Merge | Implicit::ValueTag => Ok(Value::Str(text.to_string())),
    }
}

fn construct_bool(text: &str) -> ConstructResult {
    match text.to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" => Ok(Value::Bool(true)),
        "no" | "false" | "off" => Ok(Value::Bool(false)),
        _ => Err(format!("invalid boolean {text:?}")),
    }
}

fn construct_int(text: &str) -> ConstructResult {
    let cleaned = text.replace('_', "");
    let (negative, digits) = split_sign(&cleaned);
    let invalid = || format!("invalid literal for int() with base 10: {text:?}");
    let magnitude: i128 = if digits == "0" {
        0
    } else if let Some(bin) = digits.strip_prefix("0b") {
        parse_radix(bin, 2).ok_or_else(invalid)?
    } else if let Some(hex) = digits.strip_prefix("0x") {
        parse_radix(hex, 16).ok_or_else(invalid)?
    } else if digits.starts_with('0') {
        parse_radix(digits, 8).ok_or_else(invalid)?
    } else if digits.contains(':') {
        let mut total: i128 = 0;
        for part in digits.split(':') {
            let part: i128 = part.parse().map_err(|_| invalid())?;
            total = total
                .checked_mul(60)
                .and_then(|t| t.checked_add(part))
                .ok_or_else(invalid)?;
        }
        total
    } else {
        parse_radix(digits, 10).ok_or_else(invalid)?
    };
    let signed = if negative { -magnitude } else { magnitude };
    Ok(i64::try_from(signed).map_or_else(|_| Value::BigInt(signed.to_string()), Value::Int))
}

fn parse_radix(digits: &str, radix: u32) -> Option<i128> {
    if digits.is_empty() {
        return None;
    }
    i128::from_str_radix(digits, radix).ok()
}

fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

fn construct_float(text: &str) -> ConstructResult {
    let cleaned = text.replace('_', "").to_ascii_lowercase();
    let (negative, body) = split_sign(&cleaned);
    let sign = if negative { -1.0 } else { 1.0 };
    let invalid = || format!("could not convert string to float: {text:?}");
    let magnitude = if body == ".inf" {
        f64::INFINITY
    } else if body == ".nan" {
        return Ok(Value::Float(f64::NAN));
    } else if body.contains(':') {
        let mut total = 0.0;
        for part in body.split(':') {
            total = total * 60.0 + part.parse::<f64>().map_err(|_| invalid())?;
        }
        total
    } else {
        parse_python_float(body).ok_or_else(invalid)?
    };
    Ok(Value::Float(sign * magnitude))
}

/// `float(text)` for the texts that reach it: Rust's parser accepts a superset of the forms
/// the float resolver lets through, and Python's own words for infinity and NaN.
fn parse_python_float(text: &str) -> Option<f64> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    trimmed.parse::<f64>().ok()
}

fn construct_timestamp(text: &str) -> ConstructResult {
    let invalid = || format!("invalid timestamp {text:?}");
    let caps = TIMESTAMP.captures(text).ok_or_else(invalid)?;
    let num = |name: &str| -> Option<u32> { caps.name(name).and_then(|m| m.as_str().parse().ok()) };
    let (year, month, day) = (
        num("year").ok_or_else(invalid)?,
        num("month").ok_or_else(invalid)?,
        num("day").ok_or_else(invalid)?,
    );
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) || year == 0 {
        return Err(format!("day is out of range for month: {text:?}"));
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    let Some(hour) = num("hour") else {
        return Ok(Value::Timestamp(date));
    };
    let minute = num("minute").ok_or_else(invalid)?;
    let second = num("second").ok_or_else(invalid)?;
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("time is out of range: {text:?}"));
    }
    let mut rendered = format!("{date} {hour:02}:{minute:02}:{second:02}");
    if let Some(fraction) = caps.name("fraction").map(|m| m.as_str()) {
        let mut micros: String = fraction.chars().take(6).collect();
        while micros.len() < 6 {
            micros.push('0');
        }
        if micros != "000000" {
            rendered.push('.');
            rendered.push_str(&micros);
        }
    }
    if let Some(sign) = caps.name("tz_sign").map(|m| m.as_str()) {
        let tz_hour = num("tz_hour").ok_or_else(invalid)?;
        let tz_minute = num("tz_minute").unwrap_or(0);
        let total = tz_hour * 60 + tz_minute;
        if total >= 24 * 60 {
            return Err(format!("offset out of range: {text:?}"));
        }
        let sign = if sign == "-" && total > 0 { '-' } else { '+' };
        rendered.push_str(&format!("{sign}{:02}:{:02}", total / 60, total % 60));
    } else if caps.name("tz").is_some() {
        rendered.push_str("+00:00");
    }
    Ok(Value::Timestamp(rendered))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

/// Lenient base64 as `base64.decodebytes` reads it: characters outside the alphabet are skipped.
fn construct_binary(text: &str) -> ConstructResult {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0u32;
    for byte in text.bytes() {
        let sextet = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => continue,
        };
        buffer = (buffer << 6) | u32::from(sextet);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((buffer >> bits) & 0xff) as u8);
        }
    }
    Ok(Value::Bytes(out))
}

/// How a YAML 1.2 core-schema parser (serde_yaml, most non-Python tools) would read a plain
/// scalar; compared with the YAML 1.1 reading to find the scalars the two disagree on.
pub(crate) fn yaml12_core(text: &str) -> Value {
    static INT12: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$").expect("static regex")
    });
    static FLOAT12: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$")
            .expect("static regex")
    });
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if INT12.is_match(text) {
        let parsed = if let Some(oct) = text.strip_prefix("0o") {
            i64::from_str_radix(oct, 8).ok()
        } else if let Some(hex) = text.strip_prefix("0x") {
            i64::from_str_radix(hex, 16).ok()
        } else {
            text.parse::<i64>().ok()
        };
        return parsed.map_or_else(|| Value::Str(text.to_string()), Value::Int);
    }
    if FLOAT12.is_match(text) {
        let lower = text.to_ascii_lowercase();
        let value = match lower.trim_start_matches(['+', '-']) {
            ".inf" if lower.starts_with('-') => f64::NEG_INFINITY,
            ".inf" => f64::INFINITY,
            ".nan" => f64::NAN,
            _ => lower.parse().unwrap_or(f64::NAN),
        };
        return Value::Float(value);
    }
    Value::Str(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load11(text: &str) -> Value {
        construct_implicit(resolve_plain(text), text).expect("constructs")
    }

    #[test]
    fn yaml11_booleans() {
        for t in ["yes", "Yes", "YES", "on", "On", "true", "TRUE"] {
            assert_eq!(load11(t), Value::Bool(true), "{t}");
        }
        for t in ["no", "NO", "off", "Off", "false", "False"] {
            assert_eq!(load11(t), Value::Bool(false), "{t}");
        }
        for t in ["y", "n", "yEs", "oN", "tRue"] {
            assert_eq!(load11(t), Value::Str(t.into()), "{t}");
        }
    }

    #[test]
    fn yaml11_numbers() {
        assert_eq!(load11("0777"), Value::Int(511));
        assert_eq!(load11("0x1F"), Value::Int(31));
        assert_eq!(load11("0b101"), Value::Int(5));
        assert_eq!(load11("1_000"), Value::Int(1000));
        assert_eq!(load11("1:30"), Value::Int(90));
        assert_eq!(load11("-0"), Value::Int(0));
        assert_eq!(load11("1.5"), Value::Float(1.5));
        assert_eq!(load11("1.0e+3"), Value::Float(1000.0));
        assert_eq!(load11("1e3"), Value::Str("1e3".into()));
        assert_eq!(load11("1.0e3"), Value::Str("1.0e3".into()));
        assert_eq!(load11("-.inf"), Value::Float(f64::NEG_INFINITY));
        assert_eq!(load11("1:30.5"), Value::Float(90.5));
        assert_eq!(load11("0o17"), Value::Str("0o17".into()));
        assert_eq!(load11("08"), Value::Str("08".into()));
        assert_eq!(
            load11("99999999999999999999"),
            Value::BigInt("99999999999999999999".into())
        );
    }

    #[test]
    fn yaml11_nulls_and_timestamps() {
        assert_eq!(load11(""), Value::Null);
        assert_eq!(load11("~"), Value::Null);
        assert_eq!(load11("none"), Value::Str("none".into()));
        assert_eq!(load11("2024-01-05"), Value::Timestamp("2024-01-05".into()));
        assert_eq!(load11("2024-1-5"), Value::Str("2024-1-5".into()));
        assert_eq!(
            load11("2001-12-14t21:59:43.10-05:00"),
            Value::Timestamp("2001-12-14 21:59:43.100000-05:00".into())
        );
        assert_eq!(
            load11("2001-12-14 21:59:43Z"),
            Value::Timestamp("2001-12-14 21:59:43+00:00".into())
        );
        assert_eq!(resolve_plain("="), Implicit::ValueTag);
        assert!(construct_timestamp("2023-02-30").is_err());
    }

    #[test]
    fn yaml12_reads_differently() {
        assert_eq!(yaml12_core("yes"), Value::Str("yes".into()));
        assert_eq!(yaml12_core("0777"), Value::Int(777));
        assert_eq!(yaml12_core("1e3"), Value::Float(1000.0));
        assert_eq!(yaml12_core("true"), Value::Bool(true));
    }

    #[test]
    fn binary_decodes_leniently() {
        assert_eq!(
            construct_binary("aGVs\nbG8=").expect("decodes"),
            Value::Bytes(b"hello".to_vec())
        );
    }
}
