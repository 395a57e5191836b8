//! The review trigger (reference `loop` §1.1, `agent` §3.9): two counters decide when a turn's
//! conversation is handed to `hermes-review`, a separate process, so the chat never waits on
//! learning unless asked to (`--review-wait`).
//!
//! What we count as a "tool iteration": a model call that answered with tool calls. Hermes
//! counts every loop pass (a plain answer, an empty-response retry, a continuation), so ten
//! one-line questions trigger a skill review; we count the work that could have produced a
//! procedure worth keeping (docs/decisions.md).
//!
//! The conversation is always written first, to `$HERMES_HOME/pending/review/<session>-<n>.jsonl`:
//! a review is never dropped. When `hermes-review` is installed it is started on that file;
//! when it is not, the file waits for it and the run says so.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::settings::AgentSettings;
use crate::io::atomic::{FileMode, write_atomic};
use crate::llm::{Message, Role};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counters {
    memory_interval: i64,
    skill_interval: i64,
    pub turns_since_memory: i64,
    pub iterations_since_skill: i64,
}

/// Which reviews a turn is due.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Due {
    pub memory: bool,
    pub skills: bool,
}

impl Due {
    pub fn any(self) -> bool {
        self.memory || self.skills
    }
}

impl Counters {
    pub fn new(settings: &AgentSettings) -> Counters {
        Counters {
            memory_interval: settings.memory_nudge_interval,
            skill_interval: settings.skill_nudge_interval,
            turns_since_memory: 0,
            iterations_since_skill: 0,
        }
    }

    /// After a resume: the memory counter goes on from the stored user turns.
    pub fn hydrate(&mut self, history: &[Message], memory_interval: i64) {
        if memory_interval > 0 && self.turns_since_memory == 0 {
            let turns = history.iter().filter(|m| m.is(Role::User)).count() as i64;
            self.turns_since_memory = turns % memory_interval;
        }
    }

    /// At the start of a turn: counts it and says whether a memory review is due.
    pub fn start_turn(&mut self, memory_tool: bool) -> bool {
        if self.memory_interval <= 0 || !memory_tool {
            return false;
        }
        self.turns_since_memory += 1;
        if self.turns_since_memory >= self.memory_interval {
            self.turns_since_memory = 0;
            return true;
        }
        false
    }

    pub fn tool_iteration(&mut self) {
        self.iterations_since_skill += 1;
    }

    pub fn memory_used(&mut self) {
        self.turns_since_memory = 0;
    }

    pub fn skills_used(&mut self) {
        self.iterations_since_skill = 0;
    }

    /// At the end of a turn: whether a skill review is due.
    pub fn end_turn(&mut self, skill_tool: bool) -> bool {
        if self.skill_interval <= 0 || !skill_tool {
            return false;
        }
        if self.iterations_since_skill >= self.skill_interval {
            self.iterations_since_skill = 0;
            return true;
        }
        false
    }
}

/// A review handed off: where its input is, and the process if one was started.
pub struct Handoff {
    pub input: PathBuf,
    pub child: Option<Child>,
    /// Why no process was started, when none was.
    pub queued_reason: Option<String>,
}

/// Writes the conversation for the review and starts `reviewer` (the `hermes-review` program,
/// [`reviewer_in`]) on it, when there is one, with `env` (the chat's model) in its
/// environment. Hand-off files older than a week are pruned first
/// ([`crate::review::handoff::STALE_AFTER`]); `hermes-review` removes each one it finished.
#[allow(clippy::too_many_arguments)]
pub fn hand_off(
    pending_dir: &Path,
    session_id: &str,
    lines: &[Value],
    due: Due,
    home: &Path,
    reviewer: Option<&Path>,
    env: &[(&str, String)],
    capture_output: bool,
) -> std::io::Result<Handoff> {
    crate::review::handoff::prune_stale(pending_dir, std::time::SystemTime::now());
    std::fs::create_dir_all(pending_dir)?;
    let mut n = 1;
    let input = loop {
        let candidate = pending_dir.join(format!("{session_id}-{n}.jsonl"));
        if !candidate.exists() {
            break candidate;
        }
        n += 1;
    };
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    write_atomic(&input, text.as_bytes(), FileMode::Private)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let Some(program) = reviewer else {
        return Ok(Handoff {
            input,
            child: None,
            queued_reason: Some(
                "hermes-review is not installed; the conversation waits for it".into(),
            ),
        });
    };
    let mut command = Command::new(program);
    command
        .arg("--home")
        .arg(home)
        .arg(&input)
        .args(kind_flags(due))
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    command.stdin(Stdio::null());
    if capture_output {
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
    } else {
        command.stdout(Stdio::null()).stderr(Stdio::null());
    }
    match command.spawn() {
        Ok(child) => Ok(Handoff {
            input,
            child: Some(child),
            queued_reason: None,
        }),
        Err(e) => Ok(Handoff {
            input,
            child: None,
            queued_reason: Some(format!(
                "hermes-review could not start ({e}); the conversation waits for it"
            )),
        }),
    }
}

