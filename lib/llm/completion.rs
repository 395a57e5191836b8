//! One model answer, assembled from a stream of SSE chunks or read from a whole JSON
//! response (reference `agent` §2.4-§2.5), and the token usage it reports (§2.7).

use serde_json::Value;

use super::message::ToolCall;

/// Token usage of one call, split as Hermes books it on the session row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens that were neither read from nor written to the cache.
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    /// `prompt_tokens` as reported: the size of the request, for compaction.
    pub prompt: u64,
}

impl Usage {
    pub fn from_json(u: &Value) -> Usage {
        let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
        let prompt = n(u.get("prompt_tokens"));
        let details = u.get("prompt_tokens_details");
        let cache_read = [
            details.and_then(|d| d.get("cached_tokens")),
            u.get("cache_read_input_tokens"),
            u.get("prompt_cache_hit_tokens"),
        ]
        .into_iter()
        .flatten()
        .find_map(Value::as_u64)
        .unwrap_or(0);
        let cache_write = [
            details.and_then(|d| d.get("cache_write_tokens")),
            u.get("cache_creation_input_tokens"),
        ]
        .into_iter()
        .flatten()
        .find_map(Value::as_u64)
        .unwrap_or(0);
        let reasoning = [
            u.get("completion_tokens_details")
                .and_then(|d| d.get("reasoning_tokens")),
            u.get("output_tokens_details")
                .and_then(|d| d.get("reasoning_tokens")),
        ]
        .into_iter()
        .flatten()
        .find_map(Value::as_u64)
        .unwrap_or(0);
        Usage {
            input: prompt.saturating_sub(cache_read + cache_write),
            output: n(u.get("completion_tokens")),
            cache_read,
            cache_write,
            reasoning,
            prompt,
        }
    }

    pub fn add(&mut self, other: Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.reasoning += other.reasoning;
        self.prompt = other.prompt;
    }
}

/// What the model answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    pub content: Option<String>,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

impl Completion {
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }

    /// Nothing at all came back: no text, no reasoning, no calls, no finish reason.
    pub fn is_empty_stream(&self) -> bool {
        self.finish_reason.is_none()
            && self.content.as_deref().is_none_or(str::is_empty)
            && self.reasoning.is_none()
            && self.tool_calls.is_empty()
    }

    /// Reads a non-streamed `chat.completion` object.
    pub fn from_json(body: &Value) -> Completion {
        let choice = body.get("choices").and_then(|c| c.get(0));
        let message = choice.and_then(|c| c.get("message"));
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let content = message
            .and_then(|m| m.get("content"))
            .and_then(|c| match c {
                Value::Null => None,
                other => Some(super::message::flatten_content(other)),
            });
        let reasoning = text(message.and_then(|m| m.get("reasoning_content")))
            .or_else(|| text(message.and_then(|m| m.get("reasoning"))));
        let tool_calls = message
            .and_then(|m| m.get("tool_calls"))
            .and_then(Value::as_array)
            .map(|calls| calls.iter().map(read_call).collect())
            .unwrap_or_default();
        Completion {
            content,
            reasoning,
            tool_calls,
            finish_reason: text(choice.and_then(|c| c.get("finish_reason"))),
            usage: body
                .get("usage")
                .filter(|u| u.is_object())
                .map(Usage::from_json),
        }
    }
}

fn read_call(call: &Value) -> ToolCall {
    let function = call.get("function");
    ToolCall {
        id: id_text(call.get("id")),
        name: function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        arguments: match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        },
    }
}

