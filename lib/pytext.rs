//! Python's text rules that our answers must reproduce character for character, in one place
//! for every area: what `str.isspace`/`strip`/`split` take, Python's Unicode `\w`, `int()` of
//! a text or JSON value, `str()`/`repr()` of values, `{n:,}`, slicing by code points, and the
//! messages of a failed UTF-8 decode or an `OSError`.

mod word;

use std::path::Path;

use serde_json::Value;

/// `str.isspace()` for one character: Unicode White_Space plus the ASCII separators
/// U+001C-U+001F, which Python counts as whitespace and Rust does not.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `s[:n]` by code points.
pub fn take_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((byte, _)) => &s[..byte],
        None => s,
    }
}

/// `len(s)` in code points.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Python's `{n:,}`: thousands separated by commas.
pub fn thousands(n: impl TryInto<i128>) -> String {
    let n: i128 = n.try_into().unwrap_or(i128::MAX);
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `str.split()` with no separator: runs of whitespace split, empty parts dropped.
pub fn split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|part| !part.is_empty())
}

/// A character of Python's Unicode `\w`: `str.isalnum()` or `_`, that is a letter (L*) or a
/// number (N*). Rust's `\w` and `char::is_alphanumeric` also take combining marks, so
/// neither will do.
pub fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    word::is_word(c)
}

/// Python's `int(value)` of a JSON tool argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyInt {
    /// Fits SQLite's 64-bit integers.
    Small(i64),
    /// A Python int beyond 64 bits (`int("9" * 40)`), with its sign: fine to clamp, but
    /// SQLite cannot take it.
    Big(bool),
}

impl PyInt {
    /// The value clamped into 64 bits.
    pub fn saturating(self) -> i64 {
        match self {
            PyInt::Small(n) => n,
            PyInt::Big(false) => i64::MAX,
            PyInt::Big(true) => i64::MIN,
        }
    }
}

/// Python's `int(value)` for a JSON tool argument: integers as they are, floats truncated,
/// booleans as 0/1, strings parsed as `int()` parses them (surrounding whitespace, a sign,
/// `_` between digits); `None` where Python raises (`null`, lists, objects, bad strings,
/// non-finite floats).
pub fn py_int_of(value: &Value) -> Option<PyInt> {
    match value {
        Value::Bool(b) => Some(PyInt::Small(i64::from(*b))),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Some(PyInt::Small(i)),
            None => n.as_u64().map(|_| PyInt::Big(false)).or_else(|| {
                let f = n.as_f64()?.trunc();
                if !f.is_finite() {
                    None
                } else if f.abs() < 9.2e18 {
                    Some(PyInt::Small(f as i64))
                } else {
                    Some(PyInt::Big(f < 0.0))
                }
            }),
        },
        Value::String(s) => parse_int(s),
        _ => None,
    }
}

/// [`py_int_of`], clamped into 64 bits (for arguments that are clamped anyway).
pub fn py_int(value: &Value) -> Option<i64> {
    py_int_of(value).map(PyInt::saturating)
}

/// `int(text)` for base 10, ASCII digits only (Python also takes other scripts' digits).
pub fn parse_int(text: &str) -> Option<PyInt> {
    let text = strip(text);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut n: i64 = 0;
    let mut big = false;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(10)? as i64;
        match n.checked_mul(10).and_then(|n| n.checked_add(d)) {
            Some(next) => n = next,
            None => big = true,
        }
    }
    Some(if big {
        PyInt::Big(negative)
    } else {
        PyInt::Small(if negative { -n } else { n })
    })
}

/// Python's `repr(str)`: single quotes unless the text holds `'` and no `"`; backslash
/// escapes for the quote, `\\`, `\n`, `\r`, `\t` and other control characters.
pub fn repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if (0x80..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `str()` of a JSON value: text as it is, everything else as `repr()`.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of a JSON value (`None`, `True`, `'text'`, `[1, 'a']`, `{'k': 2.0}`).
pub fn py_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) => crate::io::pyjson::py_float_repr(f),
            None => n.to_string(),
        },
        Value::String(s) => repr(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python truthiness of a JSON value.
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::Bool(true) => true,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Reads a file as strict UTF-8 the way `Path.read_text(encoding="utf-8")` does, with
/// Python's error text for a bad byte (`'utf-8' codec can't decode byte 0xff in position 2:
/// invalid start byte`) or the OS error.
pub fn read_utf8(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| os_error(&e, path))?;
    String::from_utf8(bytes).map_err(|e| decode_error(e.as_bytes(), e.utf8_error()))
}

