//! Small pieces of Python's `str` behaviour the skill tools depend on: what `strip()` strips,
//! what a failed UTF-8 decode says, and slicing by code points.

use std::path::Path;

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
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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

    #[test]
    fn strip_and_slices() {
        assert_eq!(strip("\u{1c} a \n"), "a");
        assert_eq!(take_chars("héllo", 2), "hé");
        assert_eq!(take_chars("hi", 5), "hi");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_048_576), "1,048,576");
        assert_eq!(thousands(999), "999");
    }
}