/// The flag that narrows a review to the kind that is due (none when both are).
fn kind_flags(due: Due) -> &'static [&'static str] {
    match (due.memory, due.skills) {
        (false, _) => &["--skills"],
        (true, false) => &["--memory"],
        (true, true) => &[],
    }
}

/// `hermes-review` in `exe_dir` (the folder of the running binary), else in the first folder
/// of `path_var` (a `PATH` value) that has it.
pub fn reviewer_in(exe_dir: Option<&Path>, path_var: Option<&OsStr>) -> Option<PathBuf> {
    const NAME: &str = "hermes-review";
    exe_dir
        .map(|dir| dir.join(NAME))
        .filter(|p| p.is_file())
        .or_else(|| {
            std::env::split_paths(path_var?)
                .map(|dir| dir.join(NAME))
                .find(|p| p.is_file())
        })
}

/// What a finished review printed: its actions, its summary line, and why it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub actions: Vec<Value>,
    pub summary: Option<String>,
    pub error: Option<String>,
}

/// Reads a finished `hermes-review`: the summary record's `error`, else, for a run that
/// ended without one (a setup error such as no model), the last line it wrote on stderr.
pub fn finished(stdout: &str, stderr: &str, succeeded: bool) -> Finished {
    let records: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let actions = records
        .iter()
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("action"))
        .cloned()
        .collect();
    let summary_record = records
        .iter()
        .rev()
        .find(|v| v.get("type").and_then(Value::as_str) == Some("summary"));
    let mut error = summary_record
        .and_then(|r| r.get("error"))
        .and_then(Value::as_str)
        .map(str::to_string);
    if error.is_none() && !succeeded {
        let said = stderr
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("hint:"))
            .map(|l| {
                let l = l.strip_prefix("hermes-review: ").unwrap_or(l);
                let l = l.strip_prefix("error: ").unwrap_or(l);
                l.strip_prefix("review failed: ").unwrap_or(l).to_string()
            });
        error = Some(said.unwrap_or_else(|| "hermes-review failed without a word".into()));
    }
    Finished {
        actions,
        summary: summary_line(stdout),
        error,
    }
}

