//! `hermes-review`: learn from one conversation (CLI.md § hermes-review, reference `loop` §1).
//! The conversation is read ([`input`]), the request is written ([`prompts`], [`digest`]),
//! the agent's tool loop runs it with the review's own tools ([`tools`]) and the outcome is
//! summarised as Hermes summarises it ([`summary`]); [`run`] puts one review together and
//! [`cli`] is the command. Proposals carry a [`diff`]; [`transport`] counts what is sent;
//! [`handoff`] passes the chat's model on and logs how each review ended.

pub mod approval;
pub mod batch;
pub mod cli;
pub mod diff;
pub mod digest;
pub mod eval;
pub mod handoff;
pub mod input;
pub mod prompts;
pub mod run;
pub mod summary;
pub mod tools;
pub mod transport;
