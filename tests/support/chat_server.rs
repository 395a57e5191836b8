//! A scripted loopback OpenAI-compatible `/v1/chat/completions` server for tests.
//!
//! No real model is reachable in tests, so every model-driven path runs against this server:
//! each `POST …/chat/completions` takes the next [`Reply`] of a script and answers it as one
//! `chat.completion` object, or as SSE chunks when the request has `"stream": true`, shaped the
//! way OpenAI sends them (role chunk, deltas, a `{"delta":{},"finish_reason":…}` chunk, a
//! usage-only chunk with `choices: []` when `stream_options.include_usage` is set, then
//! `data: [DONE]`). `GET …/models` lists `fake-model`; other paths get 404. Every chat request
//! is recorded for exact assertions, and its `messages` are checked like a strict provider
//! would: a tool-call/tool-result pairing violation is answered with HTTP 400 (without using up
//! a script entry), so a client that breaks the protocol cannot pass by accident.
//!
//! std only (plus serde_json): one thread per connection, HTTP/1.1 keep-alive, request bodies
//! with Content-Length. SSE answers use chunked transfer encoding, so a keep-alive client knows
//! where a stream ends and a dropped stream ([`Reply::DropAfter`]) is a transport error, as with
//! a real provider.
//!
//! Script-file format ([`parse_script`]): a JSON array (or `{"script": [...]}`) of replies:
//! * `"Hello"` or `{"text": "Hello", "reasoning": "…", "tool_calls": [{"id": "call_1",
//!   "name": "terminal", "arguments": "{\"command\": \"ls\"}"}], "finish_reason": "stop",
//!   "usage": {…}}` — every key optional (`content` = `text`; `id` defaults to `call_N`;
//!   `arguments` that are not a string are sent as compact JSON);
//! * `{"http": 429, "body": "slow down", "headers": {"Retry-After": "1"}}` (`body` may be JSON);
//! * `{"delay_ms": 1500, "reply": R}`, `{"drop_after": 2, "reply": R}`,
//!   `{"pace_ms": 500, "reply": R}`;
//! * `{"raw_sse": ["{…}", {…}], "done": false}` (`done` defaults to true), `{"hang": true}`;
//! * `{"repeat": 3, "reply": R}` for three copies of R.

