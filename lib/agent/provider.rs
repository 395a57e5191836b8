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
        Provider::start_in(spec, log, None)
    }

    /// Starts the program contained by `sandbox` (its environment the sandbox's allowlist).
    pub fn start_in(
        spec: &ProviderSpec,
        log: &Path,
        sandbox: Option<&crate::sandbox::Sandbox>,
    ) -> Result<Provider, String> {
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
        let mut command = Command::new(&spec.argv[0]);
        command
            .args(&spec.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(sandbox) = sandbox {
            command
                .env_clear()
                .envs(sandbox.child_env(std::env::vars()));
            sandbox
                .contain(&mut command, None)
                .map_err(|e| format!("cannot contain memory provider {}: {e}", spec.name))?;
        }
        let mut child = command.spawn().map_err(|e| {
            let why = sandbox.map_or_else(|| e.to_string(), |s| s.spawn_error(&e));
            format!(
                "cannot start memory provider {} ({}): {why}",
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
        if let Some(reply) = self.stray.remove(&id) {
            return Ok(answer_of(&reply));
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
                    return Ok(answer_of(&reply));
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
        // Half a second to exit on its own once its input is closed.
        for _ in 0..50 {
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

/// What a reply says: its `result`, or `{"error": message}` (a refused request is the
/// provider's answer, not a failure).
fn answer_of(reply: &Value) -> Value {
    match reply.get("error") {
        Some(err) => {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("error");
            json!({"error": message})
        }
        None => reply.get("result").cloned().unwrap_or(Value::Null),
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The fake provider script (testdata/agent/fake-provider.sh).
    pub(crate) fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/agent/fake-provider.sh")
    }

    /// config.yaml naming the fake provider `fake`, logging what it is sent to `log`.
    /// The fake provider logs what it is sent beside `log`, outside the home: its sandbox
    /// lets it write there because the config says so.
    pub(crate) fn config_for(log: &Path) -> String {
        format!(
            "memory:\n  provider: fake\n  providers:\n    fake:\n      command: [sh, '{}', '{}']\n      timeout: 5\n      writable: ['{}']\n",
            script().display(),
            log.display(),
            log.parent().unwrap_or(log).display()
        )
    }

    /// The lines the fake provider was sent, as JSON.
    pub(crate) fn sent(log: &Path) -> Vec<Value> {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect()
    }

    fn spec_of(home: &Home, yaml: &str) -> Result<Option<ProviderSpec>, String> {
        let config = match Config::from_bytes(yaml.as_bytes(), &home.root().join("config.yaml")) {
            Ok(c) => c,
            Err(e) => panic!("config: {e}"),
        };
        spec(home, &config)
    }

    fn temp() -> tempfile::TempDir {
        match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("temp dir: {e}"),
        }
    }

    #[test]
    fn the_spec_comes_from_the_config_or_the_plugin_folder() {
        let dir = temp();
        let home = Home::at(dir.path());
        assert_eq!(spec_of(&home, ""), Ok(None));
        assert_eq!(spec_of(&home, "memory: {provider: builtin}\n"), Ok(None));
        let listed = spec_of(
            &home,
            "memory:\n  provider: ' mem0 '\n  providers:\n    mem0:\n      command: [python3, '~/p.py', --fast]\n      timeout: 500\n",
        );
        let user_home = std::env::var("HOME").unwrap_or_default();
        assert_eq!(
            listed,
            Ok(Some(ProviderSpec {
                name: "mem0".into(),
                argv: vec![
                    "python3".into(),
                    format!("{user_home}/p.py"),
                    "--fast".into()
                ],
                timeout: Duration::from_secs(120),
            }))
        );
        let split = spec_of(
            &home,
            "memory:\n  provider: x\n  providers:\n    x:\n      command: 'run  it'\n      timeout: -1\n",
        );
        assert_eq!(
            split.ok().flatten().map(|s| (s.argv, s.timeout)),
            Some((
                vec!["run".to_string(), "it".to_string()],
                Duration::from_secs(8)
            ))
        );
        for (timeout, want) in [("0", 8.0), ("0.5", 0.5), (".nan", 8.0), ("soon", 8.0)] {
            let yaml = format!(
                "memory:\n  provider: x\n  providers:\n    x:\n      command: run\n      timeout: {timeout}\n"
            );
            assert_eq!(
                spec_of(&home, &yaml).ok().flatten().map(|s| s.timeout),
                Some(Duration::from_secs_f64(want)),
                "timeout: {timeout}"
            );
        }
        assert_eq!(
            spec_of(
                &home,
                "memory:\n  provider: x\n  providers:\n    x:\n      command: ' '\n"
            ),
            Err("memory.providers.x.command is empty".into())
        );
        let plugin = dir.path().join("plugins/y/provider");
        assert_eq!(
            spec_of(&home, "memory: {provider: y}\n"),
            Err(format!(
                "memory.provider is 'y' but neither memory.providers.y.command nor {} exists",
                plugin.display()
            ))
        );
        std::fs::create_dir_all(dir.path().join("plugins/y")).unwrap_or_default();
        std::fs::write(&plugin, "#!/bin/sh\n").unwrap_or_default();
        assert_eq!(
            spec_of(&home, "memory: {provider: y}\n")
                .ok()
                .flatten()
                .map(|s| s.argv),
            Some(vec![plugin.display().to_string()])
        );
    }

    fn fake(log: &Path, timeout: Duration) -> Provider {
        let spec = ProviderSpec {
            name: "fake".into(),
            argv: vec![
                "sh".into(),
                script().display().to_string(),
                log.display().to_string(),
            ],
            timeout,
        };
        match Provider::start(&spec, &log.with_extension("stderr")) {
            Ok(p) => p,
            Err(e) => panic!("start: {e}"),
        }
    }

    #[test]
    fn requests_are_answered_by_id_and_notifications_are_not() {
        let dir = temp();
        let log = dir.path().join("sent.jsonl");
        let mut p = fake(&log, Duration::from_secs(5));
        assert_eq!(
            p.request("prefetch", json!({"query": "q"})),
            Ok(json!({"context": "The user likes tea."}))
        );
        assert_eq!(p.notify("sync_turn", json!({"user": "u"})), None);
        assert_eq!(
            p.request("refuse", json!({})),
            Ok(json!({"error": "not today"}))
        );
        assert_eq!(p.request("stray", json!({})), Ok(json!("on time")));
        // The early answer to the next id is kept and given to that request.
        assert_eq!(p.request("unknown", json!({})), Ok(json!("late")));
        p.shutdown();
        assert_eq!(
            sent(&log),
            [
                json!({"id": 1, "method": "prefetch", "params": {"query": "q"}}),
                json!({"method": "sync_turn", "params": {"user": "u"}}),
                json!({"id": 2, "method": "refuse", "params": {}}),
                json!({"id": 3, "method": "stray", "params": {}}),
                json!({"id": 4, "method": "unknown", "params": {}}),
                json!({"id": 5, "method": "shutdown", "params": {}}),
            ]
        );
    }

    #[test]
    fn shutdown_waits_for_a_provider_to_exit_and_kills_one_that_will_not() {
        use std::os::unix::process::ExitStatusExt;
        let dir = temp();
        let log = dir.path().join("sent.jsonl");
        let mut lingering = fake(&log, Duration::from_secs(5));
        assert_eq!(lingering.request("linger", json!({})), Ok(Value::Null));
        lingering.shutdown();
        let status = lingering.child.try_wait().ok().flatten();
        assert_eq!(
            status.map(|s| (s.code(), s.signal())),
            Some((Some(0), None))
        );
        let mut stubborn = fake(&log, Duration::from_secs(5));
        assert_eq!(stubborn.request("stubborn", json!({})), Ok(Value::Null));
        stubborn.shutdown();
        let status = stubborn.child.try_wait().ok().flatten();
        assert_eq!(
            status.map(|s| (s.code(), s.signal())),
            Some((None, Some(libc::SIGKILL)))
        );
    }

    #[test]
    fn dropping_a_provider_ends_its_process() {
        let dir = temp();
        let log = dir.path().join("sent.jsonl");
        let mut p = fake(&log, Duration::from_secs(5));
        assert_eq!(p.request("stubborn", json!({})), Ok(Value::Null));
        let pid = p.child.id();
        drop(p);
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "{pid} lives on"
        );
    }

    #[test]
    fn a_silent_provider_is_dropped_once_with_a_notice() {
        let dir = temp();
        let log = dir.path().join("sent.jsonl");
        let mut p = fake(&log, Duration::from_millis(300));
        assert_eq!(
            p.request("slow", json!({})),
            Err(Some(
                "memory provider fake did not answer slow within 0.3 s; going on without it".into()
            ))
        );
        assert!(!p.alive());
        assert_eq!(
            p.failed.as_deref(),
            Some("did not answer slow within 0.3 s")
        );
        assert_eq!(p.request("prefetch", json!({})), Err(None));
        assert_eq!(p.notify("sync_turn", json!({})), None);
        p.shutdown();
        assert_eq!(sent(&log).len(), 1);
    }

    #[test]
    fn a_provider_that_exits_is_dropped_and_says_how() {
        let dir = temp();
        let log = dir.path().join("sent.jsonl");
        let mut p = fake(&log, Duration::from_secs(5));
        let Err(Some(notice)) = p.request("die", json!({})) else {
            panic!("the provider answered")
        };
        assert!(
            notice == "memory provider fake exited (exit status: 3); going on without it"
                || notice == "memory provider fake closed its output; going on without it",
            "{notice}"
        );
        assert!(!p.alive());
        let spec = ProviderSpec {
            name: "nope".into(),
            argv: vec!["/nonexistent/provider".into()],
            timeout: Duration::from_secs(1),
        };
        let Err(e) = Provider::start(&spec, &log) else {
            panic!("started nothing")
        };
        assert!(
            e.starts_with("cannot start memory provider nope (/nonexistent/provider): "),
            "{e}"
        );
    }

    #[test]
    fn text_is_a_string_result_or_its_field() {
        assert_eq!(text_of(&json!("plain"), "block"), "plain");
        assert_eq!(text_of(&json!({"block": "b"}), "block"), "b");
        assert_eq!(text_of(&json!({"block": 1}), "block"), "");
        assert_eq!(text_of(&Value::Null, "block"), "");
    }
}
