//! The scripted chat-completions server itself (tests/support/chat_server.rs), checked once
//! here rather than in every test binary that includes the support module.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};
use support::chat_server::*;

type Client = BufReader<TcpStream>;

/// Status code, lowercased head, de-chunked body, and whether the body was whole.
struct Answer(u16, String, String, bool);

fn start(script: Value) -> (ChatServer, Client) {
    let server = ChatServer::start(parse_script(&script).unwrap());
    let client = BufReader::new(TcpStream::connect(server.addr).unwrap());
    (server, client)
}

/// Sends one request on `c` and reads its answer.
fn exchange(c: &mut Client, method: &str, path: &str, body: &str) -> Answer {
    let head = format!(
        "{method} {path} HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    c.get_mut().write_all((head + body).as_bytes()).unwrap();
    let mut head = String::new();
    while c.read_line(&mut head).unwrap_or(0) > 0 && !head.ends_with("\r\n\r\n") {}
    let head = head.to_ascii_lowercase();
    let (mut body, mut complete) = (Vec::new(), false);
    if head.contains("transfer-encoding: chunked") {
        let mut size = String::new();
        while c.read_line(&mut size).unwrap_or(0) > 0 {
            let mut chunk = vec![0; usize::from_str_radix(size.trim(), 16).unwrap() + 2];
            complete = chunk.len() == 2;
            if c.read_exact(&mut chunk).is_err() || complete {
                break;
            }
            body.extend_from_slice(&chunk[..chunk.len() - 2]);
            size.clear();
        }
    } else if let Some(length) = head.split("content-length: ").nth(1) {
        let length: u64 = length[..length.find('\r').unwrap()].parse().unwrap();
        let _ = c.take(length).read_to_end(&mut body);
        complete = body.len() as u64 == length;
    }
    let status = head.get(9..12).map_or(0, |s| s.parse().unwrap());
    Answer(status, head, String::from_utf8(body).unwrap(), complete)
}

/// A chat call with `messages` (streaming ones ask for usage, as Hermes does).
fn ask(c: &mut Client, messages: Value, stream: bool) -> Answer {
    let options = json!({"include_usage": true});
    let body = json!({"messages": messages, "model": "m-1", "stream": stream,
        "stream_options": options});
    exchange(c, "POST", "/v1/chat/completions", &body.to_string())
}

fn user() -> Value {
    json!([{"role": "user", "content": "hi"}])
}

/// The `data:` payloads of an SSE body, JSON-decoded (`[DONE]` as a string).
fn events(body: &str) -> Vec<Value> {
    let data = body.split("\n\n").filter_map(|e| e.strip_prefix("data: "));
    data.map(|e| serde_json::from_str(e).unwrap_or(json!(e)))
        .collect()
}

#[test]
fn answers_a_non_streaming_call_with_one_completion_object() {
    let (server, mut c) = start(json!(["Hello from fake."]));
    let Answer(status, _, body, _) = ask(&mut c, user(), false);
    let v: Value = serde_json::from_str(&body).unwrap();
    let message = json!({"role": "assistant", "content": "Hello from fake.", "refusal": null});
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let choice = json!({"index": 0, "message": message, "logprobs": null, "finish_reason": "stop"});
    assert_eq!(
        (status, &v["object"], &v["model"]),
        (200, &json!("chat.completion"), &json!("m-1"))
    );
    assert_eq!((&v["choices"], &v["usage"]), (&json!([choice]), &usage));
    let recorded = &server.requests()[0];
    assert_eq!(recorded.path, "/v1/chat/completions");
    assert_eq!(recorded.header("Content-length"), Some("114"));
    assert_eq!(
        (&server.bodies()[0]["messages"], server.remaining()),
        (&user(), 0)
    );
    assert!(server.wait_until_done(Duration::from_secs(5)));
}

#[test]
fn streams_deltas_that_reassemble_into_the_message() {
    let calls = json!([{"id": "call_1", "name": "terminal", "arguments": "{\"cmd\": \"ls\"}"},
        {"name": "read_file", "arguments": {"path": "ü.txt"}}]);
    let reply = json!({"text": "Let me look.", "reasoning": "Think.", "tool_calls": calls});
    let (_server, mut c) = start(json!([reply]));
    let Answer(_, head, body, complete) = ask(&mut c, user(), true);
    assert!(complete && head.contains("content-type: text/event-stream"));
    let events = events(&body);
    let [.., finish, usage, done] = &events[..] else {
        panic!("{body}")
    };
    let finish = &finish["choices"][0];
    assert_eq!(
        (&finish["delta"], &finish["finish_reason"]),
        (&json!({}), &json!("tool_calls"))
    );
    let usage = (&usage["choices"], &usage["usage"]["total_tokens"]);
    assert_eq!((usage, done), ((&json!([]), &json!(15)), &json!("[DONE]")));
    // Reassembled as a client would: content and reasoning appended, calls by `index`.
    let (mut text, mut reasoning, mut calls) = (String::new(), String::new(), json!([]));
    for delta in events.iter().map(|e| &e["choices"][0]["delta"]) {
        text += delta["content"].as_str().unwrap_or_default();
        reasoning += delta["reasoning_content"].as_str().unwrap_or_default();
        for call in array(&delta["tool_calls"]) {
            let (id, name) = (&call["id"], &call["function"]["name"]);
            if id.is_string() {
                let new = json!({"id": id, "name": name, "arguments": "", "fragments": 0});
                calls.as_array_mut().unwrap().push(new);
            }
            let slot = &mut calls[call["index"].as_u64().unwrap() as usize];
            let piece = call["function"]["arguments"].as_str().unwrap();
            slot["arguments"] = json!(slot["arguments"].as_str().unwrap().to_string() + piece);
            let fragments = slot["fragments"].as_u64().unwrap() + u64::from(!piece.is_empty());
            slot["fragments"] = json!(fragments);
        }
    }
    assert_eq!(
        (text.as_str(), reasoning.as_str()),
        ("Let me look.", "Think.")
    );
    let expected = json!([
        {"id": "call_1", "name": "terminal", "arguments": "{\"cmd\": \"ls\"}", "fragments": 2},
        {"id": "call_2", "name": "read_file", "arguments": "{\"path\":\"ü.txt\"}", "fragments": 2}]);
    assert_eq!(calls, expected);
}

#[test]
fn serves_several_requests_on_one_keep_alive_connection() {
    let (server, mut c) = start(json!(["one", {"delay_ms": 50, "reply": "two"}]));
    let Answer(_, _, body, complete) = ask(&mut c, user(), true);
    assert!(complete && body.ends_with("data: [DONE]\n\n"));
    assert!(ask(&mut c, user(), false).2.contains(r#""content":"two""#));
    let models = exchange(&mut c, "GET", "/v1/models", "").2;
    assert_eq!(models, r#"{"object":"list","data":[{"id":"fake-model"}]}"#);
    assert_eq!(exchange(&mut c, "POST", "/v1/embeddings", "{}").0, 404);
    assert_eq!(server.requests().len(), 2, "only chat calls are recorded");
    let close = "GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n";
    c.get_mut().write_all(close.as_bytes()).unwrap();
    let mut rest = String::new();
    c.read_to_string(&mut rest).unwrap();
    assert!(rest.starts_with("HTTP/1.1 200 OK\r\n") && rest.contains("Connection: close"));
}

#[test]
fn sends_http_errors_with_headers_and_an_openai_error_body() {
    let error = json!({"http": 429, "body": "slow down", "headers": {"Retry-After": "1"}});
    let (_server, mut c) = start(json!([error, "after 429"]));
    let Answer(_, head, body, _) = ask(&mut c, user(), false);
    assert!(
        head.starts_with("http/1.1 429 too many requests\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
    assert_eq!(body, r#"{"error":{"message":"slow down"}}"#);
    assert!(ask(&mut c, user(), false).2.contains("after 429"));
}

#[test]
fn drop_after_cuts_the_stream_and_the_connection() {
    let (server, mut c) = start(json!([{"drop_after": 2, "reply": "partial"}, "whole"]));
    let Answer(_, _, body, complete) = ask(&mut c, user(), true);
    assert_eq!((events(&body).len(), complete), (2, false));
    assert_eq!(c.read(&mut [0; 1]).unwrap_or(0), 0);
    let mut c = BufReader::new(TcpStream::connect(server.addr).unwrap());
    assert!(ask(&mut c, user(), true).3);
}

#[test]
fn a_paced_stream_is_the_same_stream() {
    let (_server, mut c) = start(json!([{"pace_ms": 5, "reply": "paced text"}]));
    let Answer(_, _, body, complete) = ask(&mut c, user(), true);
    let text: String = events(&body)
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!((text.as_str(), complete), ("paced text", true));
}

#[test]
fn rejects_broken_tool_call_pairing_with_400_without_using_the_script() {
    let function = json!({"name": "terminal", "arguments": "{}"});
    let call = json!({"role": "assistant", "content": "",
        "tool_calls": [{"id": "call_1", "type": "function", "function": function}]});
    let result = |id: &str| json!({"role": "tool", "content": "ok", "tool_call_id": id});
    let (hi, done) = (user()[0].clone(), result("call_1"));
    let (server, mut c) = start(json!(["fine"]));
    let Answer(status, _, body, _) = ask(&mut c, json!([hi, call, hi]), false);
    let message = r#"chat_server: tool call(s) \"call_1\" (messages[1]) not answered"#;
    assert!(
        body.starts_with(&format!(r#"{{"error":{{"message":"{message}"#)),
        "{body}"
    );
    assert_eq!((status, server.remaining()), (400, 1));
    assert_eq!(server.requests()[0].pairing_errors.len(), 1);
    let errors = |messages: Value| check_messages(&json!({"messages": messages})).len();
    assert_eq!(
        errors(json!([hi, call])),
        1,
        "a trailing call is a violation"
    );
    assert_eq!(errors(json!([hi, call, result("call_2")])), 2);
    assert_eq!(errors(json!([hi, call, done, done])), 1);
    assert_eq!(errors(json!([hi, "text", {"role": "bot"}])), 2);
    assert_eq!(errors(json!([hi, call, done, hi])), 0);
    assert_eq!(ask(&mut c, json!([hi, call, done]), false).0, 200);
    assert_eq!(server.remaining(), 0);
}

#[test]
fn answers_500_once_the_script_is_exhausted() {
    let (server, mut c) = start(json!([]));
    let Answer(status, _, body, _) = ask(&mut c, user(), false);
    assert_eq!(
        body,
        r#"{"error":{"message":"chat_server: script exhausted"}}"#
    );
    assert_eq!((status, server.requests().len()), (500, 1));
}

#[test]
fn dropping_the_server_releases_a_hanging_call() {
    let (server, mut c) = start(json!([{"hang": true}]));
    let hanging = std::thread::spawn(move || ask(&mut c, user(), false).0);
    assert!(server.wait_until_done(Duration::from_secs(5)));
    drop(server);
    assert_eq!(
        hanging.join().unwrap(),
        0,
        "connection closed without an answer"
    );
}

#[test]
fn parses_every_script_form_and_rejects_typos() {
    let v = json!([{"repeat": 2, "reply": {"tool_calls": [{"name": "t"}]}},
        {"delay_ms": 5, "reply": {"raw_sse": ["{}", {"a": 1}], "done": false}}]);
    let call = Reply::tool_call("call_1", "t", "{}");
    let raw = Reply::RawSse {
        events: vec!["{}".into(), r#"{"a":1}"#.into()],
        done: false,
    };
    let delayed = Reply::Delayed {
        delay: Duration::from_millis(5),
        reply: Box::new(raw),
    };
    assert_eq!(parse_script(&v).unwrap(), [call.clone(), call, delayed]);
    let paced = Reply::Paced {
        gap: Duration::from_millis(7),
        reply: Box::new(Reply::text("slowly")),
    };
    assert_eq!(
        parse_script(&json!([{"pace_ms": 7, "reply": "slowly"}])).unwrap(),
        [paced]
    );
    assert!(
        parse_script(&json!([{"txt": "typo"}]))
            .unwrap_err()
            .contains("\"txt\"")
    );
}
