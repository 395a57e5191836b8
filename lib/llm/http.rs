//! The HTTP transport: one `POST <base>/chat/completions` per call over reqwest's blocking
//! client with rustls, reading SSE line by line as it arrives. One attempt per call; the
//! retry policy lives in [`super::client`].

use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::Transport;
use super::completion::{Completion, Delta, StreamAssembler};
use super::error::{LlmError, summarize_body};

/// Where calls go and how long they may take.
#[derive(Clone)]
pub struct HttpSettings {
    /// `…/v1`, without a trailing slash.
    pub base_url: String,
    pub api_key: String,
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes of an answer.
    pub read_timeout: Duration,
    pub extra_headers: Vec<(String, String)>,
}

/// The variable that sets the longest wait for the next bytes of an answer, in seconds.
pub const READ_TIMEOUT_VAR: &str = "HERMES_STREAM_READ_TIMEOUT";

/// Seconds without a byte from a remote endpoint before the attempt is given up.
pub const REMOTE_READ_TIMEOUT: f64 = 120.0;
/// The same for an endpoint on this machine or the local network: a local model may process
/// a long prompt for minutes before its first token, but not for Hermes's 30 minutes
/// (docs/decisions.md).
pub const LOCAL_READ_TIMEOUT: f64 = 300.0;
/// Silence after which the person is told what is being waited for (or half the read
/// timeout, when that is shorter).
pub const WAIT_NOTICE_AFTER: Duration = Duration::from_secs(15);

/// A setting from the environment that is not what it must be.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{name}={value:?} is not {wanted}")]
pub struct BadSetting {
    pub name: &'static str,
    pub value: String,
    pub wanted: &'static str,
}

/// `HERMES_STREAM_READ_TIMEOUT` from `env`: unset is `None`; anything but a positive number of
/// seconds is an error naming the variable, never silently ignored.
pub fn read_timeout_from(env: &super::endpoint::Env) -> Result<Option<f64>, BadSetting> {
    let Some(value) = env.get(READ_TIMEOUT_VAR) else {
        return Ok(None);
    };
    value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 86_400.0)
        .map(Some)
        .ok_or_else(|| BadSetting {
            name: READ_TIMEOUT_VAR,
            value: value.to_string(),
            wanted: "a number of seconds between 0 and 86400 (e.g. 300)",
        })
}

/// The first model `GET <base>/models` lists (the OpenAI list shape, `data[].id`): the default
/// of an endpoint named without a model. `None` when the list cannot be had or is empty.
pub fn first_model(base_url: &str, api_key: &str, timeout: Duration) -> Option<String> {
    let client = reqwest::blocking::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .user_agent(concat!("hermes-loop/", env!("CARGO_PKG_VERSION")))
        .build()
        .ok()?;
    let response = client
        .get(format!("{base_url}/models"))
        .bearer_auth(api_key)
        .send()
        .ok()
        .filter(|r| r.status().is_success())?;
    let listed: Value = serde_json::from_str(&response.text().ok()?).ok()?;
    listed
        .get("data")?
        .as_array()?
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::trim))
        .find(|id| !id.is_empty())
        .map(str::to_string)
}

impl HttpSettings {
    /// The settings for `endpoint`: 30 s to connect; `read_timeout` seconds between bytes when
    /// given (`HERMES_STREAM_READ_TIMEOUT`), else [`REMOTE_READ_TIMEOUT`], or
    /// [`LOCAL_READ_TIMEOUT`] for an endpoint on this machine or the local network.
    pub fn for_endpoint(endpoint: &super::Endpoint, read_timeout: Option<f64>) -> HttpSettings {
        let default = if super::endpoint::is_local(&endpoint.base_url) {
            LOCAL_READ_TIMEOUT
        } else {
            REMOTE_READ_TIMEOUT
        };
        let read = read_timeout
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(default);
        HttpSettings {
            base_url: endpoint.base_url.clone(),
            api_key: endpoint.api_key.clone(),
            connect_timeout: Duration::from_secs(30),
            read_timeout: Duration::from_secs_f64(read),
            extra_headers: Vec::new(),
        }
    }
}

