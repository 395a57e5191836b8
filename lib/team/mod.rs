//! The team store: every agent's sessions in one PostgreSQL database, searched with the
//! session_search tool's answers (`hermes-index push --store URL`, `hermes-recall --store
//! URL`). `state.db` stays each home's own store; the team store is a copy that `push`
//! keeps current.
//!
//! Layout: [`connect`] (address, TLS, session settings), [`schema`] (DDL, migrations, the
//! access rules), [`identity`] (a home's UUID), [`changes`] (the change log in state.db),
//! [`push`] and [`rows`], [`words`] (unicode61 words and FTS5 queries for PostgreSQL), [`plan`] (which
//! index answers a query), [`view`] and
//! [`snippet`] (what answers show), [`recall`] (the modes).

pub mod changes;
pub mod connect;
pub mod error;
pub mod export;
pub mod identity;
pub mod plan;
pub mod push;
pub mod recall;
pub mod rows;
pub mod schema;
pub mod snippet;
pub mod view;
pub mod words;

pub use error::{Error, Result};