use serde_json::{Map, Value, json};
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What the server answers to one chat-completions call.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// An assistant message: SSE deltas when the request streams (content and reasoning in a few
    /// deltas, each call's arguments in 2+ fragments on its `index`), else one completion
    /// object. `finish_reason` defaults to `tool_calls`/`stop`, `usage` to 10/5/15 tokens.
    Message {
        content: Option<String>,
        reasoning: Option<String>,
        tool_calls: Vec<ToolCall>,
        finish_reason: Option<String>,
        usage: Option<Value>,
    },
    /// Raw SSE payloads, each sent as a `data: <payload>` event, for malformed or edge streams;
    /// `done` adds the final `data: [DONE]`.
    RawSse { events: Vec<String>, done: bool },
    /// An HTTP answer. A `body` that is not JSON is wrapped as `{"error":{"message":body}}`,
    /// unless `headers` has a Content-Type: then it is sent verbatim (e.g. an HTML error page).
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Sleeps before answering with the inner reply (a slow model).
    Delayed { delay: Duration, reply: Box<Reply> },
    /// Sends the first `events` SSE events of the inner reply (`[DONE]` counts) and drops the
    /// connection; a non-streamed answer gets half its body; `0` closes before any byte.
    DropAfter { events: usize, reply: Box<Reply> },
    /// Sends the inner reply's SSE events `gap` apart: a model that streams slowly.
    Paced { gap: Duration, reply: Box<Reply> },
    /// Accepts and never answers; the socket is held until the server stops.
    Hang,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl Reply {
    pub fn text(s: &str) -> Reply {
        Reply::message(Some(s.to_string()), Vec::new())
    }

    pub fn tool_call(id: &str, name: &str, args: &str) -> Reply {
        Reply::tool_calls(&[(id, name, args)])
    }

    /// One assistant message with several calls, each `(id, name, arguments)`.
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Reply {
        let call = |&(id, name, args): &(&str, &str, &str)| ToolCall {
            id: id.to_string(),
            name: name.to_string(),
            arguments: args.to_string(),
        };
        Reply::message(None, calls.iter().map(call).collect())
    }

    fn message(content: Option<String>, tool_calls: Vec<ToolCall>) -> Reply {
        let (reasoning, finish_reason, usage) = (None, None, None);
        Reply::Message {
            content,
            reasoning,
            tool_calls,
            finish_reason,
            usage,
        }
    }

    /// Sets the usage of the message (also inside Delayed/DropAfter).
    pub fn with_usage(mut self, value: Value) -> Reply {
        match &mut self {
            Reply::Message { usage, .. } => *usage = Some(value),
            Reply::Delayed { reply, .. }
            | Reply::DropAfter { reply, .. }
            | Reply::Paced { reply, .. } => **reply = reply.clone().with_usage(value),
            _ => {}
        }
        self
    }

    /// Reads one reply in the script-file format (module docs).
    pub fn from_json(v: &Value) -> Result<Reply, String> {
        let Some(obj) = v.as_object() else {
            let err = || format!("a reply must be a string or an object: {v}");
            return v.as_str().map(Reply::text).ok_or_else(err);
        };
        let kinds = [
            "http",
            "delay_ms",
            "drop_after",
            "pace_ms",
            "raw_sse",
            "hang",
        ];
        let kind = kinds.into_iter().find(|k| obj.contains_key(*k));
        let allowed = match kind {
            Some("http") => "http body headers".to_string(),
            Some("raw_sse") => "raw_sse done".to_string(),
            Some(k) => format!("{k} reply"),
            None => "text content reasoning tool_calls finish_reason usage".to_string(),
        };
        // A typo in a script must fail loudly, not script a different conversation.
        if let Some(k) = obj.keys().find(|k| !allowed.split(' ').any(|a| a == *k)) {
            return Err(format!("unknown key {k:?} in reply {v}"));
        }
        let number = |k: &str| obj[k].as_u64().ok_or(format!("{k:?} needs a number"));
        let inner = || Reply::from_json(&v["reply"]).map(Box::new);
        let string = |k: &str| obj.get(k).map(as_text);
        Ok(match kind {
            Some("http") => {
                let headers = v["headers"].as_object().into_iter().flatten();
                Reply::Http {
                    status: u16::try_from(number("http")?).map_err(|e| e.to_string())?,
                    headers: headers.map(|(n, x)| (n.clone(), as_text(x))).collect(),
                    body: string("body").unwrap_or_default(),
                }
            }
            Some("delay_ms") => {
                let (delay, reply) = (Duration::from_millis(number("delay_ms")?), inner()?);
                Reply::Delayed { delay, reply }
            }
            Some("drop_after") => {
                let (events, reply) = (number("drop_after")? as usize, inner()?);
                Reply::DropAfter { events, reply }
            }
            Some("pace_ms") => {
                let (gap, reply) = (Duration::from_millis(number("pace_ms")?), inner()?);
                Reply::Paced { gap, reply }
            }
            Some("raw_sse") => Reply::RawSse {
                events: array(&v["raw_sse"]).iter().map(as_text).collect(),
                done: v["done"].as_bool().unwrap_or(true),
            },
            Some("hang") => Reply::Hang,
            _ => {
                let mut tool_calls = Vec::new();
                for (k, call) in array(&v["tool_calls"]).iter().enumerate() {
                    let field = |key: &str| call.get(key).map(as_text);
                    tool_calls.push(ToolCall {
                        id: field("id").unwrap_or_else(|| format!("call_{}", k + 1)),
                        name: field("name").ok_or("a tool call needs a name")?,
                        arguments: field("arguments").unwrap_or_else(|| "{}".to_string()),
                    });
                }
                Reply::Message {
                    content: string("text").or_else(|| string("content")),
                    reasoning: string("reasoning"),
                    tool_calls,
                    finish_reason: string("finish_reason"),
                    usage: obj.get("usage").cloned(),
                }
            }
        })
    }
}

