//! The model client: chat completions on any OpenAI-compatible endpoint (reference `agent`
//! §2), and the `replay` provider that answers from a recorded cassette.
//!
//! Layout: [`endpoint`] (which URL, model and key), [`message`] (the conversation),
//! [`wire`] (the request body), [`completion`] (assembling an answer and its usage),
//! [`http`] (one attempt over HTTP), [`client`] (retries), [`cassette`] (record and replay),
//! [`repair`] (almost-JSON tool arguments), [`error`].

pub mod cassette;
pub mod client;
pub mod completion;
pub mod connect;
pub mod endpoint;
pub mod error;
pub mod http;
pub mod message;
pub mod repair;
#[cfg(test)]
pub mod testing;
pub mod wire;

pub use client::{Client, Failure, RetryPolicy};
pub use completion::{Completion, Delta, Usage};
pub use endpoint::{Endpoint, Env, Overrides};
pub use error::LlmError;
pub use message::{Message, Role, ToolCall};

/// One attempt at a model call: a body in, an answer or an error out. Text and reasoning are
/// passed to `on_delta` as they arrive.
pub trait Transport: Send {
    fn call(
        &mut self,
        body: &serde_json::Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError>;

    /// A machine-specific value learnt after the transport was made (the session id), for
    /// the cassette transports; others ignore it.
    fn set_placeholder(&mut self, _name: &str, _value: &str) {}
}
