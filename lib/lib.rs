//! hermes-loop: the self-improvement loop of an AI agent (memory, skills, curation, recall)
//! as a library behind small Unix binaries, on the on-disk formats of Hermes Agent 0.19.0.
//!
//! Lower modules never import higher ones:
//! `io, home, yaml, clock` ← `skills, memory, sessions, guard` ← `recall, hub, llm` ← `team`, `agent`
//! ← `review, curator`.

pub mod agent;
pub mod alloc;
pub mod cli;
pub mod clock;
pub mod curator;
pub mod guard;
pub mod home;
pub mod hub;
pub mod io;
pub mod judge;
pub mod llm;
pub mod memory;
pub mod pytext;
pub mod recall;
pub mod review;
pub mod sandbox;
pub mod sessions;
pub mod skills;
pub mod team;
#[cfg(test)]
mod testing;
pub mod tools;
pub mod yaml;
