//! Unified diffs of what a proposed write would change (`--propose`), for a person to read
//! before applying it: `--- a/PATH` / `+++ b/PATH` (`/dev/null` for a file that appears or
//! goes), then the hunks the write tools show (`tools::diff`: Python difflib's, three lines
//! of context, `\ No newline at end of file` where a file ends without one), so the diff
//! applies with `git apply`.

use std::collections::BTreeMap;

use crate::tools::diff::unified;

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
        let from = if old.is_empty() {
            "/dev/null".to_string()
        } else {
            format!("a/{key}")
        };
        let to = if new.is_empty() {
            "/dev/null".to_string()
        } else {
            format!("b/{key}")
        };
        out.push_str(&unified(old, new, &from, &to));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn files_that_go_or_stay_the_same_are_shown_as_such() {
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
        let after = map(&[("skills/x/SKILL.md", "a\nb")]);
        assert_eq!(
            files(&BTreeMap::new(), &after),
            "--- /dev/null\n+++ b/skills/x/SKILL.md\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"
        );
    }

    /// Hunks as Python's `difflib.unified_diff(n=3)` writes them.
    #[test]
    fn a_change_in_the_middle_gets_three_lines_of_context() {
        let before = map(&[("f", "1\n2\n3\n4\n5\n6\n7\n8\n")]);
        let after = map(&[("f", "1\n2\n3\n4\nfive\n6\n7\n8\n")]);
        assert_eq!(
            files(&before, &after),
            "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }
}
