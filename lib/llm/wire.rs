//! The request body of a chat-completions call, built from the canonical conversation before
//! every call and never stored (reference `agent` §2.2-§2.3): the system prompt first, user
//! and assistant text stripped, tool-call arguments re-serialised compact with sorted keys,
//! the call/result pairing repaired so that a strict endpoint accepts it.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::message::{Message, Role, ToolCall};
use super::repair;
use crate::io::pyjson;

/// What a call sends besides the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOptions {
    pub model: String,
    /// Output cap; `None` leaves it to the endpoint.
    pub max_tokens: Option<u64>,
    pub reasoning_effort: Option<String>,
    pub stream: bool,
    /// The tool schemas (`{"type":"function",…}`), sorted by name; empty sends no `tools`.
    pub tools: Vec<Value>,
}

/// The text of a stub result for a call whose result was lost (a compaction cut between a
/// call and its answer); the model is told where to look instead.
pub const MISSING_RESULT: &str = "[Result unavailable — see context summary above]";

/// Builds the body: `messages, model, max_tokens, stream, stream_options, tools` in the
/// order Python's client writes them.
pub fn body(system_prompt: &str, messages: &[Message], options: &CallOptions) -> Value {
    let mut body = Map::new();
    body.insert(
        "messages".into(),
        Value::Array(wire_messages(system_prompt, messages)),
    );
    body.insert("model".into(), json!(options.model));
    if let Some(max) = options.max_tokens {
        body.insert(max_tokens_key(&options.model).into(), json!(max));
    }
    if let Some(effort) = &options.reasoning_effort {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    if options.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if !options.tools.is_empty() {
        body.insert("tools".into(), Value::Array(options.tools.clone()));
    }
    Value::Object(body)
}

/// OpenAI's reasoning-era models take `max_completion_tokens` (reference `agent` §2.2).
fn max_tokens_key(model: &str) -> &'static str {
    let bare = model.rsplit('/').next().unwrap_or(model);
    const NEW_STYLE: [&str; 6] = ["gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4"];
    if NEW_STYLE.iter().any(|p| bare.starts_with(p)) {
        "max_completion_tokens"
    } else {
        "max_tokens"
    }
}

/// The `messages` array: system prompt, then the conversation with its pairing repaired.
pub fn wire_messages(system_prompt: &str, messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if !system_prompt.is_empty() {
        out.push(json!({"role": "system", "content": system_prompt}));
    }
    let paired = repair_pairing(messages);
    let mut last_user: Option<usize> = None;
    for m in paired {
        match m.role {
            Some(Role::User) => {
                let text = m.api_content.as_deref().unwrap_or(&m.content).trim();
                // Two user messages in a row are one turn to the model.
                if let Some(i) = last_user.filter(|&i| i + 1 == out.len()) {
                    if let Some(Value::String(prev)) = out[i].get_mut("content") {
                        prev.push_str("\n\n");
                        prev.push_str(text);
                    }
                    continue;
                }
                out.push(json!({"role": "user", "content": text}));
                last_user = Some(out.len() - 1);
            }
            Some(Role::Assistant) => {
                if m.content.trim().is_empty() && m.tool_calls.is_empty() && m.reasoning.is_some() {
                    continue;
                }
                let mut a = Map::new();
                a.insert("role".into(), json!("assistant"));
                a.insert("content".into(), json!(m.content.trim()));
                if !m.tool_calls.is_empty() {
                    let calls: Vec<Value> = m.tool_calls.iter().map(wire_call).collect();
                    a.insert("tool_calls".into(), Value::Array(calls));
                }
                out.push(Value::Object(a));
            }
            Some(Role::Tool) => {
                let name = m
                    .wire_name
                    .as_deref()
                    .or(m.tool_name.as_deref())
                    .unwrap_or("");
                out.push(json!({
                    "role": "tool",
                    "name": name,
                    "content": m.content.trim(),
                    "tool_call_id": m.tool_call_id.as_deref().unwrap_or(""),
                }));
            }
            Some(Role::System) | None => {}
        }
    }
    out
}

fn wire_call(call: &ToolCall) -> Value {
    let name = if call.name.trim().is_empty() {
        "invalid_tool_call"
    } else {
        call.name.as_str()
    };
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": name, "arguments": wire_arguments(&call.arguments)},
    })
}

/// Arguments as sent: valid JSON compact with sorted keys, blank as `{}`, broken JSON
/// repaired where it can be and `{}` where it cannot.
pub fn wire_arguments(raw: &str) -> String {
    if raw.trim().is_empty() {
        return "{}".to_string();
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => pyjson::compact_sorted(&v),
        Err(_) => repair::repair_json(raw)
            .map(|v| pyjson::compact_sorted(&v))
            .unwrap_or_else(|| "{}".to_string()),
    }
}

