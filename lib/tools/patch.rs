//! `patch`: targeted edits. `mode='replace'` swaps `old_string` for `new_string` through
//! Hermes's fuzzy matcher (so an edit succeeds or fails as it would upstream, with the same
//! "Found N matches" text for an ambiguous one); `mode='patch'` applies a V4A patch over any
//! number of files. Either way the answer carries a unified diff of what changed.
//!
//! A V4A patch is checked in full (every file read, every hunk matched) before the first file
//! is written, so a hunk that does not apply leaves every file as it was. In patch mode
//! `"lint"` maps each written file to its lint result, as several files may change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::diff::{label, unified};
use super::refuse::{sandbox_refusal, write_refusal};
use super::v4a::{self, Op};
use super::{Workspace, args, lint::lint, paths, write::store};
use crate::skills::fuzzy::find_and_replace;

const NOT_FOUND_HINT: &str = "old_string not found. Use read_file to verify the current content, or search_files to locate the text.";

pub fn patch(ws: &mut Workspace, args: &Map<String, Value>) -> Value {
    match args::string(args, "mode").unwrap_or("replace") {
        "replace" => replace(ws, args),
        "patch" => apply_v4a(ws, args),
        other => failure(format!(
            "Unknown mode '{other}': use 'replace' (path, old_string, new_string) or 'patch' (V4A patch text)"
        )),
    }
}

fn replace(ws: &mut Workspace, args: &Map<String, Value>) -> Value {
    let (Some(given), Some(old), Some(new)) = (
        args::string(args, "path").filter(|p| !p.is_empty()),
        args::string(args, "old_string"),
        args::string(args, "new_string"),
    ) else {
        return failure(
            "mode='replace' requires path, old_string and new_string (new_string may be '')"
                .to_string(),
        );
    };
    let replace_all = args::flag(args, "replace_all", false);
    let path = paths::resolve(ws.cwd(), given);
    let cross_profile = args::flag(args, "cross_profile", false);
    if let Some(refusal) = write_refusal(given, &path, ws.hermes_home(), cross_profile)
        .or_else(|| sandbox_refusal(ws.sandbox(), given, &path, true))
    {
        return failure(refusal);
    }
    let content = match read_text(&path, given) {
        Ok(Some(c)) => c,
        Ok(None) => return failure(format!("File not found: {given}")),
        Err(e) => return failure(e),
    };
    let replaced = match find_and_replace(&content, old, new, replace_all) {
        Ok(r) => r.content,
        Err(e) if e.message.starts_with("Could not find") => {
            return json!({"success": false, "error": e.message, "_hint": NOT_FOUND_HINT});
        }
        Err(e) => return failure(e.message),
    };
    if let Err(e) = store(&path, &replaced) {
        return failure(format!("Failed to write {given}: {e}"));
    }
    let abs = path.display().to_string();
    json!({
        "success": true,
        "diff": unified(&content, &replaced, &label('a', &abs), &label('b', &abs)),
        "files_modified": [abs],
        "lint": lint(&path, &replaced),
        "resolved_path": abs,
    })
}

/// One file's planned end state: `None` content means absent (deleted, or not yet there).
struct Change {
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
}

fn apply_v4a(ws: &mut Workspace, args: &Map<String, Value>) -> Value {
    let Some(text) = args::string(args, "patch").filter(|t| !t.trim().is_empty()) else {
        return failure("mode='patch' requires the patch text in 'patch'".to_string());
    };
    let ops = match v4a::parse(text) {
        Ok(ops) => ops,
        Err(e) => return failure(format!("Invalid V4A patch: {e}")),
    };
    let changes = match plan(ws, &ops, args::flag(args, "cross_profile", false)) {
        Ok(c) => c,
        Err(e) => return failure(e),
    };
    let mut diff = String::new();
    let mut modified = Vec::new();
    let mut lints = Map::new();
    for change in &changes {
        let abs = change.path.display().to_string();
        let written = match &change.after {
            Some(content) => store(&change.path, content).map(|_| ()),
            None => std::fs::remove_file(&change.path).map_err(|e| e.to_string()),
        };
        if let Err(e) = written {
            return failure(format!(
                "Failed to write {abs}: {e}{}",
                if modified.is_empty() {
                    String::new()
                } else {
                    format!(" (already changed: {})", modified.join(", "))
                }
            ));
        }
        let from = match change.before {
            Some(_) => label('a', &abs),
            None => "/dev/null".to_string(),
        };
        let to = match &change.after {
            Some(content) => {
                lints.insert(abs.clone(), lint(&change.path, content));
                label('b', &abs)
            }
            None => "/dev/null".to_string(),
        };
        diff.push_str(&unified(
            change.before.as_deref().unwrap_or(""),
            change.after.as_deref().unwrap_or(""),
            &from,
            &to,
        ));
        modified.push(abs);
    }
    json!({
        "success": true,
        "diff": diff,
        "files_modified": modified,
        "lint": lints,
    })
}

