//! The syntax check run after every write, reported under the result's `"lint"` key:
//! `{"status": "ok", "output": ""}`, `{"status": "error", "output": "<message>"}`, or
//! `{"status": "skipped", "message": "No linter for .txt files"}`. Python is checked by
//! `python3` (parse only, no `__pycache__` written), JSON in-process; other types are skipped.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The lint result for `content` just written to `path`.
pub fn lint(path: &Path, content: &str) -> Value {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("json") => match serde_json::from_str::<Value>(content) {
            Ok(_) => ok(),
            Err(e) => error(&format!("JSON syntax error: {e}")),
        },
        Some("py") => python(path),
        Some(ext) => skipped(&format!("No linter for .{ext} files")),
        None => skipped("No linter for files without an extension"),
    }
}

fn python(path: &Path) -> Value {
    let run = python_check(path).output();
    match run {
        Ok(out) if out.status.success() => ok(),
        Ok(out) => error(crate::pytext::strip(&String::from_utf8_lossy(&out.stdout))),
        // No Python on this machine is not the file's fault.
        Err(_) => skipped("python3 not available to lint .py files"),
    }
}

/// `python3` parsing `path`. Isolated (`-I`: neither the current directory nor PYTHON*
/// variables reach sys.path) and without `site` (`-S`): the check runs outside the sandbox,
/// in the workspace the model writes, where an `ast.py` or a `.pth` file would otherwise run
/// as us.
fn python_check(path: &Path) -> Command {
    const CHECK: &str = "import ast, sys\nsrc = open(sys.argv[1], 'rb').read()\ntry:\n    ast.parse(src, sys.argv[1])\nexcept SyntaxError as e:\n    print(f'{e.filename}:{e.lineno}:{e.offset}: SyntaxError: {e.msg}')\n    sys.exit(1)\n";
    let mut cmd = Command::new("python3");
    cmd.args(["-I", "-S", "-c", CHECK])
        .arg(path)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

fn ok() -> Value {
    json!({"status": "ok", "output": ""})
}

fn error(output: &str) -> Value {
    json!({"status": "error", "output": output})
}

fn skipped(message: &str) -> Value {
    json!({"status": "skipped", "message": message})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::pyjson::tool_result;

    #[test]
    fn plain_text_is_skipped_with_the_extension_named() {
        assert_eq!(
            tool_result(&lint(Path::new("/x/a.txt"), "hi")),
            r#"{"status": "skipped", "message": "No linter for .txt files"}"#
        );
    }

    #[test]
    fn json_is_checked_in_process() {
        assert_eq!(
            tool_result(&lint(Path::new("a.json"), "{\"a\": 1}")),
            r#"{"status": "ok", "output": ""}"#
        );
        let bad = lint(Path::new("a.json"), "{\"a\": }");
        assert_eq!(bad["status"], "error");
        assert_eq!(
            bad["output"],
            "JSON syntax error: expected value at line 1 column 7"
        );
    }

    #[test]
    fn python_syntax_errors_are_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = dir.path().join("good.py");
        std::fs::write(&good, "x = 1\n").expect("write");
        let bad = dir.path().join("bad.py");
        std::fs::write(&bad, "def f(:\n").expect("write");
        if Command::new("python3").arg("-V").output().is_err() {
            return;
        }
        assert_eq!(
            tool_result(&lint(&good, "")),
            r#"{"status": "ok", "output": ""}"#
        );
        let result = lint(&bad, "");
        assert_eq!(result["status"], "error");
        let text = result["output"].as_str().unwrap_or_default();
        assert!(text.starts_with(&format!("{}:1:", bad.display())), "{text}");
    }

    #[test]
    fn a_module_the_model_wrote_in_the_workspace_is_not_imported_by_the_check() {
        if Command::new("python3").arg("-V").output().is_err() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let mark = dir.path().join("ran");
        std::fs::write(
            dir.path().join("ast.py"),
            format!(
                "open({:?}, 'w').write('x')\nraise SystemExit(0)\n",
                mark.display().to_string()
            ),
        )
        .expect("write");
        let file = dir.path().join("x.py");
        std::fs::write(&file, "x = 1\n").expect("write");
        let checked = python_check(&file).current_dir(dir.path()).status();
        assert!(checked.is_ok_and(|s| s.success()));
        assert!(!mark.exists(), "the workspace's ast.py ran");
        // Without isolation it would have: the test can see the attack.
        let plain = Command::new("python3")
            .args(["-c", "import ast"])
            .current_dir(dir.path())
            .status();
        assert!(plain.is_ok_and(|s| s.success()));
        assert!(mark.exists());
    }
}
