//! The five tool schemas as the model sees them. Parameters are Hermes's, byte for byte and
//! in the same key order, so a model prompted for Hermes calls ours the same way; the
//! descriptions are our own, as are those of the three background-only `terminal`
//! parameters, which the reference abbreviates.

use serde_json::{Value, json};

/// `{"type": "function", "function": {"name", "description", "parameters"}}` for each tool,
/// in the order of [`super::NAMES`].
pub fn schemas() -> Vec<Value> {
    super::NAMES
        .iter()
        .map(|name| {
            let (description, parameters) = spec(name);
            json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    // The texts below are fixed and tested; Null cannot reach a model.
                    "parameters": serde_json::from_str::<Value>(parameters).unwrap_or(Value::Null),
                },
            })
        })
        .collect()
}

fn spec(name: &str) -> (&'static str, &'static str) {
    match name {
        "read_file" => (
            "Read a text file and return one page of it as numbered lines ('LINE_NUM|CONTENT'), with the file's total line count and size; page through long files with offset and limit.",
            r#"{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to read (absolute, relative, or ~/path)"},"offset":{"type":"integer","description":"Line number to start reading from (1-indexed, default: 1)","default":1,"minimum":1},"limit":{"type":"integer","description":"Maximum number of lines to read (default: 500, max: 2000)","default":500,"maximum":2000}},"required":["path"]}"#,
        ),
        "write_file" => (
            "Create or overwrite a file with the given content, creating missing parent directories; returns the bytes written, the absolute path and a lint result.",
            r#"{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to write (will be created if it doesn't exist, overwritten if it does)"},"content":{"type":"string","description":"Complete content to write to the file"},"cross_profile":{"type":"boolean","description":"Opt out of the cross-profile soft guard. Defaults to false. Set true ONLY after explicit user direction to edit another Hermes profile's skills/plugins/cron/memories — by default these writes are blocked with a warning because they affect a different profile than the one this session is running under.","default":false}},"required":["path","content"]}"#,
        ),
        "patch" => (
            "Edit files in place. mode='replace' swaps one exact, unique occurrence of old_string for new_string (or every occurrence with replace_all); mode='patch' applies a V4A patch that can update, add and delete files. Returns a unified diff of the change.",
            r#"{"type":"object","properties":{"mode":{"type":"string","enum":["replace","patch"],"description":"Edit mode. 'replace' (default): requires path + old_string + new_string. 'patch': requires patch content only.","default":"replace"},"path":{"type":"string","description":"REQUIRED when mode='replace'. File path to edit."},"old_string":{"type":"string","description":"REQUIRED when mode='replace'. Exact text to find and replace. Must be unique in the file unless replace_all=true. Include surrounding context lines to ensure uniqueness."},"new_string":{"type":"string","description":"REQUIRED when mode='replace'. Replacement text. Pass empty string '' to delete the matched text."},"replace_all":{"type":"boolean","description":"Replace all occurrences instead of requiring a unique match (default: false)","default":false},"patch":{"type":"string","description":"REQUIRED when mode='patch'. V4A format patch content. Format:\n*** Begin Patch\n*** Update File: path/to/file\n@@ context hint @@\n context line\n-removed line\n+added line\n*** End Patch"},"cross_profile":{"type":"boolean","description":"Opt out of the cross-profile soft guard. Defaults to false. Set true ONLY after explicit user direction to edit another Hermes profile's skills/plugins/cron/memories.","default":false}},"required":["mode"]}"#,
        ),
        "search_files" => (
            "Search under a directory: target='content' finds lines matching a regex (with file paths and line numbers), target='files' finds files whose names match a glob. Hidden files and directories are skipped; results are paged with limit and offset.",
            r#"{"type":"object","properties":{"pattern":{"type":"string","description":"Regex pattern for content search, or glob pattern (e.g., '*.py') for file search"},"target":{"type":"string","enum":["content","files"],"description":"'content' searches inside file contents, 'files' searches for files by name","default":"content"},"path":{"type":"string","description":"Directory or file to search in (default: current working directory)","default":"."},"file_glob":{"type":"string","description":"Filter files by pattern in grep mode (e.g., '*.py' to only search Python files)"},"limit":{"type":"integer","description":"Maximum number of results to return (default: 50)","default":50},"offset":{"type":"integer","description":"Skip first N results for pagination (default: 0)","default":0},"output_mode":{"type":"string","enum":["content","files_only","count"],"description":"Output format for grep mode: 'content' shows matching lines with line numbers, 'files_only' lists file paths, 'count' shows match counts per file","default":"content"},"context":{"type":"integer","description":"Number of context lines before and after each match (grep mode only)","default":0}},"required":["pattern"]}"#,
        ),
        _ => (
            "Run a shell command with bash on this machine and return its combined stdout and stderr with the exit code. The working directory and exported environment variables carry over from one call to the next.",
            r#"{"type":"object","properties":{"command":{"type":"string","description":"The command to execute on the VM"},"background":{"type":"boolean","description":"Run the command in the background. Not supported by this agent: such a call is refused, so run long commands in the foreground with a larger timeout.","default":false},"timeout":{"type":"integer","description":"Max seconds to wait (default: 180, foreground max: 600). Returns INSTANTLY when command finishes — set high for long tasks, you won't wait unnecessarily. Foreground timeout above 600s is rejected; use background=true for longer commands.","minimum":1},"workdir":{"type":"string","description":"Working directory for this command (absolute path). Defaults to the session working directory."},"pty":{"type":"boolean","description":"Run in pseudo-terminal (PTY) mode for interactive CLI tools like Codex, Claude Code, or Python REPL. Only works with local and SSH backends. Default: false.","default":false},"notify_on_complete":{"type":"boolean","description":"With background=true, report once when the background command ends. Accepted for compatibility; background commands are not supported here.","default":false},"watch_patterns":{"type":"array","items":{"type":"string"},"description":"With background=true, strings to watch for in the command's output. Accepted for compatibility; background commands are not supported here."}},"required":["command"]}"#,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::pyjson::tool_result;
    use serde_json::json;

    #[test]
    fn every_schema_parses_and_names_its_tool() {
        let all = schemas();
        assert_eq!(all.len(), 5);
        for (schema, name) in all.iter().zip(super::super::NAMES) {
            assert_eq!(schema["type"], "function");
            assert_eq!(schema["function"]["name"], name);
            assert!(schema["function"]["parameters"].is_object(), "{name}");
            let keys: Vec<&String> = schema["function"]
                .as_object()
                .map(|o| o.keys().collect())
                .unwrap_or_default();
            assert_eq!(keys, ["name", "description", "parameters"]);
        }
    }

    #[test]
    fn each_tool_has_its_own_parameters() {
        let required: Vec<Value> = schemas()
            .iter()
            .map(|s| s["function"]["parameters"]["required"].clone())
            .collect();
        assert_eq!(
            required,
            [
                json!(["path"]),
                json!(["path", "content"]),
                json!(["mode"]),
                json!(["pattern"]),
                json!(["command"])
            ]
        );
    }

    #[test]
    fn read_file_parameters_are_upstream_bytes() {
        assert_eq!(
            tool_result(&schemas()[0]["function"]["parameters"]),
            r#"{"type": "object", "properties": {"path": {"type": "string", "description": "Path to the file to read (absolute, relative, or ~/path)"}, "offset": {"type": "integer", "description": "Line number to start reading from (1-indexed, default: 1)", "default": 1, "minimum": 1}, "limit": {"type": "integer", "description": "Maximum number of lines to read (default: 500, max: 2000)", "default": 500, "maximum": 2000}}, "required": ["path"]}"#
        );
    }

    #[test]
    fn patch_keeps_upstream_key_order() {
        let all = schemas();
        let keys: Vec<&String> = all[2]["function"]["parameters"]["properties"]
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "mode",
                "path",
                "old_string",
                "new_string",
                "replace_all",
                "patch",
                "cross_profile"
            ]
        );
    }
}
