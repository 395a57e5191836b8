//! The agent loop of hermes-chat (reference `agent` §3-§7): a session with its stores
//! ([`session`]), one turn of model and tool calls ([`turn`]), the system prompt ([`prompt`]),
//! the tools and their whitelist ([`registry`]), approvals for terminal commands
//! ([`approval`]), compaction ([`compact`]), the review trigger ([`review`]), what a turn
//! reports while it runs ([`events`]) and the config keys it reads ([`settings`]).

pub mod approval;
pub mod cli;
pub mod compact;
pub mod events;
pub mod fence;
pub mod invoke;
pub mod learn;
pub mod prompt;
pub mod provider;
pub mod registry;
pub mod repl;
pub mod review;
pub mod sandboxing;
pub mod secrets;
pub mod session;
pub mod settings;
#[cfg(test)]
pub(crate) mod testing;
pub mod turn;

pub use events::{ApprovalRequest, Decision, Item, Observer};
pub use session::{Agent, AgentParts, ApprovalMode, Clock, SetupError, ToolHook};
pub use settings::AgentSettings;
pub use turn::TurnOutcome;
