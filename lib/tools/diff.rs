//! The unified diff shown after a write: Python's `difflib.unified_diff` over lines (kept
//! with their endings, three lines of context), so hunks split where Hermes's do. Lines are
//! compared by interning each distinct line as one `char` and running the character
//! `SequenceMatcher` the fuzzy matcher already uses, which has the same junk heuristics.
//!
//! Two departures from `unified_diff`, both for a diff that `patch`/`git apply` accept:
//! a last line without a newline is followed by `\ No newline at end of file` instead of
//! running into the next line, and file labels are `a/` + the absolute path without its
//! leading slash (`a/tmp/x.txt`), not upstream's `a//tmp/x.txt` (reference §10 Q20).

use std::collections::HashMap;

use crate::skills::difflib::{Opcode, SequenceMatcher, Tag};

const CONTEXT: usize = 3;

/// `a/<path>` or `b/<path>` for an absolute or relative path, with a single slash.
pub fn label(side: char, path: &str) -> String {
    format!("{side}/{}", path.trim_start_matches('/'))
}

/// The unified diff turning `old` into `new`; empty when they are equal.
pub fn unified(old: &str, new: &str, from: &str, to: &str) -> String {
    let a = lines(old);
    let b = lines(new);
    let Some((ca, cb)) = intern(&a, &b) else {
        // More distinct lines than there are chars: say it as one replacement.
        return whole_replacement(&a, &b, from, to);
    };
    let mut out = String::new();
    let matcher = SequenceMatcher::new(&ca, &cb);
    for (n, group) in grouped(matcher.opcodes()).iter().enumerate() {
        if n == 0 {
            write_header(&mut out, from, to);
        }
        write_group(&mut out, group, &a, &b);
    }
    out
}

/// Every line of `a` removed and every line of `b` added, in one hunk (empty when both are
/// empty): the diff of texts too varied to compare line by line.
fn whole_replacement(a: &[&str], b: &[&str], from: &str, to: &str) -> String {
    let mut out = String::new();
    if !a.is_empty() || !b.is_empty() {
        let whole = Opcode {
            tag: Tag::Replace,
            a1: 0,
            a2: a.len(),
            b1: 0,
            b2: b.len(),
        };
        write_header(&mut out, from, to);
        write_group(&mut out, &[whole], a, b);
    }
    out
}

fn write_header(out: &mut String, from: &str, to: &str) {
    out.push_str(&format!("--- {from}\n+++ {to}\n"));
}

fn write_group(out: &mut String, group: &[Opcode], a: &[&str], b: &[&str]) {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return;
    };
    out.push_str(&format!(
        "@@ -{} +{} @@\n",
        range(first.a1, last.a2),
        range(first.b1, last.b2)
    ));
    for op in group {
        if op.tag == Tag::Equal {
            for line in &a[op.a1..op.a2] {
                push_line(out, ' ', line);
            }
            continue;
        }
        if matches!(op.tag, Tag::Replace | Tag::Delete) {
            for line in &a[op.a1..op.a2] {
                push_line(out, '-', line);
            }
        }
        if matches!(op.tag, Tag::Replace | Tag::Insert) {
            for line in &b[op.b1..op.b2] {
                push_line(out, '+', line);
            }
        }
    }
}

fn push_line(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

/// `_format_range_unified`: `start,length`, a lone line as just its number, an empty range
/// as the line before it.
fn range(start: usize, stop: usize) -> String {
    let length = stop - start;
    match length {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{length}", start + 1),
    }
}

/// `str.splitlines(keepends=True)` for `\n` endings (a `\r\n` line keeps both).
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Each distinct line as its own `char`, or `None` past the number of chars.
fn intern<'t>(a: &[&'t str], b: &[&'t str]) -> Option<(Vec<char>, Vec<char>)> {
    let mut ids: HashMap<&'t str, char> = HashMap::new();
    let mut id_of = |line: &'t str| -> Option<char> {
        if let Some(c) = ids.get(line) {
            return Some(*c);
        }
        let n = u32::try_from(ids.len()).ok()?;
        // Skip the surrogate block, which holds no chars.
        let code = if n < 0xD800 { n } else { n.checked_add(0x800)? };
        let c = char::from_u32(code)?;
        ids.insert(line, c);
        Some(c)
    };
    let ca = a.iter().map(|l| id_of(l)).collect::<Option<Vec<_>>>()?;
    let cb = b.iter().map(|l| id_of(l)).collect::<Option<Vec<_>>>()?;
    Some((ca, cb))
}