/// Every file's end state after `ops`, computed without writing anything. Later operations
/// see the results of earlier ones on the same file.
fn plan(ws: &Workspace, ops: &[Op], cross_profile: bool) -> Result<Vec<Change>, String> {
    let mut order: Vec<PathBuf> = Vec::new();
    let mut staged: HashMap<PathBuf, (Option<String>, Option<String>)> = HashMap::new();
    let target = |given: &str| -> Result<PathBuf, String> {
        let path = paths::resolve(ws.cwd(), given);
        match write_refusal(given, &path, ws.hermes_home(), cross_profile)
            .or_else(|| sandbox_refusal(ws.sandbox(), given, &path, true))
        {
            Some(refusal) => Err(refusal),
            None => Ok(path),
        }
    };
    // The current (staged or on-disk) content of a file, loading it on first use.
    let current = |staged: &mut HashMap<PathBuf, (Option<String>, Option<String>)>,
                   order: &mut Vec<PathBuf>,
                   path: &Path,
                   given: &str|
     -> Result<Option<String>, String> {
        if let Some((_, after)) = staged.get(path) {
            return Ok(after.clone());
        }
        let on_disk = read_text(path, given)?;
        staged.insert(path.to_path_buf(), (on_disk.clone(), on_disk.clone()));
        order.push(path.to_path_buf());
        Ok(on_disk)
    };
    for op in ops {
        match op {
            Op::Add {
                path: given,
                content,
            } => {
                let path = target(given)?;
                if current(&mut staged, &mut order, &path, given)?.is_some() {
                    return Err(format!(
                        "Cannot add {given}: the file already exists (use '*** Update File:')"
                    ));
                }
                set(&mut staged, &path, Some(content.clone()));
            }
            Op::Delete { path: given } => {
                let path = target(given)?;
                if current(&mut staged, &mut order, &path, given)?.is_none() {
                    return Err(format!("Cannot delete {given}: File not found"));
                }
                set(&mut staged, &path, None);
            }
            Op::Update {
                path: given,
                move_to,
                hunks,
            } => {
                let path = target(given)?;
                let Some(content) = current(&mut staged, &mut order, &path, given)? else {
                    return Err(format!("File not found: {given}"));
                };
                let updated = v4a::apply(&content, hunks).map_err(|e| format!("{given}: {e}"))?;
                match move_to {
                    Some(dest_given) => {
                        let dest = target(dest_given)?;
                        if dest != path
                            && current(&mut staged, &mut order, &dest, dest_given)?.is_some()
                        {
                            return Err(format!(
                                "Cannot move {given} to {dest_given}: the destination exists"
                            ));
                        }
                        set(&mut staged, &path, None);
                        set(&mut staged, &dest, Some(updated));
                    }
                    None => set(&mut staged, &path, Some(updated)),
                }
            }
        }
    }
    Ok(order
        .into_iter()
        .filter_map(|path| {
            let (before, after) = staged.remove(&path)?;
            (before != after).then_some(Change {
                path,
                before,
                after,
            })
        })
        .collect())
}

fn set(
    staged: &mut HashMap<PathBuf, (Option<String>, Option<String>)>,
    path: &Path,
    after: Option<String>,
) {
    if let Some(entry) = staged.get_mut(path) {
        entry.1 = after;
    }
}

/// A file's text, `None` when it does not exist.
fn read_text(path: &Path, given: &str) -> Result<Option<String>, String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("Cannot patch {given}: it is not UTF-8 text")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if path.is_dir() => Err(format!("Cannot patch {given}: it is a directory ({e})")),
        Err(e) => Err(format!("Cannot read {given}: {e}")),
    }
}

