//! The `memory` tool: its argument object in, its result object out, validated in the order
//! Hermes 0.19.0 validates (reference `loop.md` §3.3 "Dispatcher"). `hermes-memory`,
//! `hermes-review` and `hermes-chat` all call the tool through [`call`].
//!
//! Arguments are read as the agent's tool executor reads them (`agent/tool_executor.py`): a
//! missing `action` is `None` (the tool registry's generic handler would make it `""`), a
//! missing or null `target` is `"memory"`.
//!
//! Arguments come from a model, so any JSON may arrive. Falsy values (`null`, `""`, `0`,
//! `false`, `[]`, `{}`) count as absent, as in Python. A truthy value of the wrong type (a
//! number for `content`) is refused with a plain message, where upstream crashes inside the
//! handler and answers `Tool execution failed: AttributeError: …`.

use crate::pytext::{py_str, truthy};
use serde_json::Value;

use super::store::MemoryStore;
use super::{MemoryError, Target};
use crate::io::pyjson;

/// Runs one tool call on the store. `Err` only for I/O: a refused action is an answer.
pub fn call(store: &mut MemoryStore, args: &Value) -> Result<Value, MemoryError> {
    let Some(args) = args.as_object() else {
        return Ok(tool_error(
            "Invalid arguments: expected an object {action, target, content?, old_text?, operations?}.",
        ));
    };
    let target_name = match args.get("target") {
        None | Some(Value::Null) => "memory".to_string(),
        Some(value) => py_str(value),
    };
    let target = match args.get("target") {
        None | Some(Value::Null) => Some(Target::Memory),
        Some(Value::String(name)) => Target::from_name(name),
        Some(_) => None,
    };
    let Some(target) = target else {
        return Ok(tool_error(&format!(
            "Invalid target '{target_name}'. Use 'memory' or 'user'."
        )));
    };

    let field = |key: &str| args.get(key).filter(|v| truthy(v));
    if let Some(operations) = field("operations") {
        let Some(operations) = operations.as_array() else {
            return Ok(tool_error(
                "operations must be a list of {action, content?, old_text?} objects.",
            ));
        };
        return store.apply_batch(target, operations);
    }

    // The agent's executor reads `args.get("action")`: absent and null are both None.
    let action = args.get("action").unwrap_or(&Value::Null);
    let action_name = py_str(action);
    let content = field("content");
    let old_text = field("old_text");
    match action.as_str() {
        Some("add") => {
            let Some(content) = content else {
                return Ok(tool_error("Content is required for 'add' action."));
            };
            match content.as_str() {
                Some(content) => store.add(target, content),
                None => Ok(tool_error("content must be a string.")),
            }
        }
        Some("replace") => {
            let Some(old_text) = old_text else {
                return Ok(store.missing_old_text(target, "replace"));
            };
            let Some(content) = content else {
                return Ok(tool_error("content is required for 'replace' action."));
            };
            match (old_text.as_str(), content.as_str()) {
                (Some(old_text), Some(content)) => store.replace(target, old_text, content),
                (None, _) => Ok(tool_error("old_text must be a string.")),
                (_, None) => Ok(tool_error("content must be a string.")),
            }
        }
        Some("remove") => {
            let Some(old_text) = old_text else {
                return Ok(store.missing_old_text(target, "remove"));
            };
            match old_text.as_str() {
                Some(old_text) => store.remove(target, old_text),
                None => Ok(tool_error("old_text must be a string.")),
            }
        }
        _ => Ok(tool_error(&format!(
            "Unknown action '{action_name}'. Use: add, replace, remove"
        ))),
    }
}

/// [`call`] for a model's tool loop, which needs an answer whatever happens: an I/O failure
/// becomes the error result Hermes's tool registry gives for a failed handler.
pub fn answer(store: &mut MemoryStore, args: &Value) -> Value {
    call(store, args).unwrap_or_else(|err| {
        let mut map = serde_json::Map::new();
        map.insert(
            "error".into(),
            Value::String(format!("Tool execution failed: {err}")),
        );
        Value::Object(map)
    })
}

/// The answer when memory is off (`memory.memory_enabled` and `memory.user_profile_enabled`
/// both false): Hermes then has no store at all.
pub fn unavailable() -> Value {
    tool_error("Memory is not available. It may be disabled in config or this environment.")
}

/// Hermes's `tool_error(message, success=False)`: `{"error": …, "success": false}`.
pub fn tool_error(message: &str) -> Value {
    let mut map = serde_json::Map::new();
    map.insert("error".into(), Value::String(message.to_string()));
    map.insert("success".into(), Value::Bool(false));
    Value::Object(map)
}

