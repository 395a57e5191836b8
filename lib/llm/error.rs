//! Why a model call failed, classified as Hermes classifies it (reference `agent` §2.6):
//! whether another attempt can help, and the one line a person or the model is shown.

use std::time::Duration;

use super::completion::Completion;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The endpoint answered with an error status. `message` is `error.message` from a JSON
    /// body, the `<title>` of an HTML page, or the text itself (first 300 characters).
    #[error("HTTP {status}: {message}")]
    Http {
        status: u16,
        message: String,
        retry_after: Option<Duration>,
    },
    /// Nothing answered: refused, reset, DNS, or a timeout before the answer started.
    #[error("{}", connect_line(detail))]
    Connect { detail: String },
    #[error("TLS error talking to {host}: {detail}")]
    Tls { host: String, detail: String },
    #[error("timed out waiting for the model at {url} (no data for {seconds} s)")]
    Timeout { seconds: u64, url: String },
    /// The stream stopped before it said it was finished.
    #[error("the stream was cut off before the answer was complete")]
    Dropped { partial: Box<Completion> },
    #[error(
        "Provider returned an empty stream with no finish_reason (possible upstream error or malformed SSE response)."
    )]
    EmptyStream,
    #[error("the endpoint sent something that is not a chat completion: {0}")]
    BadResponse(String),
    #[error("interrupted")]
    Interrupted { partial: Option<String> },
    /// The replay provider's request differs from the cassette, or the cassette is used up.
    #[error("{0}")]
    Replay(String),
}

impl LlmError {
    /// Whether another attempt of the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Http {
                status, message, ..
            } => match status {
                408 | 429 | 503 | 529 => true,
                500 | 502 => !mentions_bad_parameter(message),
                404 => !mentions_missing_model(message),
                _ => false,
            },
            LlmError::Connect { .. }
            | LlmError::Timeout { .. }
            | LlmError::Dropped { .. }
            | LlmError::EmptyStream => true,
            LlmError::Tls { .. }
            | LlmError::BadResponse(_)
            | LlmError::Interrupted { .. }
            | LlmError::Replay(_) => false,
        }
    }

    /// What a person can do about it, for the errors a person can fix.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            LlmError::Http { status: 401, .. } | LlmError::Http { status: 403, .. } => Some(
                "check the API key: HERMES_API_KEY, model.api_key in config.yaml, or the provider's key variable",
            ),
            LlmError::Http {
                status: 404,
                message,
                ..
            } if mentions_missing_model(message) => {
                Some("check the model name: --model, or model.default in config.yaml")
            }
            LlmError::Http { status: 404, .. } => {
                Some("check the base URL: it should end in /v1 (HERMES_BASE_URL or model.base_url)")
            }
            LlmError::Connect { .. } => Some(
                "is the endpoint running? check HERMES_BASE_URL or model.base_url in config.yaml",
            ),
            LlmError::Tls { .. } => {
                Some("check the endpoint's certificate, or use http:// for a local server")
            }
            LlmError::Timeout { .. } => Some(
                "a model that needs longer before its first word: raise HERMES_STREAM_READ_TIMEOUT (seconds)",
            ),
            _ => None,
        }
    }
}

/// Hermes's words for a connection error, then what failed and where when we know it.
fn connect_line(detail: &str) -> String {
    const HERMES: &str = "Connection error.";
    if detail.is_empty() || detail == HERMES {
        HERMES.to_string()
    } else if detail.starts_with("Connection error") {
        // Replayed from a cassette, which keeps the whole line.
        detail.to_string()
    } else {
        format!("Connection error: {detail}")
    }
}

fn mentions_missing_model(message: &str) -> bool {
    let m = message.to_lowercase();
    [
        "does not exist",
        "model not found",
        "invalid model",
        "unknown model",
        "no such model",
    ]
    .iter()
    .any(|p| m.contains(p))
}

fn mentions_bad_parameter(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("invalid") && m.contains("parameter") || m.contains("unsupported parameter")
}

/// The one-line message of an error body: `error.message` of JSON, `<title>` of HTML, else
/// the text, at most 300 characters.
pub fn summarize_body(body: &str) -> String {
    let text = if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let message = v
            .get("error")
            .and_then(|e| e.get("message").or(Some(e)))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"));
        match message {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => body.to_string(),
        }
    } else if let Some(title) = html_title(body) {
        title
    } else {
        body.to_string()
    };
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line.chars().take(300).collect()
}