/// A JSON string's text, or any other value as compact JSON.
fn as_text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

pub fn array(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// The value of header `name` (any case).
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    let found = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name));
    found.map(|(_, v)| v.as_str())
}

/// Reads a whole script: an array of replies (or `{"script": [...]}`); an element
/// `{"repeat": N, "reply": R}` stands for N copies of R.
pub fn parse_script(v: &Value) -> Result<Vec<Reply>, String> {
    let items = v.get("script").unwrap_or(v).as_array();
    let mut script = Vec::new();
    for (i, item) in items.ok_or("a script must be an array")?.iter().enumerate() {
        let (times, reply) = match item.get("repeat") {
            Some(n) => (n.as_u64().ok_or("bad \"repeat\"")?, &item["reply"]),
            None => (1, item),
        };
        let reply = Reply::from_json(reply).map_err(|e| format!("script[{i}]: {e}"))?;
        script.extend(std::iter::repeat_n(reply, times as usize));
    }
    Ok(script)
}

/// One chat-completions request as it arrived.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lowercase names, in arrival order.
    pub headers: Vec<(String, String)>,
    /// `Value::Null` when the body is not JSON.
    pub body: Value,
    pub at: Instant,
    /// Protocol violations in `messages`; non-empty means the call was answered with HTTP 400.
    pub pairing_errors: Vec<String>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The JSONL log line: `{"t_ms", "method", "path", "headers": {…}, "body",
    /// "pairing_errors"}`, `t_ms` counting from `origin`.
    pub fn to_json(&self, origin: Instant) -> Value {
        let headers = self.headers.iter().map(|(n, v)| (n.clone(), json!(v)));
        let headers: Map<String, Value> = headers.collect();
        let t_ms = self.at.saturating_duration_since(origin).as_millis() as u64;
        json!({"t_ms": t_ms, "method": self.method, "path": self.path, "headers": headers,
            "body": self.body, "pairing_errors": self.pairing_errors})
    }
}

/// Settings beyond the script; [`ChatServer::start`] uses the defaults.
#[derive(Default)]
pub struct Options {
    /// 0 picks a free port.
    pub port: u16,
    /// After the script's end, answer every call with its last reply (for benchmarks).
    pub repeat_last: bool,
    /// Receives each recorded request as one JSON line as it arrives ([`Recorded::to_json`]).
    pub log: Option<Box<dyn Write + Send>>,
}

pub struct ChatServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled on stop and whenever an answer is finished.
    changed: Condvar,
    origin: Instant,
    repeat_last: bool,
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    last: Option<Reply>,
    recorded: Vec<Recorded>,
    served: u64,
    in_flight: usize,
    stopped: bool,
    /// Clones of the open sockets, so that stopping unblocks threads stuck in a read.
    conns: HashMap<u64, TcpStream>,
    log: Option<Box<dyn Write + Send>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not turn every later assertion into a poison error.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits up to `timeout` while `busy` holds and the server runs; false if it still holds.
    fn wait(&self, timeout: Duration, busy: impl Fn(&State) -> bool) -> bool {
        let still = |s: &mut State| !s.stopped && busy(s);
        let guard = self.changed.wait_timeout_while(self.lock(), timeout, still);
        !still(&mut guard.unwrap_or_else(|e| e.into_inner()).0)
    }
}

/// Counts an answer being written, so that `wait_until_done` knows when the last one is out.
struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.lock().in_flight -= 1;
        self.0.changed.notify_all();
    }
}

impl ChatServer {
    /// Starts on 127.0.0.1 with a free port.
    pub fn start(script: Vec<Reply>) -> ChatServer {
        ChatServer::start_with(script, Options::default()).expect("chat_server: bind 127.0.0.1")
    }

