//! Two wrappers around the model transport: one counts the requests and bytes a review sends
//! (the summary record reports them, the benchmark compares them with Python's), the other
//! keeps the first request and sends nothing (`--dry-run`).

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::llm::{Completion, Delta, LlmError, Transport};

/// Requests and request-body bytes sent so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    pub requests: u64,
    pub bytes: u64,
}

pub struct Counting {
    inner: Box<dyn Transport>,
    sent: Arc<Mutex<Sent>>,
}

impl Counting {
    pub fn new(inner: Box<dyn Transport>) -> (Counting, Arc<Mutex<Sent>>) {
        let sent = Arc::new(Mutex::new(Sent::default()));
        (
            Counting {
                inner,
                sent: sent.clone(),
            },
            sent,
        )
    }
}

impl Transport for Counting {
    fn call(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError> {
        if let Ok(mut sent) = self.sent.lock() {
            sent.requests += 1;
            sent.bytes += serde_json::to_vec(body).map_or(0, |b| b.len() as u64);
        }
        self.inner.call(body, on_delta)
    }

    fn set_placeholder(&mut self, name: &str, value: &str) {
        self.inner.set_placeholder(name, value);
    }
}

/// Keeps the first request body and fails the call, so the review stops before any tool.
pub struct DryRun {
    pub seen: Arc<Mutex<Option<Value>>>,
}

/// The message of the failure a dry run ends with (not an error to report).
pub const DRY_RUN: &str = "dry run: nothing was sent";

impl Transport for DryRun {
    fn call(&mut self, body: &Value, _: &mut dyn FnMut(Delta<'_>)) -> Result<Completion, LlmError> {
        if let Ok(mut seen) = self.seen.lock()
            && seen.is_none()
        {
            *seen = Some(body.clone());
        }
        Err(LlmError::Replay(DRY_RUN.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::testing::{Scripted, answer};
    use serde_json::json;

    #[test]
    fn counting_adds_each_request_and_its_body_bytes_and_passes_the_call_on() {
        let scripted = Scripted::new(vec![answer("one"), answer("two")]);
        let bodies = scripted.bodies();
        let (mut counting, sent) = Counting::new(Box::new(scripted));
        let first = json!({"model": "m1"});
        let second = json!({"messages": ["hello"]});
        let got = counting.call(&first, &mut |_| {}).expect("answered");
        assert_eq!(got.content.as_deref(), Some("one"));
        assert_eq!(
            *sent.lock().expect("lock"),
            Sent {
                requests: 1,
                bytes: br#"{"model":"m1"}"#.len() as u64
            }
        );
        counting.call(&second, &mut |_| {}).expect("answered");
        assert_eq!(
            *sent.lock().expect("lock"),
            Sent {
                requests: 2,
                bytes: (br#"{"model":"m1"}"#.len() + br#"{"messages":["hello"]}"#.len()) as u64
            }
        );
        assert_eq!(*bodies.lock().expect("lock"), vec![first, second]);
    }

    #[test]
    fn counting_passes_placeholders_on() {
        let inner = Scripted::new(vec![]);
        let kept = inner.placeholders();
        let (mut counting, _) = Counting::new(Box::new(inner));
        counting.set_placeholder("API_KEY", "sk-1");
        assert_eq!(
            *kept.lock().expect("lock"),
            vec![("API_KEY".to_string(), "sk-1".to_string())]
        );
    }

    #[test]
    fn a_dry_run_keeps_the_first_body_only_and_fails_every_call() {
        let seen = Arc::new(Mutex::new(None));
        let mut dry = DryRun { seen: seen.clone() };
        for body in [json!({"n": 1}), json!({"n": 2})] {
            match dry.call(&body, &mut |_| {}) {
                Err(LlmError::Replay(message)) => assert_eq!(message, DRY_RUN),
                other => panic!("a dry run sends nothing: {other:?}"),
            }
        }
        assert_eq!(*seen.lock().expect("lock"), Some(json!({"n": 1})));
    }
}
