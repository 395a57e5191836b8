//! `.skillignore` (and ClawHub's `.clawhubignore`): paths a skill excludes from the scan, with
//! the matching rules of Hermes's scanner — gitignore-like basics over Python's `fnmatch`
//! (`*` crosses `/`, case-sensitive). `SKILL.md` can never be ignored; the ignore files
//! themselves always are.

use std::path::Path;

/// The ignore files a skill may ship, in the order they are read.
pub const IGNORE_FILES: [&str; 2] = [".skillignore", ".clawhubignore"];

/// A skill's ignore patterns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ignore {
    patterns: Vec<String>,
}

impl Ignore {
    /// Reads the ignore files of `skill_dir`; missing or unreadable files add nothing.
    pub fn load(skill_dir: &Path) -> Ignore {
        let mut text = String::new();
        for name in IGNORE_FILES {
            let path = skill_dir.join(name);
            // Only regular files: an ignore "file" that is a FIFO must not block the scan.
            if path.symlink_metadata().is_ok_and(|m| m.is_file())
                && let Ok(content) = std::fs::read_to_string(&path)
            {
                text.push_str(&content);
                text.push('\n');
            }
        }
        Ignore::parse(&text)
    }

    /// Patterns from ignore-file text: one per line, stripped, blank and `#` lines skipped.
    pub fn parse(text: &str) -> Ignore {
        let patterns = text
            .split(is_python_line_break)
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        Ignore { patterns }
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether `rel` (a `/`-separated path inside the skill) is ignored.
    pub fn ignores(&self, rel: &str) -> bool {
        let base = rel.rsplit('/').next().unwrap_or(rel);
        if base == "SKILL.md" {
            return false;
        }
        if IGNORE_FILES.contains(&base) {
            return true;
        }
        self.patterns
            .iter()
            .any(|pattern| matches(pattern, rel, base))
    }
}

/// Python's `str.splitlines` boundaries.
fn is_python_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\x0b'
            | '\x0c'
            | '\x1c'
            | '\x1d'
            | '\x1e'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

fn matches(pattern: &str, rel: &str, base: &str) -> bool {
    let anchored = pattern.starts_with('/');
    let p = pattern.trim_start_matches('/');
    let is_dir = p.ends_with('/');
    let p = p.trim_end_matches('/');
    if p.is_empty() {
        return false;
    }
    if is_dir {
        if rel == p || rel.strip_prefix(p).is_some_and(|r| r.starts_with('/')) {
            return true;
        }
        return !anchored && format!("/{rel}/").contains(&format!("/{p}/"));
    }
    if fnmatch(rel, p) {
        return true;
    }
    if anchored {
        return false;
    }
    fnmatch(base, p)
        || (!p.contains('/') && rel.split('/').any(|segment| fnmatch(segment, p)))
        || rel.strip_prefix(p).is_some_and(|r| r.starts_with('/'))
}

/// Python's `fnmatch.fnmatchcase`: `*` any run (slashes included), `?` one character,
/// `[seq]` / `[!seq]` a class with ranges; an unclosed `[` is a literal.
pub fn fnmatch(name: &str, pattern: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    let (mut n, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            match pattern[p] {
                '*' => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                '?' => {
                    n += 1;
                    p += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class(&pattern, p, name[n]) {
                        if matched {
                            n += 1;
                            p = next;
                            continue;
                        }
                    } else if name[n] == '[' {
                        n += 1;
                        p += 1;
                        continue;
                    }
                }
                c if c == name[n] => {
                    n += 1;
                    p += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class starting at `pattern[at] == '['`. `None` when the class is
/// not closed (then `[` is literal), else whether it matched and the index after `]`.
fn class(pattern: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negated = matches!(pattern.get(i), Some('!'));
    if negated {
        i += 1;
    }
    // A `]` right after `[` or `[!` is a member, not the end.
    let start = i;
    let mut end = None;
    let mut j = i;
    while j < pattern.len() {
        if pattern[j] == ']' && j > start {
            end = Some(j);
            break;
        }
        j += 1;
    }
    let end = end?;
    let members = &pattern[start..end];
    let mut hit = false;
    let mut k = 0;
    while k < members.len() {
        if k + 2 < members.len() && members[k + 1] == '-' {
            if members[k] <= c && c <= members[k + 2] {
                hit = true;
            }
            k += 3;
        } else {
            if members[k] == c {
                hit = true;
            }
            k += 1;
        }
    }
    Some((hit != negated, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_like_python() {
        assert!(fnmatch("docs/a.md", "*.md"));
        assert!(fnmatch("a/b/c", "a*c"));
        assert!(fnmatch("x1", "x[0-9]"));
        assert!(!fnmatch("xa", "x[0-9]"));
        assert!(fnmatch("xa", "x[!0-9]"));
        assert!(fnmatch("a[b", "a[b"));
        assert!(fnmatch("]", "[]]"));
        assert!(!fnmatch("A.md", "*.MD"));
        assert!(fnmatch("", "*"));
        assert!(!fnmatch("", "?"));
    }

    #[test]
    fn hermes_rules() {
        let ignore = Ignore::parse("# dev files\n\ndocs/\n/build\n*.log\nSKILL.md\nnotes-*.md\n");
        assert!(ignore.ignores("docs/plans/x.md"));
        assert!(ignore.ignores("sub/docs/x.md"));
        // Python matches an anchored file pattern against the whole path only.
        assert!(ignore.ignores("build"));
        assert!(!ignore.ignores("build/out.txt"));
        assert!(!ignore.ignores("sub/build"));
        assert!(ignore.ignores("deep/a.log"));
        assert!(!ignore.ignores("SKILL.md"));
        assert!(ignore.ignores("references/notes-1.md"));
        assert!(ignore.ignores(".skillignore"));
        assert!(!ignore.ignores("scripts/run.sh"));
    }
}