impl std::fmt::Debug for HttpSettings {
    // The key never reaches a log, an error or a panic message.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .finish_non_exhaustive()
    }
}

pub struct HttpTransport {
    attempt: Attempt,
}

/// What one attempt needs; cloned into the thread that makes it.
#[derive(Clone)]
struct Attempt {
    client: reqwest::blocking::Client,
    settings: HttpSettings,
    interrupt: Arc<AtomicBool>,
}

/// What the attempt's thread sends back.
enum Piece {
    /// Bytes arrived (of any kind: headers, keep-alives, tool-call fragments).
    Alive,
    Text(String),
    Reasoning(String),
    Done(Result<Completion, LlmError>),
}

/// A reader that says each time bytes arrive.
struct Watched<R, F: FnMut()> {
    inner: R,
    alive: F,
}

impl<R: std::io::Read, F: FnMut()> std::io::Read for Watched<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            (self.alive)();
        }
        Ok(n)
    }
}

impl HttpTransport {
    pub fn new(
        settings: HttpSettings,
        interrupt: Arc<AtomicBool>,
    ) -> Result<HttpTransport, LlmError> {
        let client = reqwest::blocking::Client::builder()
            .connect_timeout(settings.connect_timeout)
            // In the blocking client this bounds each read, so a stalled stream ends.
            .timeout(settings.read_timeout)
            .user_agent(concat!("hermes-loop/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Connect {
                detail: e.to_string(),
            })?;
        Ok(HttpTransport {
            attempt: Attempt {
                client,
                settings,
                interrupt,
            },
        })
    }
}

impl Attempt {
    fn url(&self) -> String {
        format!("{}/chat/completions", self.settings.base_url)
    }

    fn classify(&self, e: reqwest::Error) -> LlmError {
        let detail = self.redact(&error_chain(&e));
        if e.is_timeout() {
            return self.timeout();
        }
        if is_tls_trouble(&detail) {
            let host = reqwest::Url::parse(&self.settings.base_url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default();
            return LlmError::Tls { host, detail };
        }
        LlmError::Connect {
            detail: format!("cannot reach {}: {}", self.url(), innermost(&e)),
        }
    }

    fn timeout(&self) -> LlmError {
        LlmError::Timeout {
            seconds: self.settings.read_timeout.as_secs(),
            url: self.url(),
        }
    }

    /// Error text never carries the key, whatever the server echoed.
    fn redact(&self, text: &str) -> String {
        let key = &self.settings.api_key;
        if key.len() >= 8 && text.contains(key.as_str()) {
            text.replace(key.as_str(), "<redacted>")
        } else {
            text.to_string()
        }
    }
}

/// Whether a connection error's text is about TLS (a certificate, the handshake).
fn is_tls_trouble(detail: &str) -> bool {
    let lower = detail.to_lowercase();
    lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake")
}

/// Whether a read of the answer failed because no bytes came in time.
fn is_timeout(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::TimedOut || e.to_string().to_lowercase().contains("timed out")
}

/// The deepest cause of an error: what actually went wrong ("Connection refused").
fn innermost(e: &dyn std::error::Error) -> String {
    let mut last = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        last = s.to_string();
        source = s.source();
    }
    last
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    parts.join(": ")
}

