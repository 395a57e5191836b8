//! What can go wrong talking to the team store, typed so the binaries can tell "the store is
//! down" (one clear line, exit 2) from a refused query or a local state.db problem.

use crate::sessions;

/// A team-store error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server could not be reached or refused the login. `target` never holds the
    /// password.
    #[error("team store {target} unreachable: {reason}")]
    Unreachable { target: String, reason: String },
    /// The TLS setup failed before any connection was tried.
    #[error("team store TLS setup: {0}")]
    Tls(String),
    /// A store URL or a PG* variable that cannot be used.
    #[error("team store address: {0}")]
    Address(String),
    /// A statement failed.
    #[error("team store: {context}")]
    Query {
        context: String,
        #[source]
        source: postgres::Error,
    },
    /// The store's schema is newer than this build knows, or was never created.
    #[error("team store schema: {0}")]
    Schema(String),
    /// The caller may not do this (a home pushed by another role, an owner name not granted).
    #[error("team store: {0}")]
    Refused(String),
    /// The home's identity file could not be read or written.
    #[error("home identity {path}: {reason}")]
    Identity { path: String, reason: String },
    /// The local session store.
    #[error(transparent)]
    Sessions(#[from] sessions::Error),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Wraps a failed statement with what it was doing; a dropped connection reads as the
/// store going away, not as a bad query.
pub fn query(context: impl Into<String>) -> impl FnOnce(postgres::Error) -> Error {
    let context = context.into();
    move |source| Error::Query { context, source }
}

impl Error {
    /// A hint line for the errors a person can fix.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Schema(_) => {
                Some("run `hermes-index --store URL init` as the store's owner".into())
            }
            _ => None,
        }
    }
}