/// Drops results whose call is gone, adds a stub result for every call left unanswered and
/// drops repeated call ids, so that every call has exactly one result right after it.
fn repair_pairing(messages: &[Message]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut seen_calls: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        if !m.is(Role::Assistant) || m.tool_calls.is_empty() {
            if !m.is(Role::Tool) {
                out.push(m.clone());
            }
            i += 1;
            continue;
        }
        let mut assistant = m.clone();
        assistant
            .tool_calls
            .retain(|c| seen_calls.insert(c.id.clone()));
        // The results that follow this assistant message, up to the next non-tool message.
        let mut j = i + 1;
        let mut results: Vec<&Message> = Vec::new();
        while j < messages.len() && messages[j].is(Role::Tool) {
            results.push(&messages[j]);
            j += 1;
        }
        let calls = assistant.tool_calls.clone();
        out.push(assistant);
        for call in &calls {
            match results
                .iter()
                .find(|r| r.tool_call_id.as_deref() == Some(call.id.as_str()))
            {
                Some(r) => out.push((*r).clone()),
                None => {
                    let mut stub = Message::tool_result(call, true, MISSING_RESULT);
                    stub.wire_name = Some(call.name.clone());
                    out.push(stub);
                }
            }
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, args: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "terminal".into(),
            arguments: args.into(),
        }
    }

    fn options() -> CallOptions {
        CallOptions {
            model: "fake-model".into(),
            max_tokens: Some(65536),
            reasoning_effort: None,
            stream: true,
            tools: vec![json!({"type": "function"})],
        }
    }

    #[test]
    fn body_keys_come_in_pythons_order() {
        let b = body("sys", &[Message::user("  spaced question  ")], &options());
        assert_eq!(
            b.to_string(),
            r#"{"messages":[{"role":"system","content":"sys"},{"role":"user","content":"spaced question"}],"model":"fake-model","max_tokens":65536,"stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function"}]}"#
        );
    }

    #[test]
    fn arguments_go_out_compact_and_sorted() {
        assert_eq!(
            wire_arguments("{\"z\": 1, \"command\": \"echo 1\"}"),
            r#"{"command":"echo 1","z":1}"#
        );
        assert_eq!(wire_arguments("  "), "{}");
        assert_eq!(wire_arguments("{\"path\": \"é\"}"), r#"{"path":"\u00e9"}"#);
    }

    #[test]
    fn a_lost_result_gets_a_stub_and_a_stray_result_is_dropped() {
        let mut a = Message::assistant("");
        a.tool_calls.push(call("c1", "{}"));
        let mut stray = Message::tool_result(&call("zz", "{}"), true, "orphan");
        stray.wire_name = Some("terminal".into());
        let msgs = vec![Message::user("q"), stray, a, Message::user("next")];
        let wire = wire_messages("", &msgs);
        let roles: Vec<&str> = wire.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "user"]);
        assert_eq!(wire[2]["content"], MISSING_RESULT);
        assert_eq!(wire[2]["tool_call_id"], "c1");
    }

    #[test]
    fn blank_tool_names_are_renamed_on_the_wire_only() {
        let mut a = Message::assistant("");
        a.tool_calls.push(ToolCall {
            id: "c".into(),
            name: "".into(),
            arguments: "".into(),
        });
        let r = Message::tool_result(&a.tool_calls[0], false, "rejected");
        let wire = wire_messages("", &[Message::user("q"), a, r]);
        assert_eq!(
            wire[1]["tool_calls"][0]["function"]["name"],
            "invalid_tool_call"
        );
        assert_eq!(wire[1]["tool_calls"][0]["function"]["arguments"], "{}");
        assert_eq!(wire[2]["name"], "");
    }

    #[test]
    fn new_openai_models_get_max_completion_tokens() {
        assert_eq!(max_tokens_key("openai/gpt-5-mini"), "max_completion_tokens");
        assert_eq!(max_tokens_key("o3"), "max_completion_tokens");
        assert_eq!(max_tokens_key("fake-model"), "max_tokens");
    }

    #[test]
    fn optional_keys_are_sent_only_when_set() {
        let plain = CallOptions {
            model: "m".into(),
            max_tokens: None,
            reasoning_effort: Some("high".into()),
            stream: false,
            tools: Vec::new(),
        };
        assert_eq!(
            body("", &[Message::user("q")], &plain).to_string(),
            r#"{"messages":[{"role":"user","content":"q"}],"model":"m","reasoning_effort":"high"}"#
        );
    }

    #[test]
    fn the_conversation_goes_out_as_a_strict_endpoint_wants_it() {
        let mut asked = Message::user("shown in the store");
        asked.api_content = Some("  sent to the model  ".into());
        let mut thinking = Message::assistant("  ");
        thinking.reasoning = Some("hm".into());
        let mut answered = Message::assistant("Here.");
        answered.reasoning = Some("so".into());
        let mut calls = Message::assistant(" Let me look. ");
        calls.tool_calls = vec![
            call("c1", "{\"b\":1,\"a\":2}"),
            call("c1", "{}"),
            call("c2", "{oops"),
        ];
        let mut first = Message::tool_result(&calls.tool_calls[0], true, " one ");
        first.wire_name = None;
        let second = Message::tool_result(&calls.tool_calls[2], true, "two");
        let system = Message {
            role: Some(Role::System),
            content: "old system".into(),
            ..Message::default()
        };
        let wire = wire_messages(
            "",
            &[asked, thinking, answered, system, calls, second, first],
        );
        assert_eq!(
            Value::Array(wire),
            json!([
                {"role": "user", "content": "sent to the model"},
                {"role": "assistant", "content": "Here."},
                {"role": "assistant", "content": "Let me look.", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{\"a\":2,\"b\":1}"}},
                    {"id": "c2", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
                {"role": "tool", "name": "terminal", "content": "one", "tool_call_id": "c1"},
                {"role": "tool", "name": "terminal", "content": "two", "tool_call_id": "c2"}
            ])
        );
        // A user message after an assistant one is not merged into the one before it.
        let wire = wire_messages(
            "",
            &[
                Message::user("a"),
                Message::assistant("b"),
                Message::user("c"),
            ],
        );
        assert_eq!(wire.len(), 3);
    }

    #[test]
    fn adjacent_user_messages_are_merged() {
        let wire = wire_messages("", &[Message::user("a"), Message::user("b")]);
        assert_eq!(wire, vec![json!({"role": "user", "content": "a\n\nb"})]);
    }
}