fn html_title(body: &str) -> Option<String> {
    let lower = body.to_ascii_lowercase();
    let start = lower.find("<title>")? + "<title>".len();
    let end = start + lower[start..].find("</title>")?;
    Some(body[start..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, message: &str) -> LlmError {
        LlmError::Http {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    #[test]
    fn classification_follows_hermes() {
        assert!(!http(401, "Invalid API key").is_retryable());
        assert!(!http(404, "The model fake-model does not exist").is_retryable());
        assert!(http(404, "Not Found").is_retryable());
        assert!(!http(400, "Bad request").is_retryable());
        assert!(http(500, "boom").is_retryable());
        assert!(!http(500, "invalid value for parameter foo").is_retryable());
        assert!(http(429, "slow down").is_retryable());
        assert!(http(529, "overloaded").is_retryable());
    }

    #[test]
    fn every_kind_is_retried_or_not_as_hermes_does() {
        for status in [408, 429, 503, 529, 502] {
            assert!(http(status, "x").is_retryable(), "{status}");
        }
        assert!(!http(502, "Unsupported parameter: top_k").is_retryable());
        // Both words make a bad parameter; either alone does not.
        assert!(!http(500, "Invalid value for parameter 'n'").is_retryable());
        assert!(http(500, "invalid response from upstream").is_retryable());
        assert!(http(500, "parameter store unavailable").is_retryable());
        for status in [400, 401, 403, 413, 501] {
            assert!(!http(status, "x").is_retryable(), "{status}");
        }
        for missing in [
            "model not found",
            "Invalid model m",
            "unknown model",
            "no such model",
        ] {
            assert!(!http(404, missing).is_retryable(), "{missing}");
        }
        let retried = [
            LlmError::Connect {
                detail: String::new(),
            },
            LlmError::Timeout {
                seconds: 120,
                url: "http://h/v1/chat/completions".into(),
            },
            LlmError::Dropped {
                partial: Box::default(),
            },
            LlmError::EmptyStream,
        ];
        assert!(retried.iter().all(LlmError::is_retryable));
        let final_ = [
            LlmError::Tls {
                host: "h".into(),
                detail: "d".into(),
            },
            LlmError::BadResponse("b".into()),
            LlmError::Interrupted { partial: None },
            LlmError::Replay("r".into()),
        ];
        assert!(!final_.iter().any(LlmError::is_retryable));
    }

    #[test]
    fn errors_a_person_can_fix_come_with_a_hint() {
        let key = Some(
            "check the API key: HERMES_API_KEY, model.api_key in config.yaml, or the provider's key variable",
        );
        assert_eq!(http(401, "x").hint(), key);
        assert_eq!(http(403, "x").hint(), key);
        assert_eq!(
            http(404, "The model m does not exist").hint(),
            Some("check the model name: --model, or model.default in config.yaml")
        );
        assert_eq!(
            http(404, "Not Found").hint(),
            Some("check the base URL: it should end in /v1 (HERMES_BASE_URL or model.base_url)")
        );
        assert_eq!(
            LlmError::Connect {
                detail: String::new()
            }
            .hint(),
            Some("is the endpoint running? check HERMES_BASE_URL or model.base_url in config.yaml")
        );
        assert_eq!(
            LlmError::Tls {
                host: "h".into(),
                detail: "d".into()
            }
            .hint(),
            Some("check the endpoint's certificate, or use http:// for a local server")
        );
        assert_eq!(http(500, "x").hint(), None);
        assert_eq!(LlmError::EmptyStream.hint(), None);
    }

    #[test]
    fn a_connection_error_says_where_and_what_when_it_knows() {
        let connect = |detail: &str| {
            LlmError::Connect {
                detail: detail.into(),
            }
            .to_string()
        };
        assert_eq!(connect(""), "Connection error.");
        assert_eq!(connect("Connection error."), "Connection error.");
        assert_eq!(
            connect("cannot reach http://h:1/v1/chat/completions: Connection refused"),
            "Connection error: cannot reach http://h:1/v1/chat/completions: Connection refused"
        );
        assert_eq!(
            connect("Connection error: cannot reach x: y"),
            "Connection error: cannot reach x: y"
        );
        let timeout = LlmError::Timeout {
            seconds: 300,
            url: "http://h:1/v1/chat/completions".into(),
        };
        assert_eq!(
            timeout.to_string(),
            "timed out waiting for the model at http://h:1/v1/chat/completions (no data for 300 s)"
        );
        assert_eq!(
            timeout.hint(),
            Some(
                "a model that needs longer before its first word: raise HERMES_STREAM_READ_TIMEOUT (seconds)"
            )
        );
    }

    #[test]
    fn bodies_are_reduced_to_one_line() {
        assert_eq!(
            summarize_body(r#"{"error":{"message":"Invalid API key"}}"#),
            "Invalid API key"
        );
        assert_eq!(
            summarize_body("<html><head><title>502 Bad Gateway</title></head></html>"),
            "502 Bad Gateway"
        );
        assert_eq!(summarize_body("plain\ntext"), "plain text");
        assert_eq!(summarize_body(r#"{"error": "quota"}"#), "quota");
        assert_eq!(summarize_body(r#"{"message": "gone"}"#), "gone");
        assert_eq!(
            summarize_body(r#"{"detail": {"code": 7}}"#),
            r#"{"code":7}"#
        );
        assert_eq!(summarize_body(r#"{"other": 1}"#), r#"{"other": 1}"#);
        assert_eq!(summarize_body("<TITLE> Oops </TITLE>"), "Oops");
        assert_eq!(summarize_body("<title>never closed"), "<title>never closed");
        assert_eq!(summarize_body(&"x".repeat(400)).len(), 300);
    }
}