impl Transport for HttpTransport {
    /// The request runs on a thread of its own so an interrupt is answered at once, even
    /// while the endpoint has not sent a byte; deltas come back to this thread in order.
    fn call(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError> {
        let (tx, rx) = std::sync::mpsc::channel::<Piece>();
        let attempt = self.attempt.clone();
        let body = body.to_string();
        std::thread::spawn(move || {
            let pieces = tx.clone();
            let mut forward = |d: Delta<'_>| {
                let piece = match d {
                    Delta::Text(t) => Piece::Text(t.to_string()),
                    Delta::Reasoning(r) => Piece::Reasoning(r.to_string()),
                    Delta::Waiting { .. } => Piece::Alive,
                };
                let _ = pieces.send(piece);
            };
            let beats = tx.clone();
            let alive = move || {
                let _ = beats.send(Piece::Alive);
            };
            let result = attempt.run(body, &mut forward, alive);
            let _ = tx.send(Piece::Done(result));
        });
        let mut partial = String::new();
        let url = self.attempt.url();
        let notice_after = WAIT_NOTICE_AFTER.min(self.attempt.settings.read_timeout / 2);
        let mut last_heard = std::time::Instant::now();
        let mut told = false;
        loop {
            let piece = rx.recv_timeout(Duration::from_millis(50));
            if piece.is_ok() {
                last_heard = std::time::Instant::now();
            } else if !told && last_heard.elapsed() >= notice_after {
                told = true;
                on_delta(Delta::Waiting {
                    url: &url,
                    seconds: notice_after.as_secs().max(1),
                });
            }
            match piece {
                Ok(Piece::Alive) => {}
                Ok(Piece::Text(t)) => {
                    partial.push_str(&t);
                    on_delta(Delta::Text(&t));
                }
                Ok(Piece::Reasoning(r)) => on_delta(Delta::Reasoning(&r)),
                Ok(Piece::Done(result)) => return result,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if self.attempt.interrupt.load(Ordering::Relaxed) {
                        return Err(LlmError::Interrupted {
                            partial: Some(partial).filter(|p| !p.is_empty()),
                        });
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(LlmError::Connect {
                        detail: "the request thread ended without an answer".into(),
                    });
                }
            }
        }
    }
}

impl Attempt {
    fn run(
        &self,
        body: String,
        on_delta: &mut dyn FnMut(Delta<'_>),
        alive: impl FnMut(),
    ) -> Result<Completion, LlmError> {
        let mut request = self
            .client
            .post(self.url())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .bearer_auth(&self.settings.api_key)
            .body(body);
        for (name, value) in &self.settings.extra_headers {
            request = request.header(name, value);
        }
        let response = request.send().map_err(|e| self.classify(e))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| Duration::from_secs_f64(s.min(600.0)));
            let text = response.text().unwrap_or_default();
            return Err(LlmError::Http {
                status,
                message: self.redact(&summarize_body(&text)),
                retry_after,
            });
        }
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            // Also the answer of a server that ignores `stream: true`.
            let text = response.text().map_err(|e| self.classify(e))?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| LlmError::BadResponse(format!("{e}: {}", summarize_body(&text))))?;
            let done = Completion::from_json(&value);
            if let Some(text) = done.content.as_deref().filter(|t| !t.is_empty()) {
                on_delta(Delta::Text(text));
            }
            return Ok(done);
        }
        let watched = Watched {
            inner: response,
            alive,
        };
        read_sse(BufReader::new(watched), &self.interrupt, on_delta).map_err(|e| match e {
            SseError::Io(e) => {
                if is_timeout(&e) {
                    self.timeout()
                } else {
                    LlmError::Connect {
                        detail: self.redact(&e.to_string()),
                    }
                }
            }
            SseError::Llm(e) => e,
        })
    }
}

enum SseError {
    Io(std::io::Error),
    Llm(LlmError),
}

