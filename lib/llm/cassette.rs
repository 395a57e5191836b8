//! The `replay` provider: a cassette is a JSONL file with one line per model call, the request
//! body and what came back. `--record FILE` writes one from a live run; `--replay FILE`
//! answers from it and fails at the first request that differs from the recorded one.
//!
//! Cassettes are portable: before a request is recorded or compared, the values that differ
//! between machines and runs (the working directory, HERMES_HOME, the home directory, the
//! session id, the OS release) are replaced by placeholders such as `{{cwd}}`, and the
//! placeholders in a recorded answer are expanded again on replay. Headers are never
//! recorded, so no key can reach a cassette.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::Transport;
use super::completion::{Completion, Delta, Usage};
use super::error::LlmError;
use super::message::ToolCall;

/// The machine-specific values of a run and their placeholders, longest value first.
#[derive(Debug, Clone, Default)]
pub struct Placeholders {
    pairs: Vec<(String, String)>,
}

impl Placeholders {
    pub fn new(values: &[(&str, &str)]) -> Placeholders {
        let mut pairs: Vec<(String, String)> = values
            .iter()
            .filter(|(_, value)| value.len() > 1)
            .map(|(name, value)| (format!("{{{{{name}}}}}"), value.to_string()))
            .collect();
        pairs.sort_by_key(|p| std::cmp::Reverse(p.1.len()));
        Placeholders { pairs }
    }

    pub fn set(&mut self, name: &str, value: &str) {
        let key = format!("{{{{{name}}}}}");
        self.pairs.retain(|(k, _)| *k != key);
        if value.len() > 1 {
            self.pairs.push((key, value.to_string()));
            self.pairs.sort_by_key(|p| std::cmp::Reverse(p.1.len()));
        }
    }

