//! The conversation as the agent keeps it: one [`Message`] per turn element, in the shape
//! Python Hermes keeps in memory and stores in `state.db` (reference `agent` §6.2). The wire
//! form is derived from it for every call ([`super::wire`]), never stored.

use serde_json::{Map, Value, json};

use crate::io::pyjson::{self, Dumps};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Some(match text {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }
}

/// One tool call as the model sent it. `arguments` is kept exactly as received: the store
/// keeps it verbatim and the wire form re-serialises it (reference `agent` §2.3 step 5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl ToolCall {
    /// `fc_` + the id without its `call_` prefix: the Responses-API item id Python stores
    /// beside each call (reference `agent` §6.2).
    pub fn response_item_id(&self) -> String {
        let bare = self.id.strip_prefix("call_").unwrap_or(&self.id);
        format!("fc_{bare}")
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Message {
    pub role: Option<Role>,
    /// `""` when the model sent none (never NULL in the store, never `null` on the wire).
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    /// The tool a result answers; `None` for results of calls to tools that do not exist.
    pub tool_name: Option<String>,
    /// The name sent on the wire for a tool result (`""` for a blank tool name).
    pub wire_name: Option<String>,
    pub reasoning: Option<String>,
    pub finish_reason: Option<String>,
    /// What the API was sent instead of `content` (recalled context added to a user turn).
    pub api_content: Option<String>,
    /// Wall-clock seconds when the message was made; the store stamps it when absent.
    pub timestamp: Option<f64>,
    /// The `messages.id` once stored: the marker that keeps a message from being written
    /// twice (Python's `_db_persisted`).
    pub stored_id: Option<i64>,
}

impl Message {
    pub fn user(text: impl Into<String>) -> Message {
        Message {
            role: Some(Role::User),
            content: text.into(),
            ..Message::default()
        }
    }

    pub fn assistant(text: impl Into<String>) -> Message {
        Message {
            role: Some(Role::Assistant),
            content: text.into(),
            ..Message::default()
        }
    }

    pub fn tool_result(call: &ToolCall, known_tool: bool, content: impl Into<String>) -> Message {
        Message {
            role: Some(Role::Tool),
            content: content.into(),
            tool_call_id: Some(call.id.clone()),
            tool_name: known_tool.then(|| call.name.clone()),
            wire_name: Some(call.name.clone()),
            ..Message::default()
        }
    }

    pub fn is(&self, role: Role) -> bool {
        self.role == Some(role)
    }

    pub fn role_str(&self) -> &'static str {
        self.role.map_or("user", Role::as_str)
    }

    /// The `tool_calls` column: `json.dumps` of the stored call list with Python's default
    /// separators and ASCII escapes (reference `agent` §6.2).
    pub fn stored_tool_calls(&self) -> Option<String> {
        if self.tool_calls.is_empty() {
            return None;
        }
        let calls: Vec<Value> = self
            .tool_calls
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "call_id": c.id,
                    "response_item_id": c.response_item_id(),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                })
            })
            .collect();
        Some(pyjson::dumps(
            &Value::Array(calls),
            Dumps {
                indent: None,
                ensure_ascii: true,
                sort_keys: false,
            },
        ))
    }

    /// Reads the stored `tool_calls` column back (Python's readers fall back to no calls on
    /// text that does not parse).
    pub fn parse_stored_tool_calls(text: &str) -> Vec<ToolCall> {
        let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) else {
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|item| {
                let function = item.get("function")?;
                let arguments = match function.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(other) => pyjson::dumps(other, Dumps::TOOL_RESULT),
                };
                Some(ToolCall {
                    id: item
                        .get("id")
                        .or_else(|| item.get("call_id"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    name: function
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    arguments,
                })
            })
            .collect()
    }

    /// A message line as `hermes-review` and `hermes-index export` read it (`role`, `content`,
    /// `tool_calls`, `tool_call_id`, `tool_name`).
    pub fn to_line(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), json!(self.role_str()));
        m.insert("content".into(), json!(self.content));
        if !self.tool_calls.is_empty() {
            let calls: Vec<Value> = self
                .tool_calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments}})
                })
                .collect();
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        if let Some(id) = &self.tool_call_id {
            m.insert("tool_call_id".into(), json!(id));
        }
        if let Some(name) = &self.tool_name {
            m.insert("tool_name".into(), json!(name));
        }
        if let Some(ts) = self.timestamp {
            m.insert("timestamp".into(), json!(ts));
        }
        Value::Object(m)
    }

    /// Reads a message line (the inverse of [`Message::to_line`]; also accepts the OpenAI
    /// shape with `name` on tool results).
    pub fn from_line(value: &Value) -> Result<Message, String> {
        let object = value.as_object().ok_or("a message must be a JSON object")?;
        let role_text = object
            .get("role")
            .and_then(Value::as_str)
            .ok_or("a message needs a \"role\"")?;
        let role = Role::parse(role_text).ok_or_else(|| {
            format!("unknown role {role_text:?} (expected user, assistant, tool or system)")
        })?;
        let content = match object.get("content") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => flatten_content(other),
        };
        let tool_calls = match object.get("tool_calls") {
            Some(Value::String(text)) => Message::parse_stored_tool_calls(text),
            Some(calls @ Value::Array(_)) => Message::parse_stored_tool_calls(&calls.to_string()),
            _ => Vec::new(),
        };
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
        let tool_name = text("tool_name").or_else(|| text("name"));
        Ok(Message {
            role: Some(role),
            content,
            tool_calls,
            tool_call_id: text("tool_call_id"),
            wire_name: tool_name.clone().filter(|_| role == Role::Tool),
            tool_name,
            reasoning: text("reasoning"),
            finish_reason: text("finish_reason"),
            api_content: text("api_content"),
            timestamp: object.get("timestamp").and_then(Value::as_f64),
            stored_id: None,
        })
    }
}

