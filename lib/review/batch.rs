//! `hermes-review --batch`: many stored sessions, one review each (its own budget, its own
//! request), up to `-j` at a time, so a user can bootstrap memory and skills from months of
//! old sessions (`hermes-index export | hermes-review --batch`).
//!
//! Resumable: every review that finishes is appended to `$HERMES_HOME/review/reviewed.jsonl`
//! as it finishes, and a later batch skips the sessions listed there unless `--again`. A
//! failed review is not listed, so the next run tries it again. Records come out in input
//! order whatever order the workers finish in.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use serde_json::{Map, Value, json};

use super::input::Conversation;
use super::run::{self, Report, ScratchHome, Setup};
use crate::home::Home;
use crate::llm::{Completion, Delta, LlmError, Transport};

/// Where the transports of a batch come from: one per review for HTTP (reviews run in
/// parallel), or one shared cassette (reviews then run one at a time, in input order).
pub enum Source {
    Shared(Arc<Mutex<Box<dyn Transport>>>),
    Fresh(Box<dyn Fn() -> anyhow::Result<Box<dyn Transport>> + Send + Sync>),
}

struct SharedTransport(Arc<Mutex<Box<dyn Transport>>>);

impl Transport for SharedTransport {
    fn call(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Completion, LlmError> {
        match self.0.lock() {
            Ok(mut inner) => inner.call(body, on_delta),
            Err(_) => Err(LlmError::BadResponse("the shared transport failed".into())),
        }
    }

    fn set_placeholder(&mut self, name: &str, value: &str) {
        if let Ok(mut inner) = self.0.lock() {
            inner.set_placeholder(name, value);
        }
    }
}

impl Source {
    /// The transport of a single review.
    pub fn make_one(&self) -> anyhow::Result<Box<dyn Transport>> {
        self.make()
    }

    fn make(&self) -> anyhow::Result<Box<dyn Transport>> {
        match self {
            Source::Shared(t) => Ok(Box::new(SharedTransport(t.clone()))),
            Source::Fresh(f) => f(),
        }
    }

