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
