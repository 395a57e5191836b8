//! The V4A patch format the `patch` tool takes in `mode='patch'`: parsing it into file
//! operations, and applying one file's hunks to its text.
//!
//! ```text
//! *** Begin Patch
//! *** Update File: src/app.py
//! *** Move to: src/main.py        (optional)
//! @@ def run():                   (optional anchor: search from this line)
//!  context line
//! -removed line
//! +added line
//! *** End of File                 (optional: the hunk ends the file)
//! *** Add File: notes.txt
//! +every line of the new file
//! *** Delete File: old.txt
//! *** End Patch
//! ```
//!
//! Models write this format loosely, so the parser forgives what is unambiguous: a blank
//! line inside a hunk is an empty context line, text before `*** Begin Patch` is ignored,
//! a missing `*** End Patch` is not an error, and hunk lines are matched first exactly,
//! then ignoring trailing and then surrounding whitespace.

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// A run of context, removed and added lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hunk {
    pub anchor: Option<String>,
    pub lines: Vec<Line>,
    pub end_of_file: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Context(String),
    Removed(String),
    Added(String),
}

impl Hunk {
    fn before(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(s) | Line::Removed(s) => Some(s.as_str()),
                Line::Added(_) => None,
            })
            .collect()
    }

    fn after(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(s) | Line::Added(s) => Some(s.as_str()),
                Line::Removed(_) => None,
            })
            .collect()
    }
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// The operations of `text`, in order.
pub fn parse(text: &str) -> Result<Vec<Op>, String> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == BEGIN)
        .map_or(0, |i| i + 1);
    let mut ops = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        i += 1;
        if trimmed == END {
            break;
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(path) = header(trimmed, ADD)? {
            let mut content = String::new();
            while i < lines.len() && !is_header(lines[i]) {
                let body = lines[i];
                i += 1;
                match body.strip_prefix('+') {
                    Some(text) => {
                        content.push_str(text);
                        content.push('\n');
                    }
                    // A trailing blank line before the next header is layout, not content.
                    None if body.trim().is_empty() => {}
                    None => {
                        return Err(format!(
                            "line {i}: every line of an added file must start with '+': {body:?}"
                        ));
                    }
                }
            }
            ops.push(Op::Add { path, content });
        } else if let Some(path) = header(trimmed, DELETE)? {
            ops.push(Op::Delete { path });
        } else if let Some(path) = header(trimmed, UPDATE)? {
            let mut move_to = None;
            if i < lines.len()
                && let Some(dest) = header(lines[i].trim(), MOVE)?
            {
                move_to = Some(dest);
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            while i < lines.len() && !is_header(lines[i]) {
                let body = lines[i];
                i += 1;
                if body.trim() == END_OF_FILE {
                    if let Some(h) = hunks.last_mut() {
                        h.end_of_file = true;
                    }
                    continue;
                }
                if let Some(rest) = body.strip_prefix("@@") {
                    let anchor = rest.trim().trim_end_matches("@@").trim();
                    hunks.push(Hunk {
                        anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                        ..Hunk::default()
                    });
                    continue;
                }
                let parsed = match body.chars().next() {
                    Some(' ') => Line::Context(body[1..].to_string()),
                    Some('-') => Line::Removed(body[1..].to_string()),
                    Some('+') => Line::Added(body[1..].to_string()),
                    None => Line::Context(String::new()),
                    Some(_) => {
                        return Err(format!(
                            "line {i}: a hunk line must start with ' ', '-' or '+': {body:?}"
                        ));
                    }
                };
                if hunks.is_empty() || hunks.last().is_some_and(|h| h.end_of_file) {
                    hunks.push(Hunk::default());
                }
                if let Some(h) = hunks.last_mut() {
                    h.lines.push(parsed);
                }
            }
            // Blank lines before the next header parse as context; they match nothing useful.
            for h in &mut hunks {
                while matches!(h.lines.last(), Some(Line::Context(s)) if s.is_empty()) {
                    h.lines.pop();
                }
            }
            hunks.retain(|h| !h.lines.is_empty());
            if hunks.is_empty() && move_to.is_none() {
                return Err(format!("*** Update File: {path} has no changes"));
            }
            ops.push(Op::Update {
                path,
                move_to,
                hunks,
            });
        } else {
            return Err(format!(
                "line {i}: expected '*** Add File:', '*** Update File:', '*** Delete File:' or '*** End Patch', found {line:?}"
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch contains no file operations".to_string());
    }
    Ok(ops)
}

fn header(line: &str, prefix: &str) -> Result<Option<String>, String> {
    match line.strip_prefix(prefix) {
        None => Ok(None),
        Some(rest) if rest.trim().is_empty() => Err(format!("'{prefix}' without a path")),
        Some(rest) => Ok(Some(rest.trim().to_string())),
    }
}

fn is_header(line: &str) -> bool {
    let t = line.trim();
    [END, ADD, DELETE, UPDATE].iter().any(|p| t.starts_with(p))
}

/// `content` with `hunks` applied in order; each hunk is searched for after the previous
/// one. The error names the hunk that did not match and the lines it looked for.
pub fn apply(content: &str, hunks: &[Hunk]) -> Result<String, String> {
    let had_newline = content.ends_with('\n') || content.is_empty();
    let mut lines: Vec<String> = content.split('\n').map(str::to_string).collect();
    if content.ends_with('\n') || content.is_empty() {
        lines.pop();
    }
    let mut cursor = 0usize;
    for (n, hunk) in hunks.iter().enumerate() {
        let mut from = cursor;
        if let Some(anchor) = &hunk.anchor
            && let Some(at) = find_anchor(&lines, anchor, cursor)
        {
            from = at;
        }
        let old = hunk.before();
        let new: Vec<String> = hunk.after().into_iter().map(str::to_string).collect();
        let at = if old.is_empty() {
            // Pure insertion: after the anchor line when there is one, else at the end.
            match &hunk.anchor {
                Some(a) if !hunk.end_of_file => {
                    find_anchor(&lines, a, cursor).map_or(lines.len(), |i| i + 1)
                }
                _ => lines.len(),
            }
        } else {
            find_block(&lines, &old, from, hunk.end_of_file)
                .or_else(|| find_block(&lines, &old, 0, hunk.end_of_file))
                .ok_or_else(|| {
                    format!(
                        "hunk {} did not match: could not find these lines{}:\n{}",
                        n + 1,
                        hunk.anchor
                            .as_ref()
                            .map(|a| format!(" (after '{a}')"))
                            .unwrap_or_default(),
                        old.join("\n")
                    )
                })?
        };
        let new_len = new.len();
        lines.splice(at..at + old.len(), new);
        cursor = at + new_len;
    }
    let mut out = lines.join("\n");
    if had_newline && !lines.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

fn find_anchor(lines: &[String], anchor: &str, from: usize) -> Option<usize> {
    let anchor = anchor.trim();
    (from..lines.len())
        .find(|&i| lines[i].trim() == anchor)
        .or_else(|| (from..lines.len()).find(|&i| lines[i].contains(anchor)))
}

/// Where `block` starts at or after `from`: exact lines first, then ignoring trailing
/// whitespace, then ignoring surrounding whitespace. An end-of-file hunk must end the file.
fn find_block(lines: &[String], block: &[&str], from: usize, end_of_file: bool) -> Option<usize> {
    if block.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - block.len();
    let normalisers: [fn(&str) -> &str; 3] = [|s| s, str::trim_end, str::trim];
    for norm in normalisers {
        let matches_at = |i: usize| {
            block
                .iter()
                .zip(&lines[i..i + block.len()])
                .all(|(b, l)| norm(b) == norm(l))
        };
        if end_of_file {
            if last_start >= from && matches_at(last_start) {
                return Some(last_start);
            }
            continue;
        }
        if let Some(i) = (from..=last_start).find(|&i| matches_at(i)) {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_hunk_is_looked_for_after_the_lines_the_last_one_wrote() {
        let replace = |old: &str, new: &str| Hunk {
            anchor: None,
            lines: vec![Line::Removed(old.into()), Line::Added(new.into())],
            end_of_file: false,
        };
        assert_eq!(
            apply("p\nq\nw\nr\nx\n", &[replace("w", "x"), replace("x", "y")]),
            Ok("p\nq\nx\nr\ny\n".into())
        );
    }

    #[test]
    fn a_patch_may_end_without_its_end_line() {
        assert_eq!(
            parse("*** Begin Patch\n*** Add File: a.txt\n+x"),
            Ok(vec![Op::Add {
                path: "a.txt".into(),
                content: "x\n".into()
            }])
        );
        assert_eq!(
            parse("*** Begin Patch\n*** Update File: b.txt"),
            Err("*** Update File: b.txt has no changes".into())
        );
    }

    #[test]
    fn parses_all_three_operations() {
        let ops = parse(
            "*** Begin Patch\n*** Add File: new.txt\n+one\n+two\n*** Update File: a.txt\n@@ fn main @@\n ctx\n-old\n+new\n*** Delete File: gone.txt\n*** End Patch\n",
        );
        assert_eq!(
            ops,
            Ok(vec![
                Op::Add {
                    path: "new.txt".into(),
                    content: "one\ntwo\n".into()
                },
                Op::Update {
                    path: "a.txt".into(),
                    move_to: None,
                    hunks: vec![Hunk {
                        anchor: Some("fn main".into()),
                        lines: vec![
                            Line::Context("ctx".into()),
                            Line::Removed("old".into()),
                            Line::Added("new".into())
                        ],
                        end_of_file: false
                    }]
                },
                Op::Delete {
                    path: "gone.txt".into()
                },
            ])
        );
    }

    #[test]
    fn rejects_garbage_and_empty_patches() {
        assert_eq!(
            parse("*** Begin Patch\n*** End Patch\n"),
            Err("the patch contains no file operations".into())
        );
        assert_eq!(
            parse("*** Begin Patch\nhello\n*** End Patch"),
            Err("line 2: expected '*** Add File:', '*** Update File:', '*** Delete File:' or '*** End Patch', found \"hello\"".into())
        );
        assert_eq!(
            parse("*** Update File: a\n@@\nxyz\n"),
            Err("line 3: a hunk line must start with ' ', '-' or '+': \"xyz\"".into())
        );
    }

    #[test]
    fn applies_hunks_in_order_with_anchors() {
        let text = "def a():\n    x = 1\n\ndef b():\n    x = 1\n";
        let hunks = match parse("*** Update File: f.py\n@@ def b():\n-    x = 1\n+    x = 2\n") {
            Ok(ops) => match &ops[0] {
                Op::Update { hunks, .. } => hunks.clone(),
                _ => Vec::new(),
            },
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            apply(text, &hunks),
            Ok("def a():\n    x = 1\n\ndef b():\n    x = 2\n".into())
        );
    }

    #[test]
    fn whitespace_drift_still_matches_and_a_miss_is_named() {
        let hunk = Hunk {
            anchor: None,
            lines: vec![Line::Removed("beta".into()), Line::Added("BETA".into())],
            end_of_file: false,
        };
        assert_eq!(
            apply("alpha\n  beta  \ngamma", std::slice::from_ref(&hunk)),
            Ok("alpha\nBETA\ngamma".into())
        );
        assert_eq!(
            apply("alpha\n", &[hunk]),
            Err("hunk 1 did not match: could not find these lines:\nbeta".into())
        );
    }

    #[test]
    fn pure_additions_append_or_follow_the_anchor() {
        let add = |anchor: Option<&str>| Hunk {
            anchor: anchor.map(str::to_string),
            lines: vec![Line::Added("new".into())],
            end_of_file: false,
        };
        assert_eq!(apply("a\nb\n", &[add(None)]), Ok("a\nb\nnew\n".into()));
        assert_eq!(apply("a\nb\n", &[add(Some("a"))]), Ok("a\nnew\nb\n".into()));
        assert_eq!(apply("", &[add(None)]), Ok("new\n".into()));
    }

    fn hunks_of(patch: &str) -> Vec<Hunk> {
        match parse(patch) {
            Ok(ops) => match ops.into_iter().next() {
                Some(Op::Update { hunks, .. }) => hunks,
                other => panic!("not an update: {other:?}"),
            },
            Err(e) => panic!("{e}"),
        }
    }

    fn ctx(s: &str) -> Line {
        Line::Context(s.into())
    }

    #[test]
    fn the_parser_forgives_what_is_unambiguous() {
        let loose = "Here is the patch:\r\n*** Begin Patch\r\n*** Add File: a.txt\r\n+one\r\n\r\n*** Update File: b.txt\r\n*** Move to: c.txt\r\n@@ class A @@\r\n keep\r\n\r\n-old\r\n+new\r\n\r\n";
        assert_eq!(
            parse(loose),
            Ok(vec![
                Op::Add {
                    path: "a.txt".into(),
                    content: "one\n".into()
                },
                Op::Update {
                    path: "b.txt".into(),
                    move_to: Some("c.txt".into()),
                    hunks: vec![Hunk {
                        anchor: Some("class A".into()),
                        lines: vec![
                            ctx("keep"),
                            ctx(""),
                            Line::Removed("old".into()),
                            Line::Added("new".into())
                        ],
                        end_of_file: false
                    }]
                }
            ])
        );
        // A move alone is a change; an update with nothing in it is not.
        assert_eq!(
            parse("*** Update File: a\n*** Move to: b\n*** End Patch\nignored"),
            Ok(vec![Op::Update {
                path: "a".into(),
                move_to: Some("b".into()),
                hunks: Vec::new()
            }])
        );
        assert_eq!(
            parse("*** Update File: a\n@@ x\n\n"),
            Err("*** Update File: a has no changes".into())
        );
    }

    #[test]
    fn each_malformed_line_is_named() {
        assert_eq!(
            parse("*** Add File: a\n+x\nnot plus\n"),
            Err("line 3: every line of an added file must start with '+': \"not plus\"".into())
        );
        assert_eq!(
            parse("*** Delete File:  \n"),
            Err("'*** Delete File:' without a path".into())
        );
        assert_eq!(
            parse("*** Add File:\n"),
            Err("'*** Add File:' without a path".into())
        );
        assert_eq!(
            parse("*** Update File: a\n*** Move to: \n"),
            Err("'*** Move to:' without a path".into())
        );
        assert_eq!(
            parse(""),
            Err("the patch contains no file operations".into())
        );
    }

    #[test]
    fn an_end_of_file_marker_closes_its_hunk() {
        let hunks = hunks_of("*** Update File: a\n@@\n-last\n+LAST\n*** End of File\n+tail\n");
        assert_eq!(
            hunks,
            [
                Hunk {
                    anchor: None,
                    lines: vec![Line::Removed("last".into()), Line::Added("LAST".into())],
                    end_of_file: true
                },
                Hunk {
                    anchor: None,
                    lines: vec![Line::Added("tail".into())],
                    end_of_file: false
                }
            ]
        );
        // The end-of-file hunk matches only the file's last lines.
        assert_eq!(
            apply("last\nmid\nlast\n", &hunks[..1]),
            Ok("last\nmid\nLAST\n".into())
        );
        assert!(apply("last\nmid\n", &hunks[..1]).is_err());
        assert!(
            hunks_of("*** Update File: a\n*** End of File\n-x\n")[0]
                .lines
                .len()
                == 1
        );
    }

    #[test]
    fn hunks_apply_in_order_each_after_the_last() {
        let hunk = |from: &str, to: &str| Hunk {
            anchor: None,
            lines: vec![Line::Removed(from.into()), Line::Added(to.into())],
            end_of_file: false,
        };
        assert_eq!(
            apply("x\ny\nx\n", &[hunk("x", "1"), hunk("x", "2")]),
            Ok("1\ny\n2\n".into())
        );
        // A hunk found only before the cursor is still found, from the top.
        assert_eq!(
            apply("a\nb\n", &[hunk("b", "B"), hunk("a", "A")]),
            Ok("A\nB\n".into())
        );
        // Exact lines win over whitespace-tolerant ones.
        assert_eq!(apply("  k\nk\n", &[hunk("k", "K")]), Ok("  k\nK\n".into()));
        assert_eq!(
            apply("k  \n  k\n", &[hunk("k", "K")]),
            Ok("K\n  k\n".into())
        );
        // No final newline stays without one; a block longer than the file misses.
        assert_eq!(apply("k", &[hunk("k", "K")]), Ok("K".into()));
        let long = Hunk {
            anchor: Some("fn f".into()),
            lines: vec![Line::Removed("a".into()), Line::Removed("b".into())],
            end_of_file: false,
        };
        assert_eq!(
            apply("a\n", &[long]),
            Err("hunk 1 did not match: could not find these lines (after 'fn f'):\na\nb".into())
        );
    }

    #[test]
    fn anchors_match_whole_lines_first_then_inside_a_line() {
        let after = |anchor: &str| Hunk {
            anchor: Some(anchor.into()),
            lines: vec![Line::Removed("v".into()), Line::Added("V".into())],
            end_of_file: false,
        };
        let text = "v\nfn main() {\nv\nfn main\nv\n";
        assert_eq!(
            apply(text, &[after("fn main")]),
            Ok("v\nfn main() {\nv\nfn main\nV\n".into())
        );
        assert_eq!(
            apply(text, &[after("main() {")]),
            Ok("v\nfn main() {\nV\nfn main\nv\n".into())
        );
        assert_eq!(
            apply(text, &[after("absent")]),
            Ok("V\nfn main() {\nv\nfn main\nv\n".into())
        );
        let insert = |anchor: &str, eof: bool| Hunk {
            anchor: Some(anchor.into()),
            lines: vec![Line::Added("new".into())],
            end_of_file: eof,
        };
        assert_eq!(
            apply("a\nb\n", &[insert("absent", false)]),
            Ok("a\nb\nnew\n".into())
        );
        assert_eq!(
            apply("a\nb\n", &[insert("a", true)]),
            Ok("a\nb\nnew\n".into())
        );
        assert_eq!(apply("", &[]), Ok(String::new()));
    }
}
