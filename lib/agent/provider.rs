//! An external memory provider as a program (docs/memory-providers.md): hermes-chat starts
//! the one named in `memory.provider` and talks JSONL with it over stdin/stdout, so a
//! provider can be written in any language.
//!
//! Requests are `{"id": N, "method": …, "params": {…}}` and wait for `{"id": N, "result": …}`
//! (or `"error"`) up to a timeout; notifications (`sync_turn`, `on_memory_write`) carry no id
//! and get no answer. A provider that times out, answers garbage, or exits is dropped: the
//! session goes on without it and says so once.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::home::{Config, Home};

/// How to start the provider, from config.yaml.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSpec {
    pub name: String,
    pub argv: Vec<String>,
    /// Per request; `prefetch` gets this, the others the same.
    pub timeout: Duration,
}

/// `memory.provider: NAME` with `memory.providers.NAME.command` (a list, or a string split on
/// whitespace) and optional `timeout` (seconds, 8), else the executable
/// `$HERMES_HOME/plugins/NAME/provider`. `None` when no provider is configured.
pub fn spec(home: &Home, config: &Config) -> Result<Option<ProviderSpec>, String> {
    let name = config.memory.provider.trim().to_string();
    if name.is_empty() || name == "builtin" {
        return Ok(None);
    }
    let raw = config.raw();
    let entry = raw.get_path(&["memory", "providers", &name]);
    let argv: Vec<String> = match entry.and_then(|e| e.get("command")) {
        Some(v) if v.as_seq().is_some() => v
            .as_seq()
            .unwrap_or_default()
            .iter()
            .map(|a| crate::home::expand_user(&a.py_str()))
            .collect(),
        Some(v) => v
            .py_str()
            .split_whitespace()
            .map(crate::home::expand_user)
            .collect(),
        None => {
            let program = home.root().join("plugins").join(&name).join("provider");
            if !program.is_file() {
                return Err(format!(
                    "memory.provider is '{name}' but neither memory.providers.{name}.command nor {} exists",
                    program.display()
                ));
            }
            vec![program.display().to_string()]
        }
    };
    if argv.is_empty() {
        return Err(format!("memory.providers.{name}.command is empty"));
    }
    let timeout = entry
        .and_then(|e| e.get("timeout"))
        .and_then(crate::home::config::py_float)
        .filter(|t| t.is_finite() && *t > 0.0)
        .unwrap_or(8.0);
    Ok(Some(ProviderSpec {
        name,
        argv,
        timeout: Duration::from_secs_f64(timeout.min(120.0)),
    }))
}

/// A running provider.
pub struct Provider {
    pub name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<Value>,
    /// Answers that arrived for requests that had already timed out.
    stray: HashMap<u64, Value>,
    next_id: u64,
    timeout: Duration,
    /// Why it was dropped, once it is.
    pub failed: Option<String>,
}

impl Provider {
    /// Starts the program; its stderr goes to `log` (appended).
    pub fn start(spec: &ProviderSpec, log: &Path) -> Result<Provider, String> {
        let stderr = log
            .parent()
            .and_then(|d| std::fs::create_dir_all(d).ok())
            .and_then(|_| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .ok()
            })
            .map_or(Stdio::null(), Stdio::from);
        let mut child = Command::new(&spec.argv[0])
            .args(&spec.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| {
                format!(
                    "cannot start memory provider {} ({}): {e}",
                    spec.name, spec.argv[0]
                )
            })?;
        let stdout = child.stdout.take().ok_or("the provider has no stdout")?;
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Ok(Provider {
            name: spec.name.clone(),
            child,
            stdin,
            replies: rx,
            stray: HashMap::new(),
            next_id: 0,
            timeout: spec.timeout,
            failed: None,
        })
    }

    pub fn alive(&self) -> bool {
        self.failed.is_none()
    }

    /// Drops the provider; returns the one-line notice the first time.
    fn fail(&mut self, why: String) -> Option<String> {
        if self.failed.is_some() {
            return None;
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stdin = None;
        let notice = format!("memory provider {} {why}; going on without it", self.name);
        self.failed = Some(why);
        Some(notice)
    }

    fn write(&mut self, message: &Value) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("is not running")?;
        writeln!(stdin, "{message}")
            .and_then(|_| stdin.flush())
            .map_err(|_| "exited".to_string())
    }

    /// One request; `Err(Some(notice))` the first time the provider is dropped.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Option<String>> {
        if !self.alive() {
            return Err(None);
        }
        self.next_id += 1;
        let id = self.next_id;
        if let Err(why) = self.write(&json!({"id": id, "method": method, "params": params})) {
            return Err(self.fail(why));
        }
        if let Some(v) = self.stray.remove(&id) {
            return Ok(v);
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.replies.recv_timeout(left) {
                Ok(reply) => {
                    let reply_id = reply.get("id").and_then(Value::as_u64);
                    if reply_id != Some(id) {
                        if let Some(other) = reply_id {
                            self.stray.insert(other, reply);
                        }
                        continue;
                    }
                    if let Some(err) = reply.get("error") {
                        // A refused request is the provider's answer, not a failure.
                        let message = err
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("error");
                        return Ok(json!({"error": message}));
                    }
                    return Ok(reply.get("result").cloned().unwrap_or(Value::Null));
                }
                Err(RecvTimeoutError::Timeout) => {
                    let secs = self.timeout.as_secs_f64();
                    return Err(self.fail(format!("did not answer {method} within {secs} s")));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.try_wait().ok().flatten();
                    let why = match status {
                        Some(s) => format!("exited ({s})"),
                        None => "closed its output".to_string(),
                    };
                    return Err(self.fail(why));
                }
            }
        }
    }

    /// A notification: sent, not answered.
    pub fn notify(&mut self, method: &str, params: Value) -> Option<String> {
        if !self.alive() {
            return None;
        }
        match self.write(&json!({"method": method, "params": params})) {
            Ok(()) => None,
            Err(why) => self.fail(why),
        }
    }

    /// Asks it to stop, then makes sure it has.
    pub fn shutdown(&mut self) {
        if self.alive() {
            let timeout = self.timeout;
            self.timeout = timeout.min(Duration::from_secs(2));
            let _ = self.request("shutdown", json!({}));
        }
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A string field of a result object (`{"block": "…"}`), or the result itself when a string.
pub fn text_of(result: &Value, key: &str) -> String {
    match result {
        Value::String(s) => s.clone(),
        other => other
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}