/// Ids arrive as strings, or as integers from some local servers.
fn id_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// What one stream delta carried, for a live display.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta<'a> {
    Text(&'a str),
    Reasoning(&'a str),
    /// Nothing has come from the endpoint at `url` for `seconds`: said once per call, so a
    /// person is not left looking at a silent screen.
    Waiting {
        url: &'a str,
        seconds: u64,
    },
}

/// Assembles a streamed answer chunk by chunk.
#[derive(Debug, Default)]
pub struct StreamAssembler {
    content: Option<String>,
    reasoning: Option<String>,
    slots: Vec<ToolCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
}

impl StreamAssembler {
    /// Takes one `data:` payload (already parsed). Calls `on_delta` with text shown to a
    /// person: content only until the first tool-call fragment (text after it is kept but
    /// not shown, as Hermes does).
    pub fn push(&mut self, chunk: &Value, on_delta: &mut dyn FnMut(Delta<'_>)) {
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(Usage::from_json(u));
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return;
        };
        if let Some(delta) = choice.get("delta") {
            for key in ["reasoning_content", "reasoning"] {
                if let Some(r) = delta.get(key).and_then(Value::as_str) {
                    self.reasoning.get_or_insert_with(String::new).push_str(r);
                    on_delta(Delta::Reasoning(r));
                    break;
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.content.get_or_insert_with(String::new).push_str(text);
                if self.slots.is_empty() {
                    on_delta(Delta::Text(text));
                }
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for fragment in calls {
                    self.push_call(fragment);
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
    }

    fn push_call(&mut self, fragment: &Value) {
        let index = fragment.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let id = id_text(fragment.get("id"));
        // A different non-empty id on a used index starts a new call (Ollama sends every
        // call on index 0).
        let slot = match self.slots.get(index) {
            Some(existing) if !id.is_empty() && !existing.id.is_empty() && existing.id != id => {
                self.slots.push(ToolCall {
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.slots.len() - 1
            }
            Some(_) => index,
            None => {
                while self.slots.len() <= index {
                    self.slots.push(ToolCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    });
                }
                index
            }
        };
        let call = &mut self.slots[slot];
        if !id.is_empty() {
            call.id = id;
        }
        if let Some(function) = fragment.get("function") {
            // Some providers resend the whole name with every fragment: assign, never append.
            if let Some(name) = function.get("name").and_then(Value::as_str)
                && !name.is_empty()
            {
                call.name = name.to_string();
            }
            if let Some(args) = function.get("arguments").and_then(Value::as_str) {
                call.arguments.push_str(args);
            }
        }
    }

    pub fn partial_text(&self) -> Option<&str> {
        self.content.as_deref()
    }

    pub fn finish(self) -> Completion {
        Completion {
            content: self.content,
            reasoning: self.reasoning,
            tool_calls: self.slots,
            finish_reason: self.finish_reason,
            usage: self.usage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_books_cached_tokens_apart() {
        let u = Usage::from_json(&json!({"prompt_tokens": 100, "completion_tokens": 20,
            "prompt_tokens_details": {"cached_tokens": 60},
            "completion_tokens_details": {"reasoning_tokens": 7}}));
        assert_eq!(
            u,
            Usage {
                input: 40,
                output: 20,
                cache_read: 60,
                cache_write: 0,
                reasoning: 7,
                prompt: 100
            }
        );
    }

    #[test]
    fn stream_reassembles_reasoning_text_and_split_calls() {
        let chunks = [
            json!({"choices": [{"delta": {"reasoning_content": "I should "}}]}),
            json!({"choices": [{"delta": {"reasoning_content": "list files."}}]}),
            json!({"choices": [{"delta": {"content": "Let me look."}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "call_1",
                "function": {"name": "terminal", "arguments": "{\"comm"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0,
                "function": {"arguments": "and\": \"echo hi\"}"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": 7,
                "function": {"name": "read_file", "arguments": "{}"}}]}}]}),
            json!({"choices": [{"delta": {"content": " hidden"}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        ];
        let mut shown = Vec::new();
        let mut a = StreamAssembler::default();
        for c in &chunks {
            a.push(c, &mut |d| shown.push(format!("{d:?}")));
        }
        let done = a.finish();
        assert_eq!(done.reasoning.as_deref(), Some("I should list files."));
        assert_eq!(done.content.as_deref(), Some("Let me look. hidden"));
        assert_eq!(done.tool_calls[0].arguments, "{\"command\": \"echo hi\"}");
        assert_eq!(done.tool_calls[1].id, "7");
        assert_eq!(done.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(done.usage.map(|u| u.output), Some(5));
        assert!(!shown.iter().any(|s| s.contains("hidden")));
    }

    #[test]
    fn usage_reads_every_providers_names_and_adds_up() {
        let anthropic_style = Usage::from_json(&json!({"prompt_tokens": 100,
            "completion_tokens": 9, "cache_read_input_tokens": 30,
            "cache_creation_input_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 4}}));
        assert_eq!(
            anthropic_style,
            Usage {
                input: 50,
                output: 9,
                cache_read: 30,
                cache_write: 20,
                reasoning: 4,
                prompt: 100
            }
        );
        let deepseek_style = Usage::from_json(&json!({"prompt_tokens": 10,
            "prompt_cache_hit_tokens": 25, "prompt_tokens_details": {"cache_write_tokens": 1}}));
        assert_eq!(
            (deepseek_style.cache_read, deepseek_style.cache_write),
            (25, 1)
        );
        assert_eq!(deepseek_style.input, 0, "never below zero");
        let mut total = anthropic_style;
        total.add(Usage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
            reasoning: 5,
            prompt: 7,
        });
        assert_eq!(
            total,
            Usage {
                input: 51,
                output: 11,
                cache_read: 33,
                cache_write: 24,
                reasoning: 9,
                prompt: 7
            }
        );
    }

    #[test]
    fn a_whole_response_is_read_as_a_stream_would_be() {
        let done = Completion::from_json(&json!({"choices": [{"message": {
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
            "reasoning": "thought",
            "tool_calls": [
                {"id": 3, "function": {"name": "read_file", "arguments": {"path": "a"}}},
                {"id": "c2", "function": {"name": "skills_list", "arguments": null}}]},
            "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1}}));
        assert_eq!(done.content.as_deref(), Some("one\ntwo"));
        assert_eq!(done.reasoning.as_deref(), Some("thought"));
        assert_eq!(
            done.tool_calls,
            [
                ToolCall {
                    id: "3".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"a\"}".into()
                },
                ToolCall {
                    id: "c2".into(),
                    name: "skills_list".into(),
                    arguments: String::new()
                }
            ]
        );
        assert_eq!(done.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(done.usage.map(|u| u.prompt), Some(5));
        let bare = Completion::from_json(&json!({"choices": [{"message": {"content": null,
            "reasoning_content": "r"}}], "usage": "n/a"}));
        assert_eq!(bare.content, None);
        assert_eq!(bare.reasoning.as_deref(), Some("r"));
        assert_eq!(bare.usage, None);
        assert!(bare.tool_calls.is_empty());
        assert_eq!(Completion::from_json(&json!({})), Completion::default());
    }

    #[test]
    fn fragments_fill_their_own_slots_and_a_resent_name_is_not_doubled() {
        let mut a = StreamAssembler::default();
        let mut shown = Vec::new();
        let chunks = [
            json!({"choices": [{"delta": {"reasoning": "hm", "content": "A"}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 2, "id": "c",
                "function": {"name": "terminal", "arguments": "{"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 2,
                "function": {"name": "terminal", "arguments": "}"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 2, "id": "c",
                "function": {"name": "", "arguments": ""}}]}}]}),
        ];
        for c in &chunks {
            a.push(c, &mut |d| shown.push(format!("{d:?}")));
        }
        assert_eq!(shown, ["Reasoning(\"hm\")", "Text(\"A\")"]);
        assert_eq!(a.partial_text(), Some("A"));
        let calls = a.finish().tool_calls;
        assert_eq!(calls.len(), 3);
        assert_eq!(
            calls[2],
            ToolCall {
                id: "c".into(),
                name: "terminal".into(),
                arguments: "{}".into()
            }
        );
        assert_eq!(calls[0].name, "");
        let empty = StreamAssembler::default();
        assert_eq!(empty.partial_text(), None);
        assert!(empty.finish().is_empty_stream());
    }

    #[test]
    fn an_empty_stream_is_one_that_said_nothing_at_all() {
        let nothing = Completion::default();
        assert!(nothing.is_empty_stream());
        assert_eq!(nothing.text(), "");
        let blank = Completion {
            content: Some(String::new()),
            ..Completion::default()
        };
        assert!(blank.is_empty_stream());
        let said = |c: Completion| !c.is_empty_stream();
        assert!(said(Completion {
            content: Some("x".into()),
            ..Completion::default()
        }));
        assert!(said(Completion {
            reasoning: Some(String::new()),
            ..Completion::default()
        }));
        assert!(said(Completion {
            finish_reason: Some("stop".into()),
            ..Completion::default()
        }));
        assert!(said(Completion {
            tool_calls: vec![ToolCall {
                id: String::new(),
                name: String::new(),
                arguments: String::new()
            }],
            ..Completion::default()
        }));
        assert_eq!(
            Completion {
                content: Some("hi".into()),
                ..Completion::default()
            }
            .text(),
            "hi"
        );
    }

    #[test]
    fn a_new_id_on_index_zero_is_a_second_call() {
        let mut a = StreamAssembler::default();
        for (id, name) in [("a", "x"), ("b", "y")] {
            a.push(
                &json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": id,
                    "function": {"name": name, "arguments": "{}"}}]}}]}),
                &mut |_| {},
            );
        }
        let names: Vec<String> = a.finish().tool_calls.into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["x", "y"]);
    }
}
