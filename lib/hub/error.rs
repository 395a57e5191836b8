//! What can go wrong in the hub, split the way exit codes are: a refusal (policy, unsafe
//! content, not installed) is the command's negative answer; the rest are errors.

use crate::io::FileError;

#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// SSRF guard: the host is this machine or a private network.
    #[error(
        "refusing {url}: {host} is a loopback, private or link-local address ({ip}); set HERMES_HUB_ALLOW_PRIVATE=1 to allow it"
    )]
    Private {
        url: String,
        host: String,
        ip: String,
    },
    #[error("{url}: {detail}")]
    Network { url: String, detail: String },
    #[error("{url}: no answer within the timeout")]
    TimedOut { url: String },
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("GitHub API rate limit reached{reset}; set GITHUB_TOKEN for a higher limit")]
    RateLimited { reset: String },
    #[error("{what} is larger than the limit of {limit} bytes")]
    TooLarge { what: String, limit: u64 },
    /// Malformed input from a source (bad JSON, not a gzip archive, no SKILL.md).
    #[error("{0}")]
    Invalid(String),
    /// Content refused for safety (path escape, link, too many files) or by the install
    /// policy, or an action that does not apply (not hub-installed, already installed).
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    File(#[from] FileError),
}

impl HubError {
    /// Whether this is the command's negative answer (exit 1) rather than an error (exit 2).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            HubError::Refused(_)
                | HubError::Private { .. }
                | HubError::NotFound(_)
                | HubError::TooLarge { .. }
        )
    }

    pub fn invalid(message: impl Into<String>) -> HubError {
        HubError::Invalid(message.into())
    }

    pub fn refused(message: impl Into<String>) -> HubError {
        HubError::Refused(message.into())
    }
}
