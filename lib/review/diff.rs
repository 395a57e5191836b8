//! Unified diffs of what a proposed write would change (`--propose`), for a person to read
//! before applying it: `--- a/PATH` / `+++ b/PATH` (`/dev/null` for a file that appears or
//! goes), hunks with three lines of context. Lines are matched by a longest common
//! subsequence, which is plenty for files of a few hundred lines.

use std::collections::BTreeMap;

const CONTEXT: usize = 3;

/// The diff of every file that differs between `before` and `after` (paths in order).
pub fn files(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> String {
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = String::new();
    for key in keys {
        let (a, b) = (before.get(key), after.get(key));
        let old = a.map_or("", String::as_str);
        let new = b.map_or("", String::as_str);
        if old == new {
            continue;
        }
        let from = if a.is_none_or(|s| s.is_empty()) {
            "/dev/null".to_string()
        } else {
            format!("a/{key}")
        };
        let to = if b.is_none_or(|s| s.is_empty()) {
            "/dev/null".to_string()
        } else {
            format!("b/{key}")
        };
        out.push_str(&format!("--- {from}\n+++ {to}\n"));
        out.push_str(&unified(old, new));
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

/// The hunks of a line diff of `old` to `new`.
pub fn unified(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let script = edit_script(&a, &b);
    // Positions (in old and new) of each script entry, for hunk headers.
    let mut pos = Vec::with_capacity(script.len());
    let (mut i, mut j) = (0usize, 0usize);
    for (op, _) in &script {
        pos.push((i, j));
        match op {
            Op::Same => {
                i += 1;
                j += 1;
            }
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    let changed: Vec<usize> = (0..script.len())
        .filter(|&k| script[k].0 != Op::Same)
        .collect();
    let mut out = String::new();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let stop = (end + CONTEXT + 1).min(script.len());
        let (old_start, new_start) = pos[start];
        let old_len = script[start..stop]
            .iter()
            .filter(|(op, _)| *op != Op::Add)
            .count();
        let new_len = script[start..stop]
            .iter()
            .filter(|(op, _)| *op != Op::Del)
            .count();
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(old_start, old_len),
            range(new_start, new_len)
        ));
        for (op, line) in &script[start..stop] {
            let mark = match op {
                Op::Same => ' ',
                Op::Del => '-',
                Op::Add => '+',
            };
            out.push(mark);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

fn edit_script<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<(Op, &'a str)> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((Op::Same, a[i]));
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] == lcs[i][j] {
            // Dropping a[i] keeps the longest common run (ties go to the deletion first,
            // as difflib's hunks show them).
            out.push((Op::Del, a[i]));
            i += 1;
        } else {
            out.push((Op::Add, b[j]));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|l| (Op::Del, *l)));
    out.extend(b[j..].iter().map(|l| (Op::Add, *l)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_in_the_middle_gets_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n";
        assert_eq!(
            unified(old, new),
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    /// Expected hunks as Python's `difflib.unified_diff(n=3)` writes them.
    #[test]
    fn changes_further_apart_than_twice_the_context_are_separate_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let changed = |pairs: &[(&str, &str)]| {
            let mut new = old.clone();
            for (from, to) in pairs {
                new = new.replace(&format!("\n{from}\n"), &format!("\n{to}\n"));
            }
            new
        };
        assert_eq!(
            unified(&old, &changed(&[("2", "two"), ("18", "eighteen")])),
            "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"
        );
        assert_eq!(
            unified(&old, &changed(&[("2", "two"), ("9", "nine")])),
            "@@ -1,12 +1,12 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n 12\n"
        );
        assert_eq!(
            unified(&old, &changed(&[("2", "two"), ("10", "ten")])),
            "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n 13\n"
        );
        assert_eq!(
            unified("a\nb\nc\n", "a\nc\n"),
            "@@ -1,3 +1,2 @@\n a\n-b\n c\n"
        );
        assert_eq!(unified("x\n", "y\n"), "@@ -1 +1 @@\n-x\n+y\n");
        assert_eq!(unified("same\n", "same\n"), "");
    }

    #[test]
    fn files_that_go_or_stay_the_same_are_shown_as_such() {
        let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let before = map(&[
            ("b.md", "keep\n"),
            ("a.md", "old\n"),
            ("c.md", "gone\nnow\n"),
        ]);
        let after = map(&[("b.md", "keep\n"), ("a.md", "new\n"), ("c.md", "")]);
        assert_eq!(
            files(&before, &after),
            "--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-old\n+new\n--- a/c.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-gone\n-now\n"
        );
    }

    #[test]
    fn a_new_file_is_all_additions_from_dev_null() {
        let mut after = BTreeMap::new();
        after.insert("skills/x/SKILL.md".to_string(), "a\nb".to_string());
        assert_eq!(
            files(&BTreeMap::new(), &after),
            "--- /dev/null\n+++ b/skills/x/SKILL.md\n@@ -0,0 +1,2 @@\n+a\n+b\n"
        );
    }

    /// The script keeps the longest run of common lines: a line moved from the top to the
    /// bottom is one removal and one addition, not every line around it rewritten.
    #[test]
    fn a_moved_line_is_one_removal_and_one_addition() {
        assert_eq!(
            unified("x\na\nb\nc\n", "a\nb\nc\nx\n"),
            "@@ -1,4 +1,4 @@\n-x\n a\n b\n c\n+x\n"
        );
        assert_eq!(
            unified("a\nb\nc\nd\ne\n", "b\nc\na\nd\ne\n"),
            "@@ -1,5 +1,5 @@\n-a\n b\n c\n+a\n d\n e\n"
        );
        assert_eq!(
            unified("p\nq\nr\ns\n", "q\np\ns\nr\n"),
            "@@ -1,4 +1,4 @@\n-p\n q\n-r\n+p\n s\n+r\n"
        );
        assert_eq!(
            unified("a\nb\na\n", "c\na\n"),
            "@@ -1,3 +1,2 @@\n-a\n-b\n+c\n a\n"
        );
        // Repeated lines: the first one goes, the rest stay common.
        assert_eq!(
            unified("a\na\na\n", "b\na\na\n"),
            "@@ -1,3 +1,3 @@\n-a\n+b\n a\n a\n"
        );
    }
}
