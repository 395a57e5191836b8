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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant, with its message and whether it is a refusal (exit 1) or an error.
    fn every_variant() -> Vec<(HubError, &'static str, bool)> {
        vec![
            (
                HubError::Private {
                    url: "http://127.0.0.1/x".into(),
                    host: "127.0.0.1".into(),
                    ip: "127.0.0.1".into(),
                },
                "refusing http://127.0.0.1/x: 127.0.0.1 is a loopback, private or link-local address (127.0.0.1); set HERMES_HUB_ALLOW_PRIVATE=1 to allow it",
                true,
            ),
            (
                HubError::Network {
                    url: "https://x.dev/a".into(),
                    detail: "connection reset".into(),
                },
                "https://x.dev/a: connection reset",
                false,
            ),
            (
                HubError::TimedOut {
                    url: "https://x.dev/a".into(),
                },
                "https://x.dev/a: no answer within the timeout",
                false,
            ),
            (
                HubError::Status {
                    url: "https://x.dev/a".into(),
                    status: 503,
                },
                "https://x.dev/a: HTTP 503",
                false,
            ),
            (
                HubError::RateLimited {
                    reset: " (resets at 10:00 UTC)".into(),
                },
                "GitHub API rate limit reached (resets at 10:00 UTC); set GITHUB_TOKEN for a higher limit",
                false,
            ),
            (
                HubError::TooLarge {
                    what: "a/b/c".into(),
                    limit: 1024,
                },
                "a/b/c is larger than the limit of 1024 bytes",
                true,
            ),
            (HubError::invalid("not JSON"), "not JSON", false),
            (HubError::refused("a symlink"), "a symlink", true),
            (HubError::NotFound("pdf".into()), "pdf", true),
            (
                HubError::File(FileError::new(
                    "open",
                    std::path::Path::new("/x/lock.json"),
                    std::io::Error::other("disk on fire"),
                )),
                "cannot open /x/lock.json: disk on fire",
                false,
            ),
        ]
    }

    #[test]
    fn messages() {
        for (error, message, _) in every_variant() {
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn refusals_are_policy_unsafe_content_and_not_found_the_rest_are_errors() {
        for (error, message, refusal) in every_variant() {
            assert_eq!(error.is_refusal(), refusal, "{message}");
        }
    }

    #[test]
    fn the_constructors_pick_their_variant() {
        assert!(matches!(HubError::invalid("x"), HubError::Invalid(m) if m == "x"));
        assert!(matches!(HubError::refused(String::from("y")), HubError::Refused(m) if m == "y"));
    }
}