/// The result as the model receives it: `json.dumps(result, ensure_ascii=False)`.
pub fn result_text(result: &Value) -> String {
    pyjson::tool_result(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truthiness_and_str_like_python() {
        for falsy in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!truthy(&falsy), "{falsy}");
        }
        for value in [
            json!(true),
            json!(1),
            json!(" "),
            json!([0]),
            json!({"a": null}),
        ] {
            assert!(truthy(&value), "{value}");
        }
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(5)), "5");
        assert_eq!(py_str(&json!(2.5)), "2.5");
        assert_eq!(py_str(&json!(["a", 1, true])), "['a', 1, True]");
        assert_eq!(py_str(&json!({"k": "it's"})), "{'k': \"it's\"}");
    }

    #[test]
    fn answer_turns_an_io_failure_into_an_error_result() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A directory where MEMORY.md should be: reading it fails.
        let memory = dir.path().join("MEMORY.md");
        let mut store = MemoryStore::load_paths(
            [memory.clone(), dir.path().join("USER.md")],
            crate::memory::Limits::DEFAULT,
        )
        .expect("load");
        std::fs::create_dir(&memory).expect("mkdir");
        let args = json!({"action": "add", "target": "memory", "content": "x"});
        assert!(call(&mut store, &args).is_err());
        let answer = answer(&mut store, &args);
        let error = answer["error"].as_str().unwrap_or("");
        assert!(
            error.starts_with("Tool execution failed: cannot read "),
            "{error}"
        );
        assert_eq!(answer.get("success"), None);
        // Invalid targets and actions answer in Hermes's words.
        assert_eq!(
            result_text(&answer_of(&mut store, json!({"target": 5}))),
            r#"{"error": "Invalid target '5'. Use 'memory' or 'user'.", "success": false}"#
        );
        assert_eq!(
            result_text(&answer_of(
                &mut store,
                json!({"target": "user", "action": null})
            )),
            r#"{"error": "Unknown action 'None'. Use: add, replace, remove", "success": false}"#
        );
    }

    fn answer_of(store: &mut MemoryStore, args: Value) -> Value {
        answer(store, &args)
    }

    #[test]
    fn arguments_are_checked_in_hermes_order_with_its_words() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = MemoryStore::load_paths(
            [dir.path().join("MEMORY.md"), dir.path().join("USER.md")],
            crate::memory::Limits::DEFAULT,
        )
        .expect("load");
        let mut error = |args: Value| {
            let answer = call(&mut store, &args).expect("no I/O error");
            assert_eq!(answer["success"], false, "{answer}");
            answer["error"].as_str().unwrap_or("").to_string()
        };
        assert_eq!(
            error(json!(["add"])),
            "Invalid arguments: expected an object {action, target, content?, old_text?, operations?}."
        );
        assert_eq!(
            error(json!({"target": "team", "action": "add", "content": "x"})),
            "Invalid target 'team'. Use 'memory' or 'user'."
        );
        assert_eq!(
            error(json!({"operations": "add x"})),
            "operations must be a list of {action, content?, old_text?} objects."
        );
        assert_eq!(
            error(json!({"action": "add", "content": ""})),
            "Content is required for 'add' action."
        );
        assert_eq!(
            error(json!({"action": "add", "content": 5})),
            "content must be a string."
        );
        assert_eq!(
            error(json!({"action": "replace", "old_text": "a"})),
            "content is required for 'replace' action."
        );
        assert_eq!(
            error(json!({"action": "replace", "old_text": 1, "content": "b"})),
            "old_text must be a string."
        );
        assert_eq!(
            error(json!({"action": "replace", "old_text": "a", "content": [1]})),
            "content must be a string."
        );
        assert_eq!(
            error(json!({"action": "remove", "old_text": true})),
            "old_text must be a string."
        );
        assert!(error(json!({"action": "remove"})).starts_with("'remove' needs old_text"),);
        assert!(
            error(json!({"action": "replace", "content": "b"}))
                .starts_with("'replace' needs old_text"),
        );
        assert_eq!(
            error(json!({"action": "frob"})),
            "Unknown action 'frob'. Use: add, replace, remove"
        );
        assert_eq!(
            unavailable(),
            json!({"error": "Memory is not available. It may be disabled in config or this environment.", "success": false})
        );
    }

    #[test]
    fn a_call_reaches_the_target_it_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (memory, user) = (dir.path().join("MEMORY.md"), dir.path().join("USER.md"));
        let mut store = MemoryStore::load_paths(
            [memory.clone(), user.clone()],
            crate::memory::Limits::DEFAULT,
        )
        .expect("load");
        let mut ok = |args: Value| {
            let answer = call(&mut store, &args).expect("no I/O error");
            assert_eq!(answer["success"], true, "{answer}");
        };
        ok(json!({"action": "add", "target": "user", "content": "Name is Ada"}));
        ok(json!({"action": "add", "content": "Uses uv"}));
        ok(json!({"action": "add", "target": null, "content": "Uses pytest"}));
        ok(
            json!({"action": "replace", "target": "user", "old_text": "Ada", "content": "Name is Ada L."}),
        );
        ok(json!({"action": "remove", "old_text": "uv"}));
        ok(json!({"target": "user", "operations": [{"action": "add", "content": "Likes tea"}]}));
        assert_eq!(
            std::fs::read_to_string(&user).expect("USER.md"),
            "Name is Ada L.\n§\nLikes tea"
        );
        assert_eq!(
            std::fs::read_to_string(&memory).expect("MEMORY.md"),
            "Uses pytest"
        );
    }

    #[test]
    fn tool_error_puts_error_first() {
        assert_eq!(
            result_text(&tool_error("x")),
            r#"{"error": "x", "success": false}"#
        );
    }
}