/// The summary line of a finished review: the `summary` record's `line`, else nothing.
pub fn summary_line(stdout: &str) -> Option<String> {
    stdout.lines().rev().find_map(|l| {
        let v: Value = serde_json::from_str(l).ok()?;
        (v.get("type")?.as_str()? == "summary")
            .then(|| v.get("line").and_then(Value::as_str).map(str::to_string))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(memory: i64, skill: i64) -> Counters {
        Counters {
            memory_interval: memory,
            skill_interval: skill,
            turns_since_memory: 0,
            iterations_since_skill: 0,
        }
    }

    #[test]
    fn memory_review_every_tenth_turn_unless_memory_was_used() {
        let mut c = counters(10, 10);
        let fired: Vec<bool> = (0..20).map(|_| c.start_turn(true)).collect();
        assert_eq!(fired.iter().filter(|f| **f).count(), 2);
        assert!(fired[9] && fired[19]);
        for _ in 0..9 {
            c.start_turn(true);
        }
        c.memory_used();
        assert!(!c.start_turn(true));
    }

    #[test]
    fn skill_review_after_ten_tool_iterations() {
        let mut c = counters(10, 3);
        c.tool_iteration();
        c.tool_iteration();
        assert!(!c.end_turn(true));
        c.tool_iteration();
        assert!(c.end_turn(true));
        assert_eq!(c.iterations_since_skill, 0);
        assert!(!counters(10, 0).end_turn(true));
    }

    #[test]
    fn a_resume_carries_the_memory_count_on() {
        let mut c = counters(10, 10);
        let history: Vec<Message> = (0..13).map(|i| Message::user(format!("q{i}"))).collect();
        c.hydrate(&history, 10);
        assert_eq!(c.turns_since_memory, 3);
    }

    #[test]
    fn the_conversation_is_written_even_without_a_reviewer() {
        let dir = tempfile::tempdir().unwrap();
        let lines = vec![serde_json::json!({"role": "user", "content": "hi"})];
        let h = hand_off(
            &dir.path().join("pending/review"),
            "s1",
            &lines,
            Due {
                memory: true,
                skills: false,
            },
            dir.path(),
            None,
            &[],
            false,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(&h.input).unwrap(),
            "{\"role\":\"user\",\"content\":\"hi\"}\n"
        );
        assert!(h.input.ends_with("s1-1.jsonl"));
    }

    #[test]
    fn the_summary_line_is_read_from_the_last_record() {
        let out = "{\"type\":\"action\"}\n{\"type\":\"summary\",\"line\":\"💾 Self-improvement review: Memory updated\"}\n";
        assert_eq!(
            summary_line(out).as_deref(),
            Some("💾 Self-improvement review: Memory updated")
        );
    }

    #[test]
    fn nothing_is_counted_without_the_tool_or_the_interval() {
        let mut c = counters(2, 2);
        assert!(!c.start_turn(false));
        assert!(!c.start_turn(false));
        assert_eq!(c.turns_since_memory, 0);
        assert!(!c.start_turn(true));
        assert!(c.start_turn(true));
        let mut off = counters(0, 0);
        assert!(!off.start_turn(true));
        assert_eq!(off.turns_since_memory, 0);
        let mut c = counters(2, 1);
        c.tool_iteration();
        assert!(!c.end_turn(false));
        assert_eq!(c.iterations_since_skill, 1);
        c.skills_used();
        assert!(!c.end_turn(true));
        c.tool_iteration();
        c.tool_iteration();
        assert!(c.end_turn(true));
    }

    #[test]
    fn a_resume_keeps_a_count_already_going_and_ignores_a_zero_interval() {
        let history: Vec<Message> = (0..3).map(|i| Message::user(format!("q{i}"))).collect();
        let mut c = counters(10, 10);
        c.turns_since_memory = 1;
        c.hydrate(&history, 10);
        assert_eq!(c.turns_since_memory, 1);
        let mut off = counters(0, 10);
        off.hydrate(&history, 0);
        assert_eq!(off.turns_since_memory, 0);
        let mut mixed = counters(2, 10);
        let with_answers: Vec<Message> = history
            .iter()
            .cloned()
            .chain([Message::assistant("a")])
            .collect();
        mixed.hydrate(&with_answers, 2);
        assert_eq!(mixed.turns_since_memory, 1);
    }

    #[test]
    fn due_reviews_and_their_flags() {
        let due = |memory, skills| Due { memory, skills };
        assert!(!due(false, false).any());
        assert!(due(true, false).any() && due(false, true).any());
        assert_eq!(kind_flags(due(true, true)), [] as [&str; 0]);
        assert_eq!(kind_flags(due(true, false)), ["--memory"]);
        assert_eq!(kind_flags(due(false, true)), ["--skills"]);
    }

    #[test]
    fn each_handoff_gets_its_own_file() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let pending = dir.path().join("pending/review");
        let due = Due {
            memory: true,
            skills: true,
        };
        let lines = vec![serde_json::json!({"role": "user", "content": "hi"})];
        let first = hand_off(&pending, "s1", &lines, due, dir.path(), None, &[], false);
        let second = hand_off(&pending, "s1", &[], due, dir.path(), None, &[], false);
        let (Ok(first), Ok(second)) = (first, second) else {
            panic!("hand off")
        };
        assert!(first.input.ends_with("s1-1.jsonl"));
        assert!(second.input.ends_with("s1-2.jsonl"));
        assert_eq!(
            std::fs::read_to_string(&second.input).ok().as_deref(),
            Some("")
        );
        assert!(first.child.is_none());
        assert_eq!(
            first.queued_reason.as_deref(),
            Some("hermes-review is not installed; the conversation waits for it")
        );
    }

    /// An executable `hermes-review` in `dir` that prints its arguments, one a line.
    fn fake_reviewer(dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let program = dir.join("hermes-review");
        std::fs::write(&program, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n").unwrap_or_default();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_default();
        program
    }

    #[test]
    fn the_reviewer_is_started_on_the_input_for_the_kind_that_is_due() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let program = fake_reviewer(dir.path());
        let pending = dir.path().join("pending");
        let home = dir.path().join("home");
        for (memory, skills, flag) in [
            (true, false, "--memory\n"),
            (false, true, "--skills\n"),
            (true, true, ""),
        ] {
            let due = Due { memory, skills };
            let Ok(handoff) = hand_off(&pending, "s", &[], due, &home, Some(&program), &[], true)
            else {
                panic!("hand off")
            };
            assert_eq!(handoff.queued_reason, None);
            let Some(output) = handoff.child.and_then(|c| c.wait_with_output().ok()) else {
                panic!("no reviewer ran")
            };
            assert_eq!(
                String::from_utf8_lossy(&output.stdout),
                format!(
                    "--home\n{}\n{}\n{flag}",
                    home.display(),
                    handoff.input.display()
                )
            );
        }
        // Not captured: the reviewer's output goes nowhere.
        let due = Due {
            memory: true,
            skills: true,
        };
        let Ok(quiet) = hand_off(&pending, "s", &[], due, &home, Some(&program), &[], false) else {
            panic!("hand off")
        };
        let Some(output) = quiet.child.and_then(|c| c.wait_with_output().ok()) else {
            panic!("no reviewer ran")
        };
        assert_eq!(output.stdout, b"");
        let not_executable = dir.path().join("pending/s-1.jsonl");
        let Ok(failed) = hand_off(
            &pending,
            "s",
            &[],
            due,
            &home,
            Some(&not_executable),
            &[],
            false,
        ) else {
            panic!("hand off")
        };
        assert!(failed.child.is_none());
        assert!(
            failed
                .queued_reason
                .as_deref()
                .is_some_and(|r| r.starts_with("hermes-review could not start (")
                    && r.ends_with("); the conversation waits for it")),
            "{:?}",
            failed.queued_reason
        );
    }

    #[test]
    fn the_reviewer_is_found_beside_the_binary_before_on_path() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let beside = dir.path().join("bin");
        let on_path = dir.path().join("path2");
        let empty = dir.path().join("path1");
        for d in [&beside, &on_path, &empty] {
            std::fs::create_dir_all(d).unwrap_or_default();
        }
        let path_var = std::env::join_paths([&empty, &on_path]).unwrap_or_default();
        assert_eq!(reviewer_in(Some(&beside), Some(&path_var)), None);
        let found_on_path = fake_reviewer(&on_path);
        assert_eq!(
            reviewer_in(Some(&beside), Some(&path_var)),
            Some(found_on_path.clone())
        );
        assert_eq!(reviewer_in(None, Some(&path_var)), Some(found_on_path));
        let found_beside = fake_reviewer(&beside);
        assert_eq!(
            reviewer_in(Some(&beside), Some(&path_var)),
            Some(found_beside.clone())
        );
        assert_eq!(reviewer_in(Some(&beside), None), Some(found_beside));
        assert_eq!(reviewer_in(Some(&empty), None), None);
        // A folder of that name is not the program.
        std::fs::create_dir_all(empty.join("hermes-review")).unwrap_or_default();
        assert_eq!(reviewer_in(Some(&empty), None), None);
    }

    #[test]
    fn a_failed_review_is_told_by_its_summary_or_else_by_its_last_words() {
        let action = r#"{"type":"action","tool":"memory"}"#;
        let failed_call = format!(
            "{action}\n{}\n",
            r#"{"type":"summary","line":null,"error":"HTTP 500: boom"}"#
        );
        assert_eq!(
            finished(
                &failed_call,
                "hermes-review: review failed: HTTP 500: boom\n",
                false
            ),
            Finished {
                actions: vec![serde_json::json!({"type": "action", "tool": "memory"})],
                summary: None,
                error: Some("HTTP 500: boom".into()),
            }
        );
        let setup = "hermes-review: error: no model configured\nhint: pass --model\n";
        assert_eq!(
            finished("", setup, false).error.as_deref(),
            Some("no model configured")
        );
        assert_eq!(
            finished("", "", false).error.as_deref(),
            Some("hermes-review failed without a word")
        );
        let ok = r#"{"type":"summary","line":"💾 Self-improvement review: Memory updated","error":null}"#;
        assert_eq!(
            finished(ok, "", true),
            Finished {
                actions: vec![],
                summary: Some("💾 Self-improvement review: Memory updated".into()),
                error: None,
            }
        );
    }

    #[test]
    fn only_a_summary_record_with_a_line_counts() {
        assert_eq!(summary_line(""), None);
        assert_eq!(summary_line("{\"type\":\"summary\"}\n"), None);
        assert_eq!(
            summary_line(
                "{\"type\":\"summary\",\"line\":\"a\"}\n{\"type\":\"action\"}\nnot json\n"
            )
            .as_deref(),
            Some("a")
        );
        assert_eq!(
            summary_line(
                "{\"type\":\"summary\",\"line\":\"old\"}\n{\"type\":\"summary\",\"line\":\"new\"}"
            )
            .as_deref(),
            Some("new")
        );
    }
}