    pub fn start_with(script: Vec<Reply>, options: Options) -> io::Result<ChatServer> {
        let listener = TcpListener::bind(("127.0.0.1", options.port))?;
        let addr = listener.local_addr()?;
        let (script, log) = (script.into(), options.log);
        let state = State {
            script,
            log,
            ..State::default()
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            changed: Condvar::new(),
            origin: Instant::now(),
            repeat_last: options.repeat_last,
        });
        let server = Arc::clone(&shared);
        let acceptor = std::thread::spawn(move || {
            for (id, stream) in (0u64..).zip(listener.incoming()) {
                let Ok(stream) = stream else { continue };
                let Ok(clone) = stream.try_clone() else {
                    continue;
                };
                let mut state = server.lock();
                if state.stopped {
                    return;
                }
                state.conns.insert(id, clone);
                let server = Arc::clone(&server);
                std::thread::spawn(move || serve_connection(&server, stream, id));
            }
        });
        let acceptor = Some(acceptor);
        Ok(ChatServer {
            addr,
            shared,
            acceptor,
        })
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The chat-completions POSTs in arrival order, rejected ones included.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().recorded.clone()
    }

    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }

    /// Script entries not yet served.
    pub fn remaining(&self) -> usize {
        self.shared.lock().script.len()
    }

    /// Waits until the script is used up and every answer is fully written (a Hang counts as
    /// answered); false on timeout.
    pub fn wait_until_done(&self, timeout: Duration) -> bool {
        let busy = |s: &State| !s.script.is_empty() || s.in_flight > 0;
        self.shared.wait(timeout, busy)
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.stopped = true;
        for conn in state.conns.values() {
            let _ = conn.shutdown(Shutdown::Both);
        }
        drop(state);
        self.shared.changed.notify_all();
        // The acceptor blocks in accept(); one more connection wakes it to see `stopped`.
        let _ = TcpStream::connect(self.addr);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn serve_connection(shared: &Arc<Shared>, stream: TcpStream, id: u64) {
    // Many small SSE writes: without NODELAY, Nagle and delayed ACKs stall each by ~40 ms.
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream);
    while let Ok(Some((request, keep_alive))) = read_request(&mut reader) {
        match respond(shared, request, keep_alive, reader.get_mut()) {
            Ok(true) => {}
            _ => break,
        }
    }
    let _ = reader.get_ref().shutdown(Shutdown::Both);
    shared.lock().conns.remove(&id);
}