/// `get_grouped_opcodes(3)`: changes with up to three lines of context, split where more
/// than six unchanged lines separate them.
fn grouped(mut codes: Vec<Opcode>) -> Vec<Vec<Opcode>> {
    if codes.is_empty() {
        return Vec::new();
    }
    let n = CONTEXT;
    if let Some(first) = codes.first_mut()
        && first.tag == Tag::Equal
    {
        first.a1 = first.a1.max(first.a2.saturating_sub(n));
        first.b1 = first.b1.max(first.b2.saturating_sub(n));
    }
    if let Some(last) = codes.last_mut()
        && last.tag == Tag::Equal
    {
        last.a2 = last.a2.min(last.a1 + n);
        last.b2 = last.b2.min(last.b1 + n);
    }
    let mut groups = Vec::new();
    let mut group: Vec<Opcode> = Vec::new();
    for mut op in codes {
        if op.tag == Tag::Equal && op.a2 - op.a1 > 2 * n {
            group.push(Opcode {
                a2: op.a2.min(op.a1 + n),
                b2: op.b2.min(op.b1 + n),
                ..op
            });
            groups.push(std::mem::take(&mut group));
            op.a1 = op.a1.max(op.a2.saturating_sub(n));
            op.b1 = op.b1.max(op.b2.saturating_sub(n));
        }
        group.push(op);
    }
    if !(group.is_empty() || group.len() == 1 && group[0].tag == Tag::Equal) {
        groups.push(group);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_line_in_three() {
        assert_eq!(
            unified(
                "alpha\nbeta\ngamma\n",
                "alpha\nBETA\ngamma\n",
                &label('a', "/tmp/x/a.txt"),
                &label('b', "/tmp/x/a.txt")
            ),
            "--- a/tmp/x/a.txt\n+++ b/tmp/x/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"
        );
    }

    #[test]
    fn equal_texts_give_no_diff() {
        assert_eq!(unified("a\nb\n", "a\nb\n", "a/x", "b/x"), "");
    }

    #[test]
    fn distant_changes_make_two_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .map(|i| match i {
                2 => "two\n".to_string(),
                18 => "eighteen\n".to_string(),
                _ => format!("{i}\n"),
            })
            .collect();
        assert_eq!(
            unified(&old, &new, "a/f", "b/f"),
            "--- a/f\n+++ b/f\n\
             @@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n\
             @@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"
        );
    }

    #[test]
    fn new_and_deleted_files() {
        assert_eq!(
            unified("", "x\ny\n", "/dev/null", "b/f"),
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"
        );
        assert_eq!(
            unified("x\n", "", "a/f", "/dev/null"),
            "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
        );
    }

    #[test]
    fn a_missing_final_newline_is_marked() {
        assert_eq!(
            unified("a\nb", "a\nc", "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
    }

    /// Expected texts printed by Python 3's `difflib.unified_diff` on the same lines.
    #[test]
    fn six_unchanged_lines_keep_one_hunk_and_seven_split_it() {
        let around = |gap: usize, first: &str, last: &str| -> String {
            let middle: String = (0..gap).map(|i| format!("{i}\n")).collect();
            format!("{first}\n{middle}{last}\n")
        };
        assert_eq!(
            unified(&around(6, "c1", "c2"), &around(6, "C1", "C2"), "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n-c1\n+C1\n 0\n 1\n 2\n 3\n 4\n 5\n-c2\n+C2\n"
        );
        assert_eq!(
            unified(&around(7, "c1", "c2"), &around(7, "C1", "C2"), "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-c1\n+C1\n 0\n 1\n 2\n@@ -6,4 +6,4 @@\n 4\n 5\n 6\n-c2\n+C2\n"
        );
    }

    #[test]
    fn an_insertion_shows_three_lines_each_side() {
        let old: String = (0..10).map(|i| format!("{i}\n")).collect();
        let new = old.replacen("5\n", "x\n5\n", 1);
        assert_eq!(
            unified(&old, &new, "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -3,6 +3,7 @@\n 2\n 3\n 4\n+x\n 5\n 6\n 7\n"
        );
    }

    #[test]
    fn labels_and_ranges() {
        assert_eq!(label('a', "//tmp/x"), "a/tmp/x");
        assert_eq!(label('b', "rel/x"), "b/rel/x");
        assert_eq!(range(0, 0), "0,0");
        assert_eq!(range(4, 4), "4,0");
        assert_eq!(range(4, 5), "5");
        assert_eq!(range(4, 7), "5,3");
        assert_eq!(lines("a\r\nb"), ["a\r\n", "b"]);
        assert!(grouped(Vec::new()).is_empty());
    }

    #[test]
    fn texts_too_varied_to_intern_are_one_replacement() {
        assert_eq!(whole_replacement(&[], &[], "a/f", "b/f"), "");
        assert_eq!(
            whole_replacement(&["x\n"], &[], "a/f", "/dev/null"),
            "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
        );
        assert_eq!(
            whole_replacement(&[], &["y\n"], "/dev/null", "b/f"),
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+y\n"
        );
        assert_eq!(
            whole_replacement(&["x\n", "same\n"], &["same\n"], "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-x\n-same\n+same\n"
        );
    }

    #[test]
    fn lines_are_interned_one_char_each_past_the_surrogates() {
        let many: Vec<String> = (0..0xD801).map(|i| format!("{i}\n")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let Some((a, b)) = intern(&refs, &refs[..2]) else {
            panic!("interned")
        };
        assert_eq!(a[0], '\u{0}');
        assert_eq!(a[0xD7FF], '\u{D7FF}');
        assert_eq!(a[0xD800], '\u{E000}');
        assert_eq!(b, ['\u{0}', '\u{1}']);
    }
}