    /// `text` as a cassette records it: each value replaced by its placeholder.
    pub fn hide(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (key, value) in &self.pairs {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), key);
            }
        }
        out
    }

    /// A recorded `text` as replayed here: each placeholder replaced by this run's value.
    pub fn expand(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (key, value) in &self.pairs {
            if out.contains(key.as_str()) {
                out = out.replace(key.as_str(), value);
            }
        }
        out
    }

    fn map_strings(value: &Value, f: &dyn Fn(&str) -> String) -> Value {
        match value {
            Value::String(s) => Value::String(f(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| Self::map_strings(v, f)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Self::map_strings(v, f)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// One recorded outcome, as a JSON object.
fn outcome_json(outcome: &Result<Completion, LlmError>) -> Value {
    match outcome {
        Ok(c) => {
            let mut m = Map::new();
            if let Some(text) = &c.content {
                m.insert("content".into(), json!(text));
            }
            if let Some(r) = &c.reasoning {
                m.insert("reasoning".into(), json!(r));
            }
            if !c.tool_calls.is_empty() {
                let calls: Vec<Value> = c
                    .tool_calls
                    .iter()
                    .map(|t| json!({"id": t.id, "name": t.name, "arguments": t.arguments}))
                    .collect();
                m.insert("tool_calls".into(), Value::Array(calls));
            }
            if let Some(f) = &c.finish_reason {
                m.insert("finish_reason".into(), json!(f));
            }
            if let Some(u) = c.usage {
                m.insert(
                    "usage".into(),
                    json!({"prompt_tokens": u.prompt, "completion_tokens": u.output,
                        "prompt_tokens_details": {"cached_tokens": u.cache_read,
                            "cache_write_tokens": u.cache_write},
                        "completion_tokens_details": {"reasoning_tokens": u.reasoning}}),
                );
            }
            Value::Object(m)
        }
        Err(LlmError::Http {
            status,
            message,
            retry_after,
        }) => json!({"error": {"status": status, "message": message,
            "retry_after": retry_after.map(|d| d.as_secs_f64())}}),
        Err(e) => json!({"error": {"status": 0, "message": e.to_string()}}),
    }
}

fn outcome_from_json(value: &Value) -> Result<Completion, LlmError> {
    if let Some(err) = value.get("error") {
        let status = err.get("status").and_then(Value::as_u64).unwrap_or(0) as u16;
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        return Err(if status == 0 {
            LlmError::Connect { detail: message }
        } else {
            LlmError::Http {
                status,
                message,
                retry_after: err
                    .get("retry_after")
                    .and_then(Value::as_f64)
                    .map(std::time::Duration::from_secs_f64),
            }
        });
    }
    let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(Completion {
        content: text("content"),
        reasoning: text("reasoning"),
        tool_calls: value
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| ToolCall {
                        id: c.get("id").and_then(Value::as_str).unwrap_or("").into(),
                        name: c.get("name").and_then(Value::as_str).unwrap_or("").into(),
                        arguments: c
                            .get("arguments")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .into(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        finish_reason: text("finish_reason"),
        usage: value.get("usage").map(Usage::from_json),
    })
}

/// Wraps a live transport and appends every exchange to a cassette.
pub struct Recorder {
    inner: Box<dyn Transport>,
    file: File,
    path: PathBuf,
    pub placeholders: Placeholders,
}

impl Recorder {
    pub fn create(
        path: &Path,
        inner: Box<dyn Transport>,
        placeholders: Placeholders,
    ) -> std::io::Result<Recorder> {
        Ok(Recorder {
            inner,
            file: File::create(path)?,
            path: path.to_path_buf(),
            placeholders,
        })
    }
}

impl Transport for Recorder {
    fn call(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError> {
        let outcome = self.inner.call(body, on_delta);
        let p = &self.placeholders;
        let line = json!({
            "request": Placeholders::map_strings(body, &|s| p.hide(s)),
            "response": Placeholders::map_strings(&outcome_json(&outcome), &|s| p.hide(s)),
        });
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.flush())
            .map_err(|e| {
                LlmError::Replay(format!(
                    "cannot write cassette {}: {e}",
                    self.path.display()
                ))
            })?;
        outcome
    }

    fn set_placeholder(&mut self, name: &str, value: &str) {
        self.placeholders.set(name, value);
    }
}

/// Answers from a cassette.
pub struct Replayer {
    exchanges: Vec<(Value, Value)>,
    next: usize,
    path: PathBuf,
    pub placeholders: Placeholders,
}

impl Replayer {
    pub fn open(path: &Path, placeholders: Placeholders) -> Result<Replayer, String> {
        let file = File::open(path)
            .map_err(|e| format!("cannot read cassette {}: {e}", path.display()))?;
        let mut exchanges = Vec::new();
        for (i, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("cannot read cassette {}: {e}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&line)
                .map_err(|e| format!("{}:{}: not JSON: {e}", path.display(), i + 1))?;
            let (Some(request), Some(response)) = (value.get("request"), value.get("response"))
            else {
                return Err(format!(
                    "{}:{}: a cassette line needs \"request\" and \"response\"",
                    path.display(),
                    i + 1
                ));
            };
            exchanges.push((request.clone(), response.clone()));
        }
        Ok(Replayer {
            exchanges,
            next: 0,
            path: path.to_path_buf(),
            placeholders,
        })
    }

    /// The model of the first recorded request, for a home with no model configured.
    pub fn recorded_model(&self) -> Option<String> {
        self.exchanges
            .first()
            .and_then(|(req, _)| req.get("model"))
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// The endpoint a replay presents: the cassette is the model, so the model, the provider
    /// label and the output cap of the recorded run win over `configured` (the home's, when it
    /// has one), and a replay sends the same requests on any home.
    pub fn endpoint(&self, configured: Option<super::Endpoint>) -> super::Endpoint {
        let mut ep = configured.unwrap_or_else(|| super::Endpoint {
            provider: "replay".into(),
            model: "replay".into(),
            base_url: "replay".into(),
            api_key: String::new(),
            key_source: "none".into(),
            max_tokens: Some(65536),
            reasoning_effort: None,
        });
        if let Some(model) = self.recorded_model() {
            ep.model = model;
        }
        if let Some(provider) = self.recorded_provider() {
            ep.provider = provider;
        }
        ep.max_tokens = self.recorded_max_tokens();
        ep.base_url = "replay".into();
        ep
    }

    /// The provider named in the first recorded system prompt (`Provider: …`).
    pub fn recorded_provider(&self) -> Option<String> {
        let (req, _) = self.exchanges.first()?;
        let prompt = req.pointer("/messages/0/content")?.as_str()?;
        prompt
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("Provider: "))
            .map(|p| p.trim().to_string())
    }

    /// The output cap of the first recorded request.
    pub fn recorded_max_tokens(&self) -> Option<u64> {
        let (req, _) = self.exchanges.first()?;
        req.get("max_tokens")
            .or_else(|| req.get("max_completion_tokens"))
            .and_then(Value::as_u64)
    }

    pub fn len(&self) -> usize {
        self.exchanges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exchanges.is_empty()
    }

    pub fn remaining(&self) -> usize {
        self.exchanges.len() - self.next
    }
}

impl Transport for Replayer {
    fn call(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError> {
        let number = self.next + 1;
        let Some((recorded, response)) = self.exchanges.get(self.next) else {
            return Err(LlmError::Replay(format!(
                "replay: request {number} is not in the cassette {} (it holds {})",
                self.path.display(),
                self.exchanges.len()
            )));
        };
        let p = &self.placeholders;
        let sent = Placeholders::map_strings(body, &|s| p.hide(s));
        if let Some(diff) = first_difference(recorded, &sent, "") {
            return Err(LlmError::Replay(format!(
                "replay: request {number} differs from the cassette {}\n{diff}",
                self.path.display()
            )));
        }
        self.next += 1;
        let outcome = outcome_from_json(&Placeholders::map_strings(response, &|s| p.expand(s)));
        if let Ok(done) = &outcome {
            if let Some(r) = done.reasoning.as_deref() {
                on_delta(Delta::Reasoning(r));
            }
            if let Some(t) = done
                .content
                .as_deref()
                .filter(|_| done.tool_calls.is_empty())
            {
                on_delta(Delta::Text(t));
            }
        }
        outcome
    }

    fn set_placeholder(&mut self, name: &str, value: &str) {
        self.placeholders.set(name, value);
    }
}

/// The first place two JSON values differ, as `at <path>:` plus both sides.
pub fn first_difference(recorded: &Value, sent: &Value, path: &str) -> Option<String> {
    match (recorded, sent) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                let here = format!("{path}.{k}");
                match b.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(va, vb, &here) {
                            return Some(d);
                        }
                    }
                    None => {
                        return Some(format!("  at {here}: recorded {}, sent nothing", short(va)));
                    }
                }
            }
            b.keys().find(|k| !a.contains_key(*k)).map(|k| {
                format!(
                    "  at {path}.{k}: sent {}, not in the recording",
                    short(&b[k])
                )
            })
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                if let Some(d) = first_difference(va, vb, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (a.len() != b.len())
                .then(|| format!("  at {path}: recorded {} items, sent {}", a.len(), b.len()))
        }
        (Value::String(a), Value::String(b)) if a != b => Some(string_diff(path, a, b)),
        (a, b) if a != b => Some(format!(
            "  at {path}:\n    recorded: {}\n    sent:     {}",
            short(a),
            short(b)
        )),
        _ => None,
    }
}

/// Two texts shown around the first character where they part.
fn string_diff(path: &str, a: &str, b: &str) -> String {
    let common = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, ca), cb)| ca != cb)
        .map(|((i, _), _)| i)
        .unwrap_or(a.len().min(b.len()));
    let line = a[..common].matches('\n').count() + 1;
    let window = |s: &str| {
        let start = s[..common.min(s.len())]
            .char_indices()
            .rev()
            .nth(30)
            .map_or(0, |(i, _)| i);
        let tail: String = s[start..].chars().take(80).collect();
        format!("{tail:?}")
    };
    format!(
        "  at {path} (line {line} of the text):\n    recorded: {}\n    sent:     {}",
        window(a),
        window(b)
    )
}

fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 100 {
        format!("{}…", text.chars().take(100).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_hide_the_longest_value_first() {
        let p = Placeholders::new(&[("home", "/root"), ("cwd", "/root/project")]);
        assert_eq!(
            p.hide("cd /root/project && ls /root"),
            "cd {{cwd}} && ls {{home}}"
        );
        assert_eq!(p.expand("{{cwd}}/a"), "/root/project/a");
    }

    #[test]
    fn a_placeholder_set_later_replaces_the_old_value_and_keeps_the_order() {
        let mut p = Placeholders::new(&[("home", "/root"), ("cwd", "/root/project")]);
        p.set("session_id", "20260101_000000_abcdef");
        p.set("cwd", "/srv/w");
        // A value of one character would hide every such character: never a placeholder.
        p.set("home", "/");
        assert_eq!(
            p.pairs,
            [
                (
                    "{{session_id}}".to_string(),
                    "20260101_000000_abcdef".to_string()
                ),
                ("{{cwd}}".to_string(), "/srv/w".to_string()),
            ]
        );
        assert_eq!(
            p.hide("cd /srv/w in 20260101_000000_abcdef from /root"),
            "cd {{cwd}} in {{session_id}} from /root"
        );
    }

    /// A recorded run on one machine replays on another: what differs between them is
    /// hidden on the way in and expanded on the way out, nested anywhere in the JSON.
    #[test]
    fn a_cassette_recorded_here_replays_in_another_folder() {
        use crate::llm::testing::{Scripted, answer};
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.jsonl");
        let body = |cwd: &str| {
            json!({"model": "m1", "messages": [
                {"role": "system", "content": format!("Current working directory: {cwd}")},
                {"role": "user", "content": "hi"}], "n": 1})
        };
        let here = Placeholders::new(&[("cwd", "/work/a")]);
        let inner = Scripted::new(vec![answer("Files are in /work/a/out.")]);
        let Ok(mut recorder) = Recorder::create(&path, Box::new(inner), here) else {
            panic!("cassette")
        };
        let recorded = recorder.call(&body("/work/a"), &mut |_| {});
        assert_eq!(
            recorded.ok().and_then(|c| c.content),
            Some("Files are in /work/a/out.".to_string())
        );
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some(concat!(
                r#"{"request":{"model":"m1","messages":[{"role":"system","content":"Current working directory: {{cwd}}"},{"role":"user","content":"hi"}],"n":1},"#,
                r#""response":{"content":"Files are in {{cwd}}/out.","finish_reason":"stop"}}"#,
                "\n"
            ))
        );

        let there = Placeholders::new(&[("cwd", "/home/b/proj")]);
        let Ok(mut replayer) = Replayer::open(&path, there) else {
            panic!("replay")
        };
        assert_eq!((replayer.len(), replayer.remaining()), (1, 1));
        assert!(!replayer.is_empty());
        let mut streamed = String::new();
        let replayed = replayer.call(&body("/home/b/proj"), &mut |d| {
            if let Delta::Text(t) = d {
                streamed.push_str(t);
            }
        });
        assert_eq!(
            replayed.ok().and_then(|c| c.content),
            Some("Files are in /home/b/proj/out.".to_string())
        );
        assert_eq!(streamed, "Files are in /home/b/proj/out.");
        assert_eq!(replayer.remaining(), 0);
        let Err(LlmError::Replay(past_the_end)) = replayer.call(&body("/home/b/proj"), &mut |_| {})
        else {
            panic!("the cassette is used up")
        };
        assert!(
            past_the_end.starts_with("replay: request 2 is not in the cassette "),
            "{past_the_end}"
        );
        assert!(past_the_end.ends_with("(it holds 1)"), "{past_the_end}");

        let there = Placeholders::new(&[("cwd", "/home/b/proj")]);
        let Ok(mut replayer) = Replayer::open(&path, there) else {
            panic!("replay")
        };
        let Err(LlmError::Replay(differs)) = replayer.call(&body("/elsewhere"), &mut |_| {}) else {
            panic!("a different request is refused")
        };
        assert!(
            differs.starts_with("replay: request 1 differs from the cassette "),
            "{differs}"
        );
        assert!(differs.contains("at .messages[0].content"), "{differs}");
    }

    #[test]
    fn errors_round_trip_as_what_the_client_retries_on() {
        let http = LlmError::Http {
            status: 429,
            message: "slow down".into(),
            retry_after: Some(std::time::Duration::from_millis(1500)),
        };
        let recorded = outcome_json(&Err(http));
        assert_eq!(
            recorded,
            json!({"error": {"status": 429, "message": "slow down", "retry_after": 1.5}})
        );
        let Err(LlmError::Http {
            status,
            message,
            retry_after,
        }) = outcome_from_json(&recorded)
        else {
            panic!("an HTTP error")
        };
        assert_eq!((status, message.as_str()), (429, "slow down"));
        assert_eq!(retry_after, Some(std::time::Duration::from_millis(1500)));
        // Anything that was not an HTTP answer replays as a failed connection.
        let dropped = outcome_json(&Err(LlmError::EmptyStream));
        assert_eq!(dropped["error"]["status"], 0);
        let Err(LlmError::Connect { detail }) = outcome_from_json(&dropped) else {
            panic!("a connection error")
        };
        assert_eq!(detail, LlmError::EmptyStream.to_string());
    }

    /// The session id is known only once the session exists: it is set on the transport
    /// afterwards, and hidden (or expanded) from then on.
    #[test]
    fn a_placeholder_set_on_the_transport_is_used_from_then_on() {
        use crate::llm::testing::{Scripted, answer};
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.jsonl");
        let body = json!({"model": "m1", "max_tokens": 1000, "messages": [
            {"role": "system", "content": "Session: 20260101_000000_aaaaaa\nProvider: acme"}]});
        let inner = Scripted::new(vec![answer("ok")]);
        let Ok(mut recorder) = Recorder::create(&path, Box::new(inner), Placeholders::default())
        else {
            panic!("cassette")
        };
        recorder.set_placeholder("session_id", "20260101_000000_aaaaaa");
        assert!(recorder.call(&body, &mut |_| {}).is_ok());
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            text.contains(r#""Session: {{session_id}}\nProvider: acme""#),
            "{text}"
        );

        let Ok(mut replayer) = Replayer::open(&path, Placeholders::default()) else {
            panic!("replay")
        };
        assert_eq!(replayer.recorded_model().as_deref(), Some("m1"));
        assert_eq!(replayer.recorded_provider().as_deref(), Some("acme"));
        assert_eq!(replayer.recorded_max_tokens(), Some(1000));
        let endpoint = replayer.endpoint(None);
        assert_eq!(
            (
                endpoint.model.as_str(),
                endpoint.provider.as_str(),
                endpoint.base_url.as_str(),
                endpoint.max_tokens
            ),
            ("m1", "acme", "replay", Some(1000))
        );
        let other = json!({"model": "m1", "max_tokens": 1000, "messages": [
            {"role": "system", "content": "Session: 20270202_000000_bbbbbb\nProvider: acme"}]});
        replayer.set_placeholder("session_id", "20270202_000000_bbbbbb");
        assert!(replayer.call(&other, &mut |_| {}).is_ok());
    }

    #[test]
    fn a_broken_cassette_names_the_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("bad.jsonl");
        let _ = std::fs::write(&path, "\n{\"request\": {}}\n");
        let Err(e) = Replayer::open(&path, Placeholders::default()) else {
            panic!("refused")
        };
        assert_eq!(
            e,
            format!(
                "{}:2: a cassette line needs \"request\" and \"response\"",
                path.display()
            )
        );
        let _ = std::fs::write(&path, "{\"request\": {}, \"response\": {}}\nnot json\n");
        let Err(e) = Replayer::open(&path, Placeholders::default()) else {
            panic!("refused")
        };
        assert!(
            e.starts_with(&format!("{}:2: not JSON: ", path.display())),
            "{e}"
        );
        let _ = std::fs::write(&path, "\n  \n");
        let Ok(blank) = Replayer::open(&path, Placeholders::default()) else {
            panic!("blank lines are skipped")
        };
        assert!(blank.is_empty());
        let line = "{\"request\": {}, \"response\": {}}\n";
        let _ = std::fs::write(&path, line.repeat(2));
        let Ok(two) = Replayer::open(&path, Placeholders::default()) else {
            panic!("two exchanges")
        };
        assert_eq!((two.len(), two.remaining()), (2, 2));
        assert_eq!(blank.recorded_model(), None);
        let missing = dir.path().join("missing.jsonl");
        let Err(e) = Replayer::open(&missing, Placeholders::default()) else {
            panic!("refused")
        };
        assert!(
            e.starts_with(&format!("cannot read cassette {}: ", missing.display())),
            "{e}"
        );
    }

    #[test]
    fn a_difference_names_its_place() {
        let a = json!({"messages": [{"role": "user", "content": "hello there"}]});
        let b = json!({"messages": [{"role": "user", "content": "hello world"}]});
        let d = first_difference(&a, &b, "").unwrap();
        assert!(
            d.starts_with("  at .messages[0].content (line 1 of the text):"),
            "{d}"
        );
        assert!(
            d.contains("\"hello there\"") && d.contains("\"hello world\""),
            "{d}"
        );
        assert_eq!(first_difference(&a, &a, ""), None);
    }

    #[test]
    fn every_kind_of_difference_is_named() {
        let diff = |a: Value, b: Value| first_difference(&a, &b, "");
        assert_eq!(
            diff(json!({"n": 1, "x": true}), json!({"n": 2, "x": true})).as_deref(),
            Some("  at .n:\n    recorded: 1\n    sent:     2")
        );
        assert_eq!(
            diff(json!({"a": [1, 2]}), json!({"a": [1, 2, 3]})).as_deref(),
            Some("  at .a: recorded 2 items, sent 3")
        );
        assert_eq!(
            diff(json!({"a": 1, "b": 2}), json!({"a": 1})).as_deref(),
            Some("  at .b: recorded 2, sent nothing")
        );
        assert_eq!(
            diff(json!({"a": 1}), json!({"a": 1, "tools": []})).as_deref(),
            Some("  at .tools: sent [], not in the recording")
        );
        assert_eq!(
            diff(json!(["a\nbc"]), json!(["a\nbd"])).as_deref(),
            Some(
                "  at [0] (line 2 of the text):\n    recorded: \"a\\nbc\"\n    sent:     \"a\\nbd\""
            )
        );
        assert_eq!(diff(json!([1, "s", null]), json!([1, "s", null])), None);
        let long = "x".repeat(150);
        let Some(shortened) = diff(json!(long), json!(1)) else {
            panic!("differs")
        };
        assert!(shortened.ends_with("…\n    sent:     1"), "{shortened}");
        assert_eq!(shortened.chars().filter(|&c| c == 'x').count(), 99);
        // Exactly 100 characters (98 and the quotes) are shown whole.
        let exact = "y".repeat(98);
        assert_eq!(
            diff(json!(exact), json!(1)),
            Some(format!(
                "  at :\n    recorded: \"{exact}\"\n    sent:     1"
            ))
        );
        // A long text is shown from 31 characters before the first difference, 80 of them.
        let side = |c: char| format!("{}{c}{}", "a".repeat(100), "z".repeat(100));
        let window = |c: char| format!("{:?}", format!("{}{c}{}", "a".repeat(31), "z".repeat(48)));
        assert_eq!(
            diff(json!(side('X')), json!(side('Y'))),
            Some(format!(
                "  at  (line 1 of the text):\n    recorded: {}\n    sent:     {}",
                window('X'),
                window('Y')
            ))
        );
    }

    #[test]
    fn outcomes_round_trip() {
        let c = Completion {
            content: Some("hi".into()),
            reasoning: None,
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: "t".into(),
                arguments: "{}".into(),
            }],
            finish_reason: Some("tool_calls".into()),
            usage: Some(Usage {
                input: 40,
                output: 20,
                cache_read: 60,
                cache_write: 0,
                reasoning: 7,
                prompt: 100,
            }),
        };
        let back = outcome_from_json(&outcome_json(&Ok(c.clone()))).unwrap();
        assert_eq!(back, c);
    }
}