/// The next request on the connection and whether it may stay open after it.
fn read_request(r: &mut BufReader<TcpStream>) -> io::Result<Option<(Recorded, bool)>> {
    let mut line = String::new();
    // RFC 9112 lets a server skip empty lines before a request line.
    while line.trim().is_empty() {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
    }
    let parts: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let parts = <[String; 3]>::try_from(parts);
    let [method, path, version] = parts.map_err(|_| io::ErrorKind::InvalidData)?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let Some((name, value)) = line.split_once(':') else {
            break;
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let value = |name: &str| {
        header(&headers, name)
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    if value("expect") == "100-continue" {
        r.get_mut().write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let mut body = vec![0; value("content-length").parse().unwrap_or(0)];
    r.read_exact(&mut body)?;
    let keep_alive = match value("connection").as_str() {
        "close" => false,
        "keep-alive" => true,
        _ => version != "HTTP/1.0",
    };
    let recorded = Recorded {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        at: Instant::now(),
        pairing_errors: Vec::new(),
    };
    Ok(Some((recorded, keep_alive)))
}

/// What a chat call asked for that shapes the answer.
struct Call {
    id: String,
    created: u64,
    model: Value,
    stream: bool,
    include_usage: bool,
    keep_alive: bool,
}

/// Answers one request; Ok(false) when the connection must close afterwards.
fn respond(shared: &Arc<Shared>, req: Recorded, keep: bool, w: &mut TcpStream) -> io::Result<bool> {
    let route = req.path.split('?').next().unwrap_or_default();
    let route = route.trim_end_matches('/');
    if req.method == "GET" && route.ends_with("/models") {
        let list = json!({"object": "list", "data": [{"id": "fake-model"}]});
        return send(
            w,
            Out::Full(200, Vec::new(), list.to_string()),
            keep,
            None,
            Duration::ZERO,
        );
    }
    if req.method != "POST" || !route.ends_with("/chat/completions") {
        let message = format!("chat_server: no route for {} {}", req.method, req.path);
        return send(w, Out::error(404, &message), keep, None, Duration::ZERO);
    }
    let (body, pairing_errors) = (req.body.clone(), check_messages(&req.body));
    let recorded = Recorded {
        pairing_errors: pairing_errors.clone(),
        ..req
    };
    // Record and take the script entry under one lock, so that arrival order is script order.
    let mut state = shared.lock();
    if let Some(log) = state.log.as_mut() {
        // One write per line, so that a reader tailing the log never sees half a line.
        let line = format!("{}\n", recorded.to_json(shared.origin));
        let _ = log.write_all(line.as_bytes()).and_then(|()| log.flush());
    }
    state.recorded.push(recorded);
    if !pairing_errors.is_empty() {
        drop(state);
        let message = format!("chat_server: {}", pairing_errors.join("; "));
        return send(w, Out::error(400, &message), keep, None, Duration::ZERO);
    }
    let reply = state.script.pop_front();
    if shared.repeat_last && reply.is_some() && state.script.is_empty() {
        state.last.clone_from(&reply);
    }
    let Some(reply) = reply.or_else(|| state.last.clone()) else {
        drop(state);
        let exhausted = Out::error(500, "chat_server: script exhausted");
        return send(w, exhausted, keep, None, Duration::ZERO);
    };
    state.served += 1;
    state.in_flight += 1;
    let id = format!("chatcmpl-chatserver{:06}", state.served);
    drop(state);
    let mut in_flight = Some(InFlight(Arc::clone(shared)));
    let flag = |pointer: &str| body.pointer(pointer) == Some(&Value::Bool(true));
    let created = SystemTime::now().duration_since(UNIX_EPOCH);
    let call = Call {
        id,
        created: created.map_or(0, |d| d.as_secs()),
        model: body.get("model").cloned().unwrap_or(json!("fake-model")),
        stream: flag("/stream"),
        include_usage: flag("/stream_options/include_usage"),
        keep_alive: keep,
    };
    answer(
        shared,
        &reply,
        &call,
        w,
        None,
        Duration::ZERO,
        &mut in_flight,
    )
}

fn answer(
    shared: &Shared,
    reply: &Reply,
    call: &Call,
    w: &mut TcpStream,
    drop_after: Option<usize>,
    gap: Duration,
    in_flight: &mut Option<InFlight>,
) -> io::Result<bool> {
    let out = match reply {
        Reply::Delayed { delay, reply } => {
            // Waking early on stop lets a dropped server release a slow answer at once.
            shared.wait(*delay, |_| true);
            if shared.lock().stopped {
                return Ok(false);
            }
            return answer(shared, reply, call, w, drop_after, gap, in_flight);
        }
        Reply::DropAfter { events, reply } => {
            return answer(shared, reply, call, w, Some(*events), gap, in_flight);
        }
        Reply::Paced { gap, reply } => {
            return answer(shared, reply, call, w, drop_after, *gap, in_flight);
        }
        Reply::Hang => {
            in_flight.take();
            shared.wait(Duration::MAX, |_| true);
            return Ok(false);
        }
        Reply::RawSse { events, done } => {
            let done = done.then(|| "[DONE]".to_string());
            Out::Sse(events.iter().cloned().chain(done).collect())
        }
        Reply::Http {
            status,
            headers,
            body,
        } => {
            let raw = header(headers, "content-type").is_some();
            let raw = raw || serde_json::from_str::<Value>(body).is_ok();
            let body = if raw { body.clone() } else { error_body(body) };
            Out::Full(*status, headers.clone(), body)
        }
        Reply::Message {
            content,
            reasoning,
            tool_calls,
            finish_reason,
            usage,
        } => {
            let finish = match (finish_reason, tool_calls.is_empty()) {
                (Some(reason), _) => reason,
                (None, true) => "stop",
                (None, false) => "tool_calls",
            };
            let tokens = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
            let usage = usage.clone().unwrap_or(tokens);
            if call.stream {
                Out::Sse(stream_events(
                    call, content, reasoning, tool_calls, finish, usage,
                ))
            } else {
                let mut message = json!({"role": "assistant", "content": content});
                if let Some(reasoning) = reasoning {
                    message["reasoning_content"] = json!(reasoning);
                }
                if !tool_calls.is_empty() {
                    message["tool_calls"] = tool_calls.iter().map(call_json).collect();
                }
                message["refusal"] = Value::Null;
                let choice = json!({"index": 0, "message": message, "logprobs": null,
                    "finish_reason": finish});
                let mut completion = envelope(call, "chat.completion", Some(choice));
                completion["usage"] = usage;
                Out::Full(200, Vec::new(), completion.to_string())
            }
        }
    };
    send(w, out, call.keep_alive, drop_after, gap)
}

fn call_json(c: &ToolCall) -> Value {
    json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}})
}

