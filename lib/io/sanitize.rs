//! Text from skills and memories is adversarial: before it reaches a terminal, control,
//! bidi, zero-width and tag characters are shown as escapes instead of acting on the screen.

use std::borrow::Cow;

/// Whether `c` would move the cursor, reorder text or hide itself on a terminal.
pub fn is_unsafe_for_terminal(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}')
}

/// `text` with every unsafe character replaced by a visible `\u{…}` escape. Newlines and tabs
/// are kept.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_for_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe_for_terminal(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_acts_on_a_terminal() {
        assert_eq!(for_terminal("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(for_terminal("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(
            for_terminal("x\u{202e}y\u{200b}z\u{e0041}"),
            "x\\u{202e}y\\u{200b}z\\u{e0041}"
        );
    }
}