    /// Parallel reviews are only possible with fresh transports.
    pub fn parallel(&self) -> bool {
        matches!(self, Source::Fresh(_))
    }
}

/// The resume file.
pub fn state_path(home: &Home) -> PathBuf {
    home.root().join("review").join("reviewed.jsonl")
}

/// Session keys already reviewed (unreadable lines are ignored: the worst case is a second
/// review of a session).
pub fn reviewed(path: &Path) -> HashSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("session").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// A session's key: its id, else a hash of its messages.
pub fn key(conversation: &Conversation) -> String {
    match &conversation.session_id {
        Some(id) => id.clone(),
        None => {
            let text: String = conversation
                .messages
                .iter()
                .map(|m| m.to_line().to_string())
                .collect();
            format!("fnv:{:016x}", crate::agent::session::fnv(&text))
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub sessions: usize,
    pub reviewed: usize,
    pub skipped: usize,
    pub failed: usize,
    pub writes: u64,
    pub requests: u64,
    pub bytes_sent: u64,
}

impl Totals {
    pub fn record(&self) -> Value {
        json!({"type": "batch", "sessions": self.sessions, "reviewed": self.reviewed,
            "skipped": self.skipped, "failed": self.failed, "writes": self.writes,
            "requests": self.requests, "bytes_sent": self.bytes_sent})
    }
}

/// The records of one review, each carrying the session first.
fn tagged(key: &str, report: &Report) -> Vec<Value> {
    report
        .records
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("session".into(), json!(key));
            if let Some(obj) = r.as_object() {
                m.extend(obj.clone());
            }
            Value::Object(m)
        })
        .collect()
}

/// Reviews `sessions`; `emit` gets every record in input order.
pub fn run(
    setup: &Setup,
    sessions: &[Conversation],
    source: &Source,
    jobs: usize,
    again: bool,
    emit: &mut dyn FnMut(&Value) -> std::io::Result<()>,
) -> anyhow::Result<Totals> {
    let state = state_path(&setup.home);
    let done = if again {
        HashSet::new()
    } else {
        reviewed(&state)
    };
    let mut totals = Totals {
        sessions: sessions.len(),
        ..Totals::default()
    };
    let todo: Vec<usize> = (0..sessions.len())
        .filter(|&i| {
            let skip = done.contains(&key(&sessions[i])) || sessions[i].messages.is_empty();
            if skip {
                totals.skipped += 1;
            }
            !skip
        })
        .collect();
    let jobs = if source.parallel() { jobs.max(1) } else { 1 };
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<Report>)>();
    if let Some(dir) = state.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut state_file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&state)?;
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..jobs.min(todo.len().max(1)) {
            let tx = tx.clone();
            let (next, todo) = (&next, &todo);
            scope.spawn(move || {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(n) else { break };
                    let result = (|| {
                        let transport = source.make()?;
                        let scratch = if setup.propose {
                            Some(ScratchHome::copy_of(&setup.home)?)
                        } else {
                            None
                        };
                        run::review(setup, &sessions[i], transport, scratch.as_ref())
                    })();
                    if tx.send((n, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Reorder: print review n once every review before it has been printed.
        let mut waiting: BTreeMap<usize, anyhow::Result<Report>> = BTreeMap::new();
        let mut printed = 0;
        for (n, result) in rx {
            waiting.insert(n, result);
            while let Some(result) = waiting.remove(&printed) {
                let conversation = &sessions[todo[printed]];
                let key = key(conversation);
                match result {
                    Ok(report) => {
                        for record in tagged(&key, &report) {
                            emit(&record)?;
                        }
                        if let Some(summary) = report.records.last() {
                            let n = |k: &str| summary.get(k).and_then(Value::as_u64).unwrap_or(0);
                            totals.writes += n("writes");
                            totals.requests += n("requests");
                            totals.bytes_sent += n("bytes_sent");
                        }
                        if report.failure.is_some() {
                            totals.failed += 1;
                        } else {
                            totals.reviewed += 1;
                            if !setup.propose {
                                let line = json!({"session": key,
                                    "reviewed_at": jiff::Timestamp::from_microsecond((setup.clock.now() * 1e6) as i64)
                                        .map(|t| t.to_string()).unwrap_or_default()});
                                writeln!(state_file, "{line}")?;
                            }
                        }
                    }
                    Err(e) => {
                        totals.failed += 1;
                        emit(&json!({"session": key, "type": "summary", "line": null,
                            "error": crate::io::exit::chain_text(&e)}))?;
                    }
                }
                printed += 1;
            }
        }
        Ok(())
    })?;
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::testing::{Scripted, answer, tool_call};
    use crate::review::run::tests::{conversation, setup};

    /// A model per review: the first session's review saves a memory, the third's fails.
    fn source() -> Source {
        let made = std::sync::atomic::AtomicUsize::new(0);
        Source::Fresh(Box::new(move || {
            let script = match made.fetch_add(1, Ordering::SeqCst) {
                0 => vec![
                    tool_call(
                        "memory",
                        r#"{"action": "add", "target": "user", "content": "Answers in French."}"#,
                    ),
                    answer("Saved."),
                ],
                _ => vec![],
            };
            Ok(Box::new(Scripted::new(script)) as Box<dyn Transport>)
        }))
    }

    #[test]
    fn a_batch_counts_reviews_skips_and_failures_and_resumes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let setup = setup(dir.path());
        let empty = Conversation {
            session_id: Some("s2".into()),
            system_prompt: None,
            messages: Vec::new(),
        };
        let mut failing = conversation();
        failing.session_id = Some("s3".into());
        let sessions = [conversation(), empty, failing];
        let mut emitted = Vec::new();
        let Ok(totals) = run(&setup, &sessions, &source(), 1, false, &mut |r| {
            emitted.push(r.clone());
            Ok(())
        }) else {
            panic!("the batch runs")
        };
        assert_eq!(
            (
                totals.sessions,
                totals.reviewed,
                totals.skipped,
                totals.failed,
                totals.writes
            ),
            (3, 1, 1, 1, 1)
        );
        assert_eq!(totals.requests, 3, "two for s1, one for s3");
        let sessions_of: Vec<(&str, &str)> = emitted
            .iter()
            .map(|r| {
                (
                    r["session"].as_str().unwrap_or(""),
                    r["type"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            sessions_of,
            [("s1", "action"), ("s1", "summary"), ("s3", "summary")]
        );
        assert_eq!(
            emitted[2]["error"],
            "the endpoint sent something that is not a chat completion: script ended"
        );
        let Ok(state) = std::fs::read_to_string(state_path(&setup.home)) else {
            panic!("the resume file")
        };
        assert_eq!(
            state,
            "{\"session\":\"s1\",\"reviewed_at\":\"2026-05-28T20:26:40Z\"}\n"
        );
        // Again, with a model that now answers: s1 is done and s2 still empty, so only s3
        // is reviewed.
        let Ok(again) = run(&setup, &sessions, &source(), 1, false, &mut |_| Ok(())) else {
            panic!("the batch runs again")
        };
        assert_eq!(
            (again.sessions, again.reviewed, again.skipped, again.failed),
            (3, 1, 2, 0)
        );
        assert_eq!(reviewed(&state_path(&setup.home)).len(), 2);
        assert_eq!(
            totals.record()["sessions"],
            3,
            "the batch record carries the totals"
        );
    }

    /// Every layer passes a placeholder on to the cassette underneath.
    #[test]
    fn placeholders_reach_the_shared_transport_through_every_wrapper() {
        let cassette = Scripted::new(vec![Err(LlmError::EmptyStream)]);
        let noted = cassette.placeholders();
        let shared = Source::Shared(Arc::new(Mutex::new(
            Box::new(cassette) as Box<dyn Transport>
        )));
        let Ok(one) = shared.make_one() else {
            panic!("a transport")
        };
        let (mut counting, _) = crate::review::transport::Counting::new(one);
        counting.set_placeholder("hermes_home", "/h");
        assert_eq!(
            noted.lock().expect("noted").as_slice(),
            [("hermes_home".to_string(), "/h".to_string())]
        );
        let answer = counting.call(&Value::Null, &mut |_| {});
        assert!(matches!(answer, Err(LlmError::EmptyStream)));
    }

    /// A cassette is one transport shared in order; a model that cannot be reached is a
    /// failed review with its reason, and the batch goes on.
    #[test]
    fn a_shared_transport_serves_every_review_and_a_missing_one_fails_each() {
        let dir = tempfile::tempdir().expect("tempdir");
        let setup = setup(dir.path());
        let mut second = conversation();
        second.session_id = Some("s2".into());
        let sessions = [conversation(), second];
        let model = Scripted::new(vec![answer("Nothing to save."), answer("Nothing to save.")]);
        let bodies = model.bodies();
        let shared = Source::Shared(Arc::new(Mutex::new(Box::new(model) as Box<dyn Transport>)));
        assert!(!shared.parallel());
        let Ok(totals) = run(&setup, &sessions, &shared, 4, false, &mut |_| Ok(())) else {
            panic!("the batch runs")
        };
        assert_eq!((totals.reviewed, totals.failed, totals.requests), (2, 0, 2));
        let sent: u64 = bodies
            .lock()
            .expect("bodies")
            .iter()
            .map(|b| serde_json::to_vec(b).map_or(0, |v| v.len() as u64))
            .sum();
        assert_eq!(totals.bytes_sent, sent);

        let down = Source::Fresh(Box::new(|| anyhow::bail!("no model is configured")));
        assert!(down.parallel());
        let mut emitted = Vec::new();
        let Ok(totals) = run(&setup, &sessions, &down, 2, true, &mut |r| {
            emitted.push(r.clone());
            Ok(())
        }) else {
            panic!("the batch runs")
        };
        assert_eq!((totals.reviewed, totals.failed), (0, 2));
        assert_eq!(
            emitted[0],
            json!({"session": "s1", "type": "summary", "line": null,
                "error": "no model is configured"})
        );
    }
}