/// The fields every completion and chunk carries, around `choice` (none: `choices: []`).
fn envelope(call: &Call, object: &str, choice: Option<Value>) -> Value {
    json!({"id": call.id, "object": object, "created": call.created, "model": call.model,
        "system_fingerprint": "fp_chat_server", "choices": Vec::from_iter(choice)})
}

fn stream_events(
    call: &Call,
    content: &Option<String>,
    reasoning: &Option<String>,
    tool_calls: &[ToolCall],
    finish: &str,
    usage: Value,
) -> Vec<String> {
    let mut events = Vec::new();
    let mut push = |delta: Value, finish: Option<&str>| {
        let choice = json!({"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish});
        let mut chunk = envelope(call, "chat.completion.chunk", Some(choice));
        // With include_usage, OpenAI sends `"usage": null` on every chunk but the last.
        if call.include_usage {
            chunk["usage"] = Value::Null;
        }
        events.push(chunk.to_string());
    };
    let first = content.as_ref().map(|_| "");
    push(json!({"role": "assistant", "content": first}), None);
    for piece in split(reasoning, 3) {
        push(json!({"reasoning_content": piece}), None);
    }
    for piece in split(content, 3) {
        push(json!({"content": piece}), None);
    }
    for (index, c) in tool_calls.iter().enumerate() {
        let mut head = call_json(c);
        head["index"] = json!(index);
        head["function"]["arguments"] = json!("");
        push(json!({"tool_calls": [head]}), None);
        for piece in split(&Some(c.arguments.clone()), 2) {
            let part = json!({"index": index, "function": {"arguments": piece}});
            push(json!({"tool_calls": [part]}), None);
        }
    }
    push(json!({}), Some(finish));
    if call.include_usage {
        let mut last = envelope(call, "chat.completion.chunk", None);
        last["usage"] = usage;
        events.push(last.to_string());
    }
    events.push("[DONE]".to_string());
    events
}

/// Splits `s` into at most `n` non-empty pieces on char boundaries (none for "" or None).
fn split(s: &Option<String>, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.iter().flat_map(|s| s.chars()).collect();
    let size = chars.len().div_ceil(n).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// The checks a strict provider makes on `messages`, as readable violations.
pub fn check_messages(body: &Value) -> Vec<String> {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return vec!["request body has no \"messages\" array".to_string()];
    };
    let mut errors = Vec::new();
    // Calls of the latest assistant message not answered yet: (id, message index).
    let mut pending: Vec<(String, usize)> = Vec::new();
    let list = |p: &[(String, usize)]| {
        let ids = p.iter().map(|(id, i)| format!("{id:?} (messages[{i}])"));
        ids.collect::<Vec<_>>().join(", ")
    };
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or_default();
        if !["system", "developer", "user", "assistant", "tool"].contains(&role) {
            errors.push(format!(
                "messages[{i}] is not a message with a valid role: {m}"
            ));
            continue;
        }
        if role == "tool" {
            let id = m["tool_call_id"].as_str().unwrap_or_default();
            match pending.iter().position(|(p, _)| p == id) {
                Some(k) => drop(pending.remove(k)),
                None => errors.push(format!(
                    "messages[{i}] (tool) answers tool_call_id {id:?}, which is not an \
                     unanswered call of the preceding assistant message"
                )),
            }
            continue;
        }
        if !pending.is_empty() {
            let ids = list(&pending);
            errors.push(format!(
                "tool call(s) {ids} not answered before messages[{i}]"
            ));
            pending.clear();
        }
        let calls = match &m["tool_calls"] {
            Value::Null => continue,
            Value::Array(calls) if role == "assistant" && !calls.is_empty() => calls,
            other => {
                errors.push(format!("messages[{i}] ({role}) has tool_calls {other}"));
                continue;
            }
        };
        for (k, c) in calls.iter().enumerate() {
            let id = c["id"].as_str().unwrap_or_default();
            let name = c["function"]["name"].as_str().unwrap_or_default();
            let error = if id.is_empty() || name.is_empty() {
                "lacks an id or a function name"
            } else if !c["function"]["arguments"].is_string() {
                "has no string function.arguments"
            } else if pending.iter().any(|(p, _)| p == id) {
                "repeats an id"
            } else {
                pending.push((id.to_string(), i));
                continue;
            };
            errors.push(format!("messages[{i}].tool_calls[{k}] {error}: {c}"));
        }
    }
    if !pending.is_empty() {
        let ids = list(&pending);
        errors.push(format!(
            "tool call(s) {ids} never answered: the messages end"
        ));
    }
    errors
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message}}).to_string()
}