fn failure(error: String) -> Value {
    json!({"success": false, "error": error})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_text_tells_absent_from_a_folder_from_unreadable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "text\n").expect("write");
        assert_eq!(read_text(&file, "f.txt"), Ok(Some("text\n".to_string())));
        assert_eq!(read_text(&dir.path().join("absent"), "absent"), Ok(None));
        let folder = read_text(dir.path(), "d");
        assert!(
            folder
                .as_ref()
                .is_err_and(|e| e.starts_with("Cannot patch d: it is a directory (")),
            "{folder:?}"
        );
        // Below a file: neither absent nor a folder.
        let below = read_text(&file.join("x"), "f.txt/x");
        assert!(
            below
                .as_ref()
                .is_err_and(|e| e.starts_with("Cannot read f.txt/x: Not a directory")),
            "{below:?}"
        );
    }
    use crate::io::pyjson::tool_result;

    use crate::tools::testing::map;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        crate::tools::testing::workspace(&[("a.txt", "alpha\nbeta\ngamma\n")])
    }

    fn text(ws: &Workspace, rel: &str) -> String {
        std::fs::read_to_string(ws.cwd().join(rel)).unwrap_or_else(|e| format!("<{e}>"))
    }

    #[test]
    fn replace_answers_with_a_diff() {
        let (_dir, mut ws) = workspace();
        let abs = ws.cwd().join("a.txt").display().to_string();
        let rel = abs.trim_start_matches('/');
        let out = patch(
            &mut ws,
            &map(
                json!({"mode": "replace", "path": "a.txt", "old_string": "beta", "new_string": "BETA"}),
            ),
        );
        assert_eq!(
            tool_result(&out),
            format!(
                r#"{{"success": true, "diff": "--- a/{rel}\n+++ b/{rel}\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n", "files_modified": ["{abs}"], "lint": {{"status": "skipped", "message": "No linter for .txt files"}}, "resolved_path": "{abs}"}}"#
            )
        );
        assert_eq!(text(&ws, "a.txt"), "alpha\nBETA\ngamma\n");
    }

    #[test]
    fn replace_failures() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            tool_result(&patch(
                &mut ws,
                &map(json!({"path": "a.txt", "old_string": "delta", "new_string": "x"}))
            )),
            r#"{"success": false, "error": "Could not find a match for old_string in the file", "_hint": "old_string not found. Use read_file to verify the current content, or search_files to locate the text."}"#
        );
        std::fs::write(ws.cwd().join("b.txt"), "x\nx\n").expect("write");
        assert_eq!(
            tool_result(&patch(
                &mut ws,
                &map(json!({"path": "b.txt", "old_string": "x", "new_string": "y"}))
            )),
            r#"{"success": false, "error": "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True."}"#
        );
        let all = patch(
            &mut ws,
            &map(
                json!({"path": "b.txt", "old_string": "x", "new_string": "y", "replace_all": true}),
            ),
        );
        assert_eq!(all["success"], true);
        assert_eq!(text(&ws, "b.txt"), "y\ny\n");
        assert_eq!(
            tool_result(&patch(
                &mut ws,
                &map(json!({"path": "nope.txt", "old_string": "x", "new_string": "y"}))
            )),
            r#"{"success": false, "error": "File not found: nope.txt"}"#
        );
        let refused = patch(
            &mut ws,
            &map(json!({"path": "/etc/hosts", "old_string": "x", "new_string": "y"})),
        );
        assert_eq!(
            refused["error"],
            "Refusing to write to sensitive system path: /etc/hosts\nUse the terminal tool with sudo if you need to modify system files."
        );
    }

    #[test]
    fn v4a_adds_updates_and_deletes() {
        let (_dir, mut ws) = workspace();
        std::fs::write(ws.cwd().join("old.txt"), "bye\n").expect("write");
        let root = ws.cwd().display().to_string();
        let r = root.trim_start_matches('/');
        let out = patch(
            &mut ws,
            &map(
                json!({"mode": "patch", "patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** Add File: sub/new.txt\n+hello\n+world\n*** Delete File: old.txt\n*** End Patch\n"}),
            ),
        );
        assert_eq!(
            tool_result(&out),
            format!(
                r#"{{"success": true, "diff": "--- a/{r}/a.txt\n+++ b/{r}/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n--- /dev/null\n+++ b/{r}/sub/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n--- a/{r}/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", "files_modified": ["{root}/a.txt", "{root}/sub/new.txt", "{root}/old.txt"], "lint": {{"{root}/a.txt": {{"status": "skipped", "message": "No linter for .txt files"}}, "{root}/sub/new.txt": {{"status": "skipped", "message": "No linter for .txt files"}}}}}}"#
            )
        );
        assert_eq!(text(&ws, "a.txt"), "alpha\nBETA\ngamma\n");
        assert_eq!(text(&ws, "sub/new.txt"), "hello\nworld\n");
        assert!(!ws.cwd().join("old.txt").exists());
    }

    #[test]
    fn v4a_failure_changes_nothing() {
        let (_dir, mut ws) = workspace();
        let out = patch(
            &mut ws,
            &map(
                json!({"mode": "patch", "patch": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: a.txt\n-delta\n+DELTA\n*** End Patch"}),
            ),
        );
        assert_eq!(
            tool_result(&out),
            r#"{"success": false, "error": "a.txt: hunk 1 did not match: could not find these lines:\ndelta"}"#
        );
        assert!(!ws.cwd().join("new.txt").exists());
        assert_eq!(text(&ws, "a.txt"), "alpha\nbeta\ngamma\n");
    }

    #[test]
    fn v4a_move_renames_the_updated_file() {
        let (_dir, mut ws) = workspace();
        let out = patch(
            &mut ws,
            &map(
                json!({"mode": "patch", "patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n-gamma\n+GAMMA\n*** End Patch"}),
            ),
        );
        assert_eq!(out["success"], true, "{out}");
        assert!(!ws.cwd().join("a.txt").exists());
        assert_eq!(text(&ws, "b.txt"), "alpha\nbeta\nGAMMA\n");
    }

    #[test]
    fn unknown_mode_and_missing_arguments() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            patch(&mut ws, &map(json!({"mode": "x"})))["error"],
            "Unknown mode 'x': use 'replace' (path, old_string, new_string) or 'patch' (V4A patch text)"
        );
        assert_eq!(
            patch(&mut ws, &map(json!({"path": "a.txt"})))["error"],
            "mode='replace' requires path, old_string and new_string (new_string may be '')"
        );
        assert_eq!(
            patch(&mut ws, &map(json!({"mode": "patch"})))["error"],
            "mode='patch' requires the patch text in 'patch'"
        );
    }
}