/// Reads `data:` events until `[DONE]` or the end of the body. An answer that ends without a
/// finish reason was cut off ([`LlmError::Dropped`]); one that carried nothing at all is
/// [`LlmError::EmptyStream`].
fn read_sse(
    mut reader: impl BufRead,
    interrupt: &AtomicBool,
    on_delta: &mut dyn FnMut(Delta<'_>),
) -> Result<Completion, SseError> {
    let mut assembler = StreamAssembler::default();
    let mut line = String::new();
    let mut saw_done = false;
    loop {
        if interrupt.load(Ordering::Relaxed) {
            return Err(SseError::Llm(LlmError::Interrupted {
                partial: assembler.partial_text().map(str::to_string),
            }));
        }
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                let partial = assembler.finish();
                return Err(if partial.is_empty_stream() {
                    SseError::Io(e)
                } else {
                    SseError::Llm(LlmError::Dropped {
                        partial: Box::new(partial),
                    })
                });
            }
        }
        let Some(data) = line.trim_end().strip_prefix("data:") else {
            continue;
        };
        let data = data.trim_start();
        if data == "[DONE]" {
            saw_done = true;
            break;
        }
        match serde_json::from_str::<Value>(data) {
            Ok(chunk) => {
                if let Some(err) = chunk.get("error") {
                    return Err(SseError::Llm(LlmError::Http {
                        status: 500,
                        message: summarize_body(&serde_json::json!({"error": err}).to_string()),
                        retry_after: None,
                    }));
                }
                assembler.push(&chunk, on_delta);
            }
            Err(_) => continue,
        }
    }
    let done = assembler.finish();
    if done.is_empty_stream() {
        return Err(SseError::Llm(LlmError::EmptyStream));
    }
    if done.finish_reason.is_none() && !saw_done {
        return Err(SseError::Llm(LlmError::Dropped {
            partial: Box::new(done),
        }));
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Completion, SseError> {
        read_sse(text.as_bytes(), &AtomicBool::new(false), &mut |_| {})
    }

    #[test]
    fn reads_events_until_done() {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n\
                    data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
                    data: [DONE]\n\n";
        let Ok(done) = read(body) else {
            panic!("stream failed")
        };
        assert_eq!(done.content.as_deref(), Some("Hello"));
    }

    use std::io::{Read, Write};

    /// Answers one request on a loopback port with `response` (raw HTTP); the handle gives
    /// back the request as received.
    fn serve_once(response: String) -> (String, std::thread::JoinHandle<String>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let handle = std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return String::new();
            };
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                let n = stream.read(&mut buf).unwrap_or(0);
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|l| {
                            l.to_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if got.len() >= end + 4 + length || n == 0 {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            let _ = stream.write_all(response.as_bytes());
            String::from_utf8_lossy(&got).to_string()
        });
        (base, handle)
    }

    fn transport(base: &str, key: &str) -> HttpTransport {
        transport_with(base, key, Arc::default())
    }

    /// A transport to `base` with `key`, stopped by `interrupt`.
    fn transport_with(base: &str, key: &str, interrupt: Arc<AtomicBool>) -> HttpTransport {
        let settings = HttpSettings {
            base_url: base.to_string(),
            api_key: key.to_string(),
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(5),
            extra_headers: vec![("X-Title".into(), "hermes-loop".into())],
        };
        let Ok(t) = HttpTransport::new(settings, interrupt) else {
            panic!("client")
        };
        t
    }

    fn answer(status: &str, headers: &str, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    /// The status, message and wait of what must be an HTTP error.
    fn http_error(result: Result<Completion, LlmError>) -> (u16, String, Option<Duration>) {
        match result {
            Err(LlmError::Http {
                status,
                message,
                retry_after,
            }) => (status, message, retry_after),
            other => panic!("an HTTP error, not {other:?}"),
        }
    }

    #[test]
    fn an_error_status_keeps_its_retry_after_and_never_the_key() {
        let key = "sk-secret-key-123";
        let (base, server) = serve_once(answer(
            "429 Too Many Requests",
            "Retry-After: 2.5\r\nContent-Type: application/json\r\n",
            r#"{"error": {"message": "key sk-secret-key-123 is over its quota"}}"#,
        ));
        let mut t = transport(&base, key);
        let (status, message, retry_after) =
            http_error(t.call(&serde_json::json!({"model": "m"}), &mut |_| {}));
        assert_eq!(status, 429);
        assert_eq!(message, "key <redacted> is over its quota");
        assert_eq!(retry_after, Some(Duration::from_millis(2500)));
        let request = server.join().unwrap_or_default();
        assert!(
            request.starts_with("POST /v1/chat/completions HTTP/1.1\r\n"),
            "{request}"
        );
        let lower = request.to_lowercase();
        assert!(
            lower.contains("authorization: bearer sk-secret-key-123\r\n"),
            "{request}"
        );
        assert!(lower.contains("x-title: hermes-loop\r\n"), "{request}");
        assert!(
            lower.contains("content-type: application/json\r\n"),
            "{request}"
        );
        assert!(request.ends_with("\r\n\r\n{\"model\":\"m\"}"), "{request}");
    }

    #[test]
    fn a_whole_json_answer_and_a_stream_read_alike() {
        let (base, server) = serve_once(answer(
            "200 OK",
            "Content-Type: application/json\r\n",
            r#"{"choices": [{"message": {"content": "Hi."}, "finish_reason": "stop"}]}"#,
        ));
        let mut shown = Vec::new();
        let done = transport(&base, "k").call(&serde_json::json!({}), &mut |d| {
            shown.push(format!("{d:?}"))
        });
        assert_eq!(done.ok().and_then(|c| c.content), Some("Hi.".to_string()));
        assert_eq!(shown, ["Text(\"Hi.\")"]);
        let _ = server.join();

        let sse = "data: {\"choices\":[{\"delta\":{\"reasoning\":\"r\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hi.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        let (base, server) = serve_once(answer(
            "200 OK",
            "Content-Type: text/event-stream; charset=utf-8\r\n",
            sse,
        ));
        let mut shown = Vec::new();
        let done = transport(&base, "k").call(&serde_json::json!({}), &mut |d| {
            shown.push(format!("{d:?}"))
        });
        assert_eq!(done.ok().and_then(|c| c.content), Some("Hi.".to_string()));
        assert_eq!(shown, ["Reasoning(\"r\")", "Text(\"Hi.\")"]);
        let _ = server.join();
    }

    #[test]
    fn what_is_not_a_completion_is_said_so() {
        let (base, server) = serve_once(answer("200 OK", "", "<html>hello</html>"));
        let result = transport(&base, "k").call(&serde_json::json!({}), &mut |_| {});
        let Err(LlmError::BadResponse(why)) = result else {
            panic!("not a completion")
        };
        assert!(why.ends_with(": <html>hello</html>"), "{why}");
        let _ = server.join();
        let sse = "data: {\"error\": {\"message\": \"upstream overloaded\"}}\n\n";
        let (base, server) =
            serve_once(answer("200 OK", "Content-Type: text/event-stream\r\n", sse));
        let result = transport(&base, "k").call(&serde_json::json!({}), &mut |_| {});
        let Err(LlmError::Http {
            status, message, ..
        }) = result
        else {
            panic!("an error event")
        };
        assert_eq!((status, message.as_str()), (500, "upstream overloaded"));
        let _ = server.join();
    }

    #[test]
    fn tls_trouble_timeouts_and_error_chains_are_read_from_their_text() {
        assert!(is_tls_trouble("invalid peer certificate: UnknownIssuer"));
        assert!(is_tls_trouble("received fatal alert: HandshakeFailure"));
        assert!(is_tls_trouble("TLS close_notify"));
        assert!(!is_tls_trouble("connection refused"));
        assert!(is_timeout(&std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "slow"
        )));
        assert!(is_timeout(&std::io::Error::other("operation Timed Out")));
        assert!(!is_timeout(&std::io::Error::other("reset by peer")));

        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "error sending request")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let outer = Outer(std::io::Error::other("connection refused"));
        assert_eq!(
            error_chain(&outer),
            "error sending request: connection refused"
        );
    }

    #[test]
    fn only_a_key_long_enough_to_be_one_is_redacted() {
        let long = transport("http://127.0.0.1:9/v1", "sk-12345678");
        assert_eq!(
            long.attempt.redact("bad key sk-12345678 given"),
            "bad key <redacted> given"
        );
        assert_eq!(long.attempt.redact("nothing here"), "nothing here");
        // A short "key" (a placeholder such as `none`) is common text: left alone.
        let short = transport("http://127.0.0.1:9/v1", "none");
        assert_eq!(short.attempt.redact("none of that"), "none of that");
    }

    #[test]
    fn a_bad_retry_after_is_no_retry_after() {
        for header in ["-1", "inf", "soon"] {
            let (base, server) = serve_once(answer(
                "503 Service Unavailable",
                &format!("Retry-After: {header}\r\n"),
                "busy",
            ));
            let answer = transport(&base, "k").call(&serde_json::json!({}), &mut |_| {});
            let (status, message, retry_after) = http_error(answer);
            assert_eq!((status, message.as_str(), retry_after), (503, "busy", None));
            let _ = server.join();
        }
    }

    /// An interrupt ends a call whose endpoint has not sent a byte.
    #[test]
    fn an_interrupt_ends_a_call_that_is_still_waiting() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let held = std::thread::spawn(move || {
            let accepted = listener.accept();
            std::thread::sleep(Duration::from_secs(3));
            drop(accepted);
        });
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut t = transport_with(&base, "k", interrupt.clone());
        let flag = interrupt.clone();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::SeqCst);
        });
        let result = t.call(&serde_json::json!({}), &mut |_| {});
        assert!(
            matches!(result, Err(LlmError::Interrupted { partial: None })),
            "{result:?}"
        );
        let _ = setter.join();
        // The server thread lets go of the connection on its own, later.
        drop(held);
    }

    #[test]
    fn nobody_listening_is_a_connection_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(9);
        let result = transport(&format!("http://127.0.0.1:{port}/v1"), "k")
            .call(&serde_json::json!({}), &mut |_| {});
        let Err(e @ LlmError::Connect { .. }) = result else {
            panic!("a connection error, not {result:?}")
        };
        assert!(
            e.to_string().starts_with(&format!(
                "Connection error: cannot reach http://127.0.0.1:{port}/v1/chat/completions: "
            )),
            "{e}"
        );
    }

    #[test]
    fn the_read_timeout_is_longer_for_a_model_on_this_machine() {
        let endpoint = |url: &str| crate::llm::Endpoint {
            base_url: url.into(),
            api_key: "sk-very-secret".into(),
            ..crate::llm::testing::endpoint()
        };
        let local = HttpSettings::for_endpoint(&endpoint("http://127.0.0.1:8080/v1"), None);
        assert_eq!(local.read_timeout, Duration::from_secs(300));
        assert_eq!(local.connect_timeout, Duration::from_secs(30));
        let remote = HttpSettings::for_endpoint(&endpoint("https://api.example.com/v1"), None);
        assert_eq!(remote.read_timeout, Duration::from_secs(120));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let s = HttpSettings::for_endpoint(&endpoint("https://api.example.com/v1"), Some(bad));
            assert_eq!(s.read_timeout, Duration::from_secs(120), "{bad}");
        }
        let set = HttpSettings::for_endpoint(&endpoint("https://api.example.com/v1"), Some(2.5));
        assert_eq!(set.read_timeout, Duration::from_millis(2500));
        assert_eq!(
            (set.base_url.as_str(), set.api_key.as_str()),
            ("https://api.example.com/v1", "sk-very-secret")
        );
        let shown = format!("{set:?}");
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }

    #[test]
    fn the_first_listed_model_is_the_endpoints_default() {
        let list =
            r#"{"object": "list", "data": [{"id": " "}, {"id": "qwen-7b"}, {"id": "other"}]}"#;
        let (base, server) =
            serve_once(answer("200 OK", "Content-Type: application/json\r\n", list));
        assert_eq!(
            first_model(&base, "sk-k", Duration::from_secs(5)).as_deref(),
            Some("qwen-7b")
        );
        let request = server.join().unwrap_or_default();
        assert!(
            request.starts_with("GET /v1/models HTTP/1.1\r\n"),
            "{request}"
        );
        assert!(
            request
                .to_lowercase()
                .contains("authorization: bearer sk-k\r\n"),
            "{request}"
        );
        for (status, body) in [("200 OK", r#"{"data": []}"#), ("404 Not Found", "{}")] {
            let (base, server) = serve_once(answer(status, "", body));
            assert_eq!(first_model(&base, "k", Duration::from_secs(5)), None);
            let _ = server.join();
        }
    }

    #[test]
    fn the_read_timeout_variable_is_a_positive_number_of_seconds_or_an_error() {
        use crate::llm::endpoint::Env;
        let read = |v: &str| read_timeout_from(&Env::from_pairs(&[(READ_TIMEOUT_VAR, v)]));
        assert_eq!(read_timeout_from(&Env::from_pairs(&[])), Ok(None));
        assert_eq!(read(" "), Ok(None));
        assert_eq!(read("2.5"), Ok(Some(2.5)));
        assert_eq!(read(" 600 "), Ok(Some(600.0)));
        for bad in ["abc", "0", "-1", "nan", "inf", "90000", "5s"] {
            assert_eq!(
                read(bad).map_err(|e| e.to_string()),
                Err(format!(
                    "HERMES_STREAM_READ_TIMEOUT={bad:?} is not a number of seconds between 0 and 86400 (e.g. 300)"
                )),
            );
        }
    }

    /// A server that accepts and never answers: the attempt says once what it waits for,
    /// then gives up at the read timeout, naming the URL.
    #[test]
    fn a_silent_endpoint_is_announced_then_timed_out() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let held = std::thread::spawn(move || {
            let kept = listener.accept();
            std::thread::sleep(Duration::from_secs(3));
            drop(kept);
        });
        let settings = HttpSettings {
            base_url: base.clone(),
            api_key: "k".into(),
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_millis(1200),
            extra_headers: Vec::new(),
        };
        let Ok(mut t) = HttpTransport::new(settings, Arc::default()) else {
            panic!("client")
        };
        let mut waited = Vec::new();
        let started = std::time::Instant::now();
        let result = t.call(&serde_json::json!({}), &mut |d| {
            if let Delta::Waiting { url, seconds } = d {
                waited.push((url.to_string(), seconds, started.elapsed()));
            }
        });
        let url = format!("{base}/chat/completions");
        match result {
            Err(LlmError::Timeout { seconds, url: u }) => {
                assert_eq!((seconds, u), (1, url.clone()))
            }
            other => panic!("a timeout, not {other:?}"),
        }
        assert_eq!(waited.len(), 1, "{waited:?}");
        assert_eq!((waited[0].0.as_str(), waited[0].1), (url.as_str(), 1));
        assert!(waited[0].2 >= Duration::from_millis(600), "{waited:?}");
        assert!(started.elapsed() < Duration::from_secs(3));
        let _ = held.join();
    }

    #[test]
    fn a_stream_reads_data_lines_only_and_stops_on_an_interrupt() {
        let body = ": keep-alive\nevent: x\ndata:{\"choices\":[{\"delta\":{\"content\":\"A\"}}]}\ndata: not json\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n";
        let Ok(done) = read(body) else { panic!("read") };
        assert_eq!(
            (done.content.as_deref(), done.finish_reason.as_deref()),
            (Some("A"), Some("stop"))
        );
        let stopped = read_sse(body.as_bytes(), &AtomicBool::new(true), &mut |_| {});
        assert!(matches!(
            stopped,
            Err(SseError::Llm(LlmError::Interrupted { partial: None }))
        ));
        // Ended by [DONE] without a finish reason: complete.
        let Ok(done) =
            read("data: {\"choices\":[{\"delta\":{\"content\":\"B\"}}]}\ndata: [DONE]\n")
        else {
            panic!("read")
        };
        assert_eq!(done.content.as_deref(), Some("B"));
    }

    /// A reader that fails after `good` bytes.
    struct Breaks {
        good: &'static [u8],
    }

    impl Read for Breaks {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.good.is_empty() {
                return Err(std::io::Error::other("reset by peer"));
            }
            let n = self.good.len().min(buf.len());
            buf[..n].copy_from_slice(&self.good[..n]);
            self.good = &self.good[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_after_some_text_is_a_dropped_answer() {
        let some = Breaks {
            good: b"data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n",
        };
        let result = read_sse(BufReader::new(some), &AtomicBool::new(false), &mut |_| {});
        let Err(SseError::Llm(LlmError::Dropped { partial })) = result else {
            panic!("dropped")
        };
        assert_eq!(partial.content.as_deref(), Some("par"));
        let none = Breaks { good: b"" };
        let result = read_sse(BufReader::new(none), &AtomicBool::new(false), &mut |_| {});
        assert!(matches!(result, Err(SseError::Io(_))));
    }

    #[test]
    fn a_stream_without_its_end_is_dropped() {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n";
        assert!(matches!(
            read(body),
            Err(SseError::Llm(LlmError::Dropped { .. }))
        ));
        assert!(matches!(
            read(""),
            Err(SseError::Llm(LlmError::EmptyStream))
        ));
    }
}
