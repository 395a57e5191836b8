//! `write_file`: replaces a file's whole content (creating it and its parent directories),
//! then lints it. The write is atomic, so a reader (the user's editor, a running program)
//! sees the old file or the new one, never half of it.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::refuse::{sandbox_refusal, write_refusal};
use super::{Workspace, args, lint::lint, paths};
use crate::io::atomic::{FileMode, write_atomic};

pub fn write_file(ws: &mut Workspace, args: &Map<String, Value>) -> Value {
    let Some(given) = args::string(args, "path").filter(|p| !p.is_empty()) else {
        return json!({"error": "path is required"});
    };
    let Some(content) = args::string(args, "content") else {
        return json!({"error": "content is required and must be a string"});
    };
    let path = paths::resolve(ws.cwd(), given);
    if let Some(refusal) = write_refusal(
        given,
        &path,
        ws.hermes_home(),
        args::flag(args, "cross_profile", false),
    ) {
        return json!({ "error": refusal });
    }
    if let Some(refusal) = sandbox_refusal(ws.sandbox(), given, &path, true) {
        return json!({ "error": refusal });
    }
    if looks_like_read_output(content) {
        return json!({"error": "Refusing to write: every line of content starts with a read_file line number (`N|`). Write the file's text without the line-number prefixes."});
    }
    let dirs_created = match store(&path, content) {
        Ok(created) => created,
        Err(e) => return json!({"error": format!("Failed to write {given}: {e}")}),
    };
    let resolved = path.display().to_string();
    json!({
        "bytes_written": content.len(),
        "dirs_created": dirs_created,
        "lint": lint(&path, content),
        "resolved_path": resolved,
        "files_modified": [resolved],
    })
}

/// Writes `content` to `path` atomically, creating missing parent directories and keeping
/// an existing file's permission bits. Answers whether any directory had to be created.
pub(super) fn store(path: &Path, content: &str) -> Result<bool, String> {
    if path.is_dir() {
        return Err("it is a directory".to_string());
    }
    let mut dirs_created = false;
    if let Some(parent) = path.parent()
        && !parent.exists()
    {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        dirs_created = true;
    }
    let mode = match std::fs::metadata(path) {
        Ok(meta) => {
            use std::os::unix::fs::PermissionsExt;
            FileMode::Exact(meta.permissions().mode() & 0o7777)
        }
        Err(_) => FileMode::Umask,
    };
    write_atomic(path, content.as_bytes(), mode).map_err(|e| e.to_string())?;
    Ok(dirs_created)
}

static NUMBERED_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\s*(\d+)\|").ok());

/// Content whose non-blank lines all start with consecutive `N|` numbers, over at least two
/// lines: the model pasted `read_file` output back, and writing it would bake the line
/// numbers into the file. (Consecutive, so that most pipe-separated data still passes.)
fn looks_like_read_output(content: &str) -> bool {
    let Some(re) = NUMBERED_LINE.as_ref() else {
        return false;
    };
    let mut expected: Option<u64> = None;
    let mut numbered = 0;
    for line in content.lines().filter(|l| !l.trim().is_empty()) {
        let Some(n) = re
            .captures(line)
            .and_then(|c| c.get(1))
            .and_then(|m| m.as_str().parse::<u64>().ok())
        else {
            return false;
        };
        if expected.is_some_and(|e| e != n) {
            return false;
        }
        expected = n.checked_add(1);
        numbered += 1;
    }
    numbered >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::pyjson::tool_result;
    use std::path::PathBuf;

    use crate::tools::testing::map;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canon");
        let ws = Workspace::new(root.join("work"), root.join("hh"));
        std::fs::create_dir_all(ws.cwd()).expect("mkdir");
        std::fs::create_dir_all(ws.hermes_home()).expect("mkdir");
        (dir, ws)
    }

    #[test]
    fn writes_a_new_file_in_new_directories() {
        let (_dir, mut ws) = workspace();
        let result = write_file(
            &mut ws,
            &map(json!({"path": "notes/a.txt", "content": "alpha\nbeta\ngamma\n"})),
        );
        let abs = ws.cwd().join("notes/a.txt");
        let abs = abs.display();
        assert_eq!(
            tool_result(&result),
            format!(
                r#"{{"bytes_written": 17, "dirs_created": true, "lint": {{"status": "skipped", "message": "No linter for .txt files"}}, "resolved_path": "{abs}", "files_modified": ["{abs}"]}}"#
            )
        );
        assert_eq!(
            std::fs::read_to_string(ws.cwd().join("notes/a.txt")).expect("read"),
            "alpha\nbeta\ngamma\n"
        );
        let again = write_file(
            &mut ws,
            &map(json!({"path": "notes/a.txt", "content": "é"})),
        );
        assert_eq!(again["bytes_written"], 2);
        assert_eq!(again["dirs_created"], false);
    }

    #[test]
    fn keeps_the_mode_of_a_replaced_file() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, mut ws) = workspace();
        let path = ws.cwd().join("run.sh");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).expect("chmod");
        write_file(&mut ws, &map(json!({"path": "run.sh", "content": "new"})));
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o7777, 0o750);
    }

    #[test]
    fn refuses_system_paths_and_the_hermes_config() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            tool_result(&write_file(
                &mut ws,
                &map(json!({"path": "/etc/passwd", "content": "x"}))
            )),
            r#"{"error": "Refusing to write to sensitive system path: /etc/passwd\nUse the terminal tool with sudo if you need to modify system files."}"#
        );
        let config: PathBuf = ws.hermes_home().join("config.yaml");
        assert_eq!(
            write_file(
                &mut ws,
                &map(json!({"path": config.display().to_string(), "content": "x"}))
            ),
            json!({"error": format!("Refusing to write to Hermes config file: {}", config.display())})
        );
        assert!(!config.exists());
    }

    #[test]
    fn refuses_content_that_is_read_file_output() {
        let (_dir, mut ws) = workspace();
        let result = write_file(
            &mut ws,
            &map(json!({"path": "a.txt", "content": "1|alpha\n2|beta\n"})),
        );
        assert!(
            result["error"]
                .as_str()
                .unwrap_or("")
                .starts_with("Refusing to write: every line")
        );
        assert!(!ws.cwd().join("a.txt").exists());
        // One such line, or numbers that do not count up, are ordinary content.
        let ok = write_file(&mut ws, &map(json!({"path": "b.txt", "content": "1|x\n"})));
        assert_eq!(ok["bytes_written"], 4);
        let ok = write_file(
            &mut ws,
            &map(json!({"path": "c.txt", "content": "7|x\n3|y\n"})),
        );
        assert_eq!(ok["bytes_written"], 8);
    }

    #[test]
    fn missing_arguments_are_named() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            write_file(&mut ws, &map(json!({"content": "x"}))),
            json!({"error": "path is required"})
        );
        assert_eq!(
            write_file(&mut ws, &map(json!({"path": "a"}))),
            json!({"error": "content is required and must be a string"})
        );
    }
}
