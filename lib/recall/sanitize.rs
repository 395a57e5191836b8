//! Hermes's FTS5 query sanitiser (`_sanitize_fts5_query`, reference `recall` §3.2), step for
//! step: whatever it lets through reaches FTS5, and FTS5's answer (rows, or a syntax error
//! that becomes no rows) is part of the tool's answer.

use crate::pytext::{is_space, is_word, strip};

/// `MAX_FTS5_QUERY_CHARS`: the query is cut to this many characters first.
pub const MAX_QUERY_CHARS: usize = 2048;

/// The characters FTS5 would read as syntax, replaced by spaces outside quoted phrases.
const SPECIAL: &[char] = &['+', '{', '}', '(', ')', ':', '"', '^'];

/// Sanitises `query` exactly as Hermes 0.19.0 does before `MATCH`.
pub fn sanitize(query: &str) -> String {
    let query: String = query.chars().take(MAX_QUERY_CHARS).collect();

    // 1. Balanced quoted phrases go to placeholders; a quote without a partner is a space.
    let mut quoted: Vec<&str> = Vec::new();
    let mut text = String::with_capacity(query.len());
    let mut rest = query.as_str();
    while let Some(open) = rest.find('"') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('"') {
            Some(close) => {
                quoted.push(&rest[open..open + 1 + close + 1]);
                text.push_str(&format!("\0Q{}\0", quoted.len() - 1));
                rest = &after[close + 1..];
            }
            None => {
                text.push(' ');
                rest = after;
            }
        }
    }
    text.push_str(rest);

    // 2. FTS5 syntax characters become spaces.
    let text: String = text
        .chars()
        .map(|c| if SPECIAL.contains(&c) { ' ' } else { c })
        .collect();

    // 3. Runs of `*` collapse to one; a `*` at the start or after whitespace goes.
    let mut starred = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c == '*' && prev == Some('*') {
            continue;
        }
        prev = Some(c);
        starred.push(c);
    }
    let mut text = String::with_capacity(starred.len());
    let mut prev: Option<char> = None;
    for c in starred.chars() {
        let drop = c == '*' && prev.is_none_or(is_space);
        prev = Some(c);
        if !drop {
            text.push(c);
        }
    }

    // 4. One dangling operator at each end.
    let text = strip_leading_operator(strip(&text));
    let text = strip_trailing_operator(strip(text));

    // 5. Joined words become quoted phrases.
    let mut text = quote_joined(text);

    // 6. The quoted phrases come back.
    for (i, phrase) in quoted.iter().enumerate() {
        text = text.replace(&format!("\0Q{i}\0"), phrase);
    }
    strip(&text).to_string()
}

/// `re.sub(r"\b(\w+(?:[._-]\w+)+)\b", r'"\1"', text)`: words joined by `.`, `_` or `-`
/// (`chat-send`, `P2.2`, `snake_case`, `my-app.config.ts`) are quoted so FTS5 reads them as
/// one phrase. What the backtracking regex matches, scanned word by word (`_` is itself a
/// word character): from the start of a word, every following `.`/`-` + word, greedily;
/// or, when there is none, the word alone if an `_` inside it has a character on each side.
fn quote_joined(text: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let word_end = |mut i: usize| {
        while i < chars.len() && is_word(chars[i].1) {
            i += 1;
        }
        i
    };
    let byte = |i: usize| chars.get(i).map_or(text.len(), |&(b, _)| b);
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if !is_word(chars[i].1) {
            out.push(chars[i].1);
            i += 1;
            continue;
        }
        let first = word_end(i);
        let mut end = first;
        while end + 1 < chars.len()
            && matches!(chars[end].1, '.' | '-')
            && is_word(chars[end + 1].1)
        {
            end = word_end(end + 1);
        }
        let inner_underscore = (i + 1..first.saturating_sub(1)).any(|k| chars[k].1 == '_');
        if end > first || inner_underscore {
            out.push('"');
            out.push_str(&text[byte(i)..byte(end)]);
            out.push('"');
        } else {
            out.push_str(&text[byte(i)..byte(first)]);
        }
        i = end;
    }
    out
}

/// `re.sub(r"(?i)^(AND|OR|NOT)\b\s*", "", text)`.
fn strip_leading_operator(text: &str) -> &str {
    for op in ["AND", "OR", "NOT"] {
        let Some(head) = text.get(..op.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(op) {
            continue;
        }
        let rest = &text[op.len()..];
        if rest.chars().next().is_some_and(is_word) {
            continue;
        }
        return rest.trim_start_matches(is_space);
    }
    text
}

/// `re.sub(r"(?i)\s+(AND|OR|NOT)\s*$", "", text)` on text without trailing whitespace.
fn strip_trailing_operator(text: &str) -> &str {
    for op in ["AND", "OR", "NOT"] {
        let Some(cut) = text.len().checked_sub(op.len()) else {
            continue;
        };
        let Some(tail) = text.get(cut..) else {
            continue;
        };
        if !tail.eq_ignore_ascii_case(op) {
            continue;
        }
        let head = &text[..cut];
        let trimmed = head.trim_end_matches(is_space);
        if trimmed.len() < head.len() {
            return trimmed;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expected: &str) {
        assert_eq!(sanitize(input), expected, "sanitize({input:?})");
    }

    #[test]
    fn reference_scenarios_q1_to_q9() {
        check("docker deployment", "docker deployment");
        check("hello AND", "hello");
        check("OR world", "world");
        check("NOT foo bar", "foo bar");
        check("AND", "");
        check("TODO: fix", "TODO  fix");
        check("chat-send", "\"chat-send\"");
        check("my-app.config.ts", "\"my-app.config.ts\"");
        check("snake_case_name", "\"snake_case_name\"");
        check("e-mail me", "\"e-mail\" me");
        check("***x", "x");
        check("*abc", "abc");
        check("deploy*", "deploy*");
        check("foo \"bar baz\" qux\"", "foo \"bar baz\" qux");
        check("\"unbalanced", "unbalanced");
        check("C++", "C");
        check("(x OR y)", "x OR y");
        check("c^d", "c d");
        assert!(sanitize(&"x".repeat(6000)).chars().count() <= 2048);
        check("it's", "it's");
        check("a - b", "a - b");
        check("100%", "100%");
    }

    #[test]
    fn observed_pairs() {
        check("(redis OR memcached) cache", "redis OR memcached  cache");
        check("node.js OR deno", "\"node.js\" OR deno");
        check("P2.2", "\"P2.2\"");
        check("NOT NOT x", "NOT x");
        check("ANDROID phones", "ANDROID phones");
        check("and so on", "so on");
        check("x **", "x");
        check("a **b", "a b");
        check("x xOR", "x xOR");
        check("a OR OR", "a OR");
        check("x   NOT", "x");
        check("\"a-b\" c-d", "\"a-b\" \"c-d\"");
        check("a..b", "a..b");
        check("a.b.", "\"a.b\".");
        check("数据-库 x", "\"数据-库\" x");
        check("AND-x", "-x");
        check("a_ _a a__ __ a_b", "a_ _a \"a__\" __ \"a_b\"");
        check("a_b.c x-", "\"a_b.c\" x-");
    }

    #[test]
    fn word_boundaries_use_pythons_word_class() {
        // A combining mark is not a word character for Python: the joined word stops there.
        check("e\u{301}-x", "e\u{301}-x");
        check("x²-y", "\"x²-y\"");
    }
}