/// Python's `UnicodeDecodeError` message for invalid UTF-8.
pub fn decode_error(bytes: &[u8], err: std::str::Utf8Error) -> String {
    let pos = err.valid_up_to();
    let (len, reason) = match err.error_len() {
        None => (bytes.len() - pos, "unexpected end of data"),
        Some(n) => {
            let lead = bytes[pos];
            let bad_start = matches!(lead, 0x80..=0xC1 | 0xF5..=0xFF);
            (
                n,
                if bad_start {
                    "invalid start byte"
                } else {
                    "invalid continuation byte"
                },
            )
        }
    };
    if len <= 1 {
        format!(
            "'utf-8' codec can't decode byte 0x{:02x} in position {pos}: {reason}",
            bytes.get(pos).copied().unwrap_or(0)
        )
    } else {
        format!(
            "'utf-8' codec can't decode bytes in position {pos}-{}: {reason}",
            pos + len - 1
        )
    }
}

/// An `OSError`'s text as Python prints it: `[Errno 13] Permission denied: '/x'`.
pub fn os_error(err: &std::io::Error, path: &Path) -> String {
    let text = err.to_string();
    let message = text.split(" (os error").next().unwrap_or(&text).to_string();
    match err.raw_os_error() {
        Some(code) => format!("[Errno {code}] {message}: '{}'", path.display()),
        None => format!("{message}: '{}'", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(bytes: &[u8]) -> String {
        let err = std::str::from_utf8(bytes).expect_err("invalid");
        decode_error(bytes, err)
    }

    #[test]
    fn decode_errors_read_like_python() {
        assert_eq!(
            message(b"ab\xffc"),
            "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"
        );
        assert_eq!(
            message(b"\xe2\x82"),
            "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"
        );
        assert_eq!(
            message(b"a\xe2\x28\xa1"),
            "'utf-8' codec can't decode byte 0xe2 in position 1: invalid continuation byte"
        );
    }

    use serde_json::json;

    #[test]
    fn strip_and_slices() {
        assert_eq!(strip("\u{1c} a \n"), "a");
        assert_eq!(take_chars("héllo", 2), "hé");
        assert_eq!(take_chars("hi", 5), "hi");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_048_576), "1,048,576");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn whitespace_is_pythons() {
        assert_eq!(strip("\u{1f} a b\u{3000}\n"), "a b");
        assert_eq!(
            split(" a\u{1c}b  c\u{a0}d ").collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        assert!(!is_space('\u{200b}'));
    }

    #[test]
    fn word_characters_are_letters_numbers_and_underscore() {
        for c in ['a', 'Z', '_', '7', 'é', '数', 'カ', '한', '²', 'Ⅻ', '٣'] {
            assert!(is_word(c), "{c:?}");
        }
        // Combining marks, connector punctuation other than `_`, symbols.
        for c in ['\u{301}', '\u{903}', '‿', '-', '.', '€', ' ', '\0'] {
            assert!(!is_word(c), "{c:?}");
        }
    }

    #[test]
    fn int_is_pythons_int() {
        assert_eq!(py_int(&json!(7)), Some(7));
        assert_eq!(py_int(&json!(-3.9)), Some(-3));
        assert_eq!(py_int(&json!(true)), Some(1));
        assert_eq!(py_int(&json!(" +1_000 ")), Some(1000));
        assert_eq!(py_int(&json!("1__0")), None);
        assert_eq!(py_int(&json!("1.5")), None);
        assert_eq!(py_int(&json!("abc")), None);
        assert_eq!(py_int(&json!(null)), None);
        assert_eq!(py_int(&json!([1])), None);
        assert_eq!(py_int(&json!("99999999999999999999")), Some(i64::MAX));
        assert_eq!(
            py_int_of(&json!("-99999999999999999999")),
            Some(PyInt::Big(true))
        );
        assert_eq!(py_int_of(&json!(1e20)), Some(PyInt::Big(false)));
    }

    #[test]
    fn repr_quotes_like_python() {
        assert_eq!(repr("Bad!"), "'Bad!'");
        assert_eq!(repr("it's"), "\"it's\"");
        assert_eq!(repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(repr("x\ny\u{1}"), "'x\\ny\\x01'");
    }
}
