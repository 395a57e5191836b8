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

/// The tools' answers are written for the model ("Use skills_list()…", "do not repeat it",
/// "retry … in this turn"); a person reading them at a terminal gets the same facts in
/// terms of the commands in front of them. Only text output is reworded: the JSON answers
/// stay the tool's, byte for byte.
pub fn for_person(text: &str) -> String {
    const REWORDED: &[(&str, &str)] = &[
        (
            " Check current_entries below and retry with the exact text of the entry you want to remove.",
            " The current entries are listed below: --old must match part of exactly one.",
        ),
        (
            " Check current_entries below and retry with the exact text of the entry you want to replace.",
            " The current entries are listed below: --old must match part of exactly one.",
        ),
        (
            "(see current_entries below), then retry this add \u{2014} all in this turn.",
            "(`hermes-memory replace` or `remove`; the current entries are listed below), then add it again.",
        ),
        (
            "(see current_entries below), then retry \u{2014} all in this turn.",
            "(the current entries are listed below), then try again.",
        ),
        (
            "(see current_entries below), then retry.",
            "(the current entries are listed below), then try again.",
        ),
        (
            " Use skills_list() to see available skills.",
            " `hermes-skills list` shows the skills there are.",
        ),
        (
            "Use skills_list to see all available skills",
            "`hermes-skills list` shows every skill",
        ),
        (
            "Use skill_view(name) to see full content, tags, and linked files",
            "`hermes-skills view NAME` prints a skill",
        ),
        (" This update is complete \u{2014} do not repeat it.", ""),
        ("or use replace_all=True.", "or pass --all."),
    ];
    let mut out = text.to_string();
    for (model, person) in REWORDED {
        if out.contains(model) {
            out = out.replace(model, person);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_words_are_reworded_for_a_person() {
        assert_eq!(
            for_person(
                "Skill 'x' not found in active profile 'default'. Use skills_list() to see available skills."
            ),
            "Skill 'x' not found in active profile 'default'. `hermes-skills list` shows the skills there are."
        );
        assert_eq!(for_person("plain"), "plain");
    }

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
