//! A model for unit tests: it answers from a script and keeps every request body, so a
//! test can assert exactly what was sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Completion, Delta, Endpoint, LlmError, ToolCall, Transport};

/// The request bodies a [`Scripted`] model was sent, in order.
pub type Bodies = Arc<Mutex<Vec<Value>>>;

/// The placeholders a [`Scripted`] model was given (name, value), in order.
pub type Noted = Arc<Mutex<Vec<(String, String)>>>;

/// Answers from `script`, then fails with "script ended". An answer's reasoning and text are
/// streamed first, each as one delta, as a streamed call would show them.
pub struct Scripted {
    script: VecDeque<Result<Completion, LlmError>>,
    bodies: Bodies,
    placeholders: Noted,
}

impl Scripted {
    pub fn new(script: Vec<Result<Completion, LlmError>>) -> Scripted {
        Scripted {
            script: script.into(),
            bodies: Bodies::default(),
            placeholders: Noted::default(),
        }
    }

    /// The placeholders set so far (shared, as [`Scripted::bodies`]).
    pub fn placeholders(&self) -> Noted {
        self.placeholders.clone()
    }

    /// The bodies sent so far (shared: read it after the transport is moved away).
    pub fn bodies(&self) -> Bodies {
        self.bodies.clone()
    }
}

impl Transport for Scripted {
    fn call(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError> {
        if let Ok(mut bodies) = self.bodies.lock() {
            bodies.push(body.clone());
        }
        let next = self
            .script
            .pop_front()
            .unwrap_or(Err(LlmError::BadResponse("script ended".into())));
        if let Ok(done) = &next {
            if let Some(r) = done.reasoning.as_deref().filter(|r| !r.is_empty()) {
                on_delta(Delta::Reasoning(r));
            }
            if let Some(t) = done.content.as_deref().filter(|t| !t.is_empty()) {
                on_delta(Delta::Text(t));
            }
        }
        next
    }

    fn set_placeholder(&mut self, name: &str, value: &str) {
        if let Ok(mut noted) = self.placeholders.lock() {
            noted.push((name.into(), value.into()));
        }
    }
}

/// A final answer.
pub fn answer(text: &str) -> Result<Completion, LlmError> {
    Ok(Completion {
        content: Some(text.into()),
        finish_reason: Some("stop".into()),
        ..Default::default()
    })
}

/// One call `call_1` of `tool` with `arguments` (JSON text).
pub fn tool_call(tool: &str, arguments: &str) -> Result<Completion, LlmError> {
    Ok(Completion {
        tool_calls: vec![ToolCall {
            id: "call_1".into(),
            name: tool.into(),
            arguments: arguments.into(),
        }],
        finish_reason: Some("tool_calls".into()),
        ..Default::default()
    })
}

/// Model `m1` on a `custom` endpoint nobody listens on.
pub fn endpoint() -> Endpoint {
    Endpoint {
        provider: "custom".into(),
        model: "m1".into(),
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key: String::new(),
        key_source: "none".into(),
        max_tokens: None,
        reasoning_effort: None,
    }
}