/// Multimodal content as text: the text parts joined by newlines, images as `[screenshot]`
/// (what Python stores, reference `agent` §6.2).
pub fn flatten_content(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => match o.get("type").and_then(Value::as_str) {
                    Some("text") => o.get("text").and_then(Value::as_str).map(str::to_string),
                    Some("image_url") | Some("image") => Some("[screenshot]".to_string()),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_result_names_its_tool_only_when_the_tool_exists() {
        let call = ToolCall {
            id: "call_7".into(),
            name: "terminal".into(),
            arguments: "{}".into(),
        };
        let known = Message::tool_result(&call, true, "ok");
        assert_eq!(known.role, Some(Role::Tool));
        assert_eq!(known.content, "ok");
        assert_eq!(known.tool_call_id.as_deref(), Some("call_7"));
        assert_eq!(known.tool_name.as_deref(), Some("terminal"));
        assert_eq!(known.wire_name.as_deref(), Some("terminal"));
        let unknown = Message::tool_result(&call, false, "no such tool");
        assert_eq!(unknown.tool_name, None);
        assert_eq!(unknown.wire_name.as_deref(), Some("terminal"));
    }

    #[test]
    fn stored_tool_calls_carry_python_ids_and_separators() {
        let mut m = Message::assistant("");
        m.tool_calls.push(ToolCall {
            id: "call_1".into(),
            name: "terminal".into(),
            arguments: "{\"command\": \"echo hi\"}".into(),
        });
        assert_eq!(
            m.stored_tool_calls().as_deref(),
            Some(
                r#"[{"id": "call_1", "call_id": "call_1", "response_item_id": "fc_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"echo hi\"}"}}]"#
            )
        );
    }

    #[test]
    fn a_line_round_trips() {
        let line = json!({"role": "assistant", "content": "x", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]});
        let m = Message::from_line(&line).unwrap();
        assert_eq!(m.to_line(), line);
    }

    #[test]
    fn roles_read_and_write_their_names() {
        for role in [Role::System, Role::User, Role::Assistant, Role::Tool] {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(
            [Role::System, Role::User, Role::Assistant, Role::Tool].map(Role::as_str),
            ["system", "user", "assistant", "tool"]
        );
        assert_eq!(Role::parse("User"), None);
        let unknown = Message::default();
        assert_eq!(unknown.role_str(), "user");
        assert!(!unknown.is(Role::User));
        assert!(Message::user("x").is(Role::User));
        assert!(!Message::user("x").is(Role::Assistant));
        assert_eq!(Message::assistant("x").role_str(), "assistant");
    }

    #[test]
    fn stored_calls_read_back_whatever_shape_python_left() {
        let calls = Message::parse_stored_tool_calls(
            r#"[{"call_id": "c1", "function": {"name": "read_file", "arguments": {"path": "a"}}},
                {"id": "c2", "function": {"name": "terminal", "arguments": null}},
                {"id": "c3", "function": {"name": "patch"}},
                {"id": "no-function"}]"#,
        );
        assert_eq!(
            calls,
            [
                ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\": \"a\"}".into()
                },
                ToolCall {
                    id: "c2".into(),
                    name: "terminal".into(),
                    arguments: String::new()
                },
                ToolCall {
                    id: "c3".into(),
                    name: "patch".into(),
                    arguments: String::new()
                },
            ]
        );
        assert!(Message::parse_stored_tool_calls("not json").is_empty());
        assert!(Message::parse_stored_tool_calls("{}").is_empty());
        assert_eq!(Message::assistant("x").stored_tool_calls(), None);
        assert_eq!(
            ToolCall {
                id: "abc".into(),
                name: String::new(),
                arguments: String::new()
            }
            .response_item_id(),
            "fc_abc"
        );
    }

    #[test]
    fn a_tool_line_keeps_its_call_name_and_time() {
        let line = json!({"role": "tool", "content": [{"type": "text", "text": "a"},
            {"type": "image_url"}, "b", 3], "tool_call_id": "c1", "name": "terminal",
            "reasoning": "r", "finish_reason": "stop", "api_content": "api", "timestamp": 1.5});
        let Ok(m) = Message::from_line(&line) else {
            panic!("read")
        };
        assert_eq!(m.content, "a\n[screenshot]\nb");
        assert_eq!(m.tool_name.as_deref(), Some("terminal"));
        assert_eq!(m.wire_name.as_deref(), Some("terminal"));
        assert_eq!(
            (
                m.reasoning.as_deref(),
                m.finish_reason.as_deref(),
                m.api_content.as_deref(),
                m.timestamp
            ),
            (Some("r"), Some("stop"), Some("api"), Some(1.5))
        );
        assert_eq!(
            m.to_line(),
            json!({"role": "tool", "content": "a\n[screenshot]\nb", "tool_call_id": "c1",
                "tool_name": "terminal", "timestamp": 1.5})
        );
        // A name on an assistant line is not a wire name; stored calls as text are read.
        let Ok(a) = Message::from_line(&json!({"role": "assistant", "content": null, "name": "x",
            "tool_calls": "[{\"id\": \"c\", \"function\": {\"name\": \"t\", \"arguments\": \"{}\"}}]"}))
        else {
            panic!("read")
        };
        assert_eq!((a.content.as_str(), a.wire_name), ("", None));
        assert_eq!(a.tool_calls.len(), 1);
        assert_eq!(flatten_content(&json!(null)), "");
        assert_eq!(flatten_content(&json!(7)), "7");
        assert_eq!(flatten_content(&json!([{"type": "image"}])), "[screenshot]");
    }

    #[test]
    fn bad_lines_are_refused_with_a_reason() {
        assert_eq!(
            Message::from_line(&json!({"content": "x"}))
                .err()
                .as_deref(),
            Some("a message needs a \"role\"")
        );
        assert_eq!(
            Message::from_line(&json!({"role": "robot"}))
                .err()
                .as_deref(),
            Some("unknown role \"robot\" (expected user, assistant, tool or system)")
        );
        assert_eq!(
            Message::from_line(&json!([1])).err().as_deref(),
            Some("a message must be a JSON object")
        );
    }
}