/// A whole answer, before the connection's framing is applied.
enum Out {
    Full(u16, Vec<(String, String)>, String),
    /// SSE payloads, `[DONE]` included when due.
    Sse(Vec<String>),
}

impl Out {
    fn error(status: u16, message: &str) -> Out {
        Out::Full(status, Vec::new(), error_body(message))
    }
}

const REASONS: &str = "200 OK|400 Bad Request|401 Unauthorized|402 Payment Required|\
    403 Forbidden|404 Not Found|408 Request Timeout|413 Payload Too Large|429 Too Many Requests|\
    500 Internal Server Error|502 Bad Gateway|503 Service Unavailable|529 Site Overloaded";

/// Writes `out`; with `drop_after`, only that many SSE events (or half a body) and no end;
/// SSE events `gap` apart.
fn send(
    w: &mut TcpStream,
    out: Out,
    keep: bool,
    drop_after: Option<usize>,
    gap: Duration,
) -> io::Result<bool> {
    if drop_after == Some(0) {
        return Ok(false);
    }
    let (status, mut headers, kind) = match &out {
        Out::Full(status, headers, _) => (*status, headers.clone(), "application/json"),
        Out::Sse(_) => (200, Vec::new(), "text/event-stream"),
    };
    if header(&headers, "content-type").is_none() {
        headers.push(("Content-Type".into(), kind.into()));
    }
    let connection = if keep { "keep-alive" } else { "close" };
    headers.push(("Connection".into(), connection.into()));
    let code = status.to_string();
    let reason = REASONS.split('|').find_map(|r| r.strip_prefix(&code));
    let mut head = format!("HTTP/1.1 {code}{}\r\n", reason.unwrap_or(" Status"));
    for (name, value) in &headers {
        head += &format!("{name}: {value}\r\n");
    }
    let events = match out {
        Out::Full(_, _, body) => {
            // A dropped non-streamed answer promises the whole length but sends half of it.
            let sent = body.len() / if drop_after.is_some() { 2 } else { 1 };
            let mut bytes = format!("{head}Content-Length: {}\r\n\r\n", body.len()).into_bytes();
            bytes.extend_from_slice(&body.as_bytes()[..sent]);
            w.write_all(&bytes)?;
            return Ok(keep && drop_after.is_none());
        }
        Out::Sse(events) => events,
    };
    head += "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
    w.write_all(head.as_bytes())?;
    // One HTTP chunk per event, written whole, so that a reader sees events as they come.
    for (n, event) in events
        .iter()
        .take(drop_after.unwrap_or(usize::MAX))
        .enumerate()
    {
        if n > 0 {
            std::thread::sleep(gap);
        }
        let data = format!("data: {event}\n\n");
        w.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())?;
    }
    if drop_after.is_none() {
        w.write_all(b"0\r\n\r\n")?;
    }
    Ok(keep && drop_after.is_none())
}
