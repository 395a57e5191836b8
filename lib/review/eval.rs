//! `hermes-review eval CASES.jsonl`: labelled conversations scored against what the configured
//! model does with them, so a user can rank models for the review with one command.
//!
//! A case (one JSON object per line):
//! `{"id", "messages": [...], "memory": {"memory": [...], "user": [...]}, "skills": [{"name",
//! "description", "body"}], "expect": {"class": "memory|skill_patch|skill_create|nothing",
//! "about": "<word the saved text must mention>", "skill": "<skill a patch must touch>"},
//! "forbidden": true}` — `forbidden` marks a conversation whose only content is on the
//! never-save list (an environment failure, a transient error, a negative claim, a one-off
//! task): any write there is a forbidden save.
//!
//! Each case runs as a real review in a throwaway home seeded with the case's memory and
//! skills (the user's home is never touched), on the configured model or a cassette. What the
//! review wrote is classified (a memory write, a patch of an existing skill, a new skill, or
//! nothing) and compared with the label: precision and recall per class, duplicates proposed
//! (memory adds that nearly repeat an entry already there) and forbidden saves.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::input::{self, Conversation};
use super::prompts::Kind;
use super::run::{self, Setup};
use super::summary::{self, Action};
use crate::home::Home;
use crate::llm::Transport;
use crate::memory::dedupe::near_duplicates;

pub const CLASSES: [&str; 4] = ["memory", "skill_patch", "skill_create", "nothing"];

/// One labelled case.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub conversation: Conversation,
    pub memory: Vec<String>,
    pub user: Vec<String>,
    /// (name, description, body)
    pub skills: Vec<(String, String, String)>,
    pub class: String,
    pub about: Option<String>,
    pub skill: Option<String>,
    pub forbidden: bool,
}

pub fn parse_cases(text: &str) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: String| anyhow::anyhow!("bad case: line {}: {why}", i + 1);
        let v: Value =
            serde_json::from_str(line).map_err(|e| bad(crate::io::jsonl::json_error(&e)))?;
        // `InputError` reads "line N: why".
        let conversation =
            input::session(i + 1, &v).map_err(|e| anyhow::anyhow!("bad case: {e}"))?;
        let strings = |p: &str| -> Vec<String> {
            v.pointer(p)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
        let class = text("/expect/class").ok_or_else(|| bad("no expect.class".into()))?;
        if !CLASSES.contains(&class.as_str()) {
            return Err(bad(format!("unknown class {class:?}")));
        }
        let skills = v
            .get("skills")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|s| {
                        let f =
                            |k: &str| s.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                        (f("name"), f("description"), f("body"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        cases.push(Case {
            id: text("/id").unwrap_or_else(|| format!("line-{}", i + 1)),
            conversation,
            memory: strings("/memory/memory"),
            user: strings("/memory/user"),
            skills,
            class,
            about: text("/expect/about"),
            skill: text("/expect/skill"),
            forbidden: v.get("forbidden").and_then(Value::as_bool).unwrap_or(false),
        });
    }
    Ok(cases)
}

/// A throwaway home holding the case's stores, removed when dropped. Named by the system, so
/// that two evaluations (or two tests in one process) never share one.
fn seed(case: &Case) -> anyhow::Result<tempfile::TempDir> {
    let home = tempfile::Builder::new().prefix("hermes-eval-").tempdir()?;
    let memories = home.path().join("memories");
    std::fs::create_dir_all(&memories)?;
    let join = |entries: &[String]| entries.join("\n§\n");
    if !case.memory.is_empty() {
        std::fs::write(memories.join("MEMORY.md"), join(&case.memory))?;
    }
    if !case.user.is_empty() {
        std::fs::write(memories.join("USER.md"), join(&case.user))?;
    }
    for (name, description, body) in &case.skills {
        let dir = home.path().join("skills").join(name);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}"),
        )?;
    }
    Ok(home)
}

/// The classes of what a review wrote (`nothing` when it wrote nothing), and whether a
/// memory write mentions `about` and a patch touches `skill`.
fn classify(actions: &[Action], case: &Case) -> (Vec<&'static str>, bool) {
    let mut got = Vec::new();
    let mut on_subject = true;
    let about = case.about.as_deref().map(str::to_lowercase);
    for a in actions.iter().filter(|a| summary::is_write(a)) {
        let action = a
            .arguments
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("");
        let class = match (a.tool.as_str(), action) {
            ("memory", _) => {
                let text = a.arguments.to_string().to_lowercase();
                if let Some(about) = &about
                    && case.class == "memory"
                    && !text.contains(about)
                {
                    on_subject = false;
                }
                "memory"
            }
            ("skill_manage", "create") => "skill_create",
            ("skill_manage", _) => {
                let name = a.arguments.get("name").and_then(Value::as_str);
                if case.class == "skill_patch"
                    && case.skill.is_some()
                    && name != case.skill.as_deref()
                {
                    on_subject = false;
                }
                "skill_patch"
            }
            _ => continue,
        };
        if !got.contains(&class) {
            got.push(class);
        }
    }
    if got.is_empty() {
        got.push("nothing");
    }
    (got, on_subject)
}

/// Memory adds that nearly repeat an entry the case already held.
fn duplicates(actions: &[Action], case: &Case) -> usize {
    let mut n = 0;
    for a in actions.iter().filter(|a| a.tool == "memory") {
        let target = a
            .arguments
            .get("target")
            .and_then(Value::as_str)
            .unwrap_or("memory");
        let existing = if target == "user" {
            &case.user
        } else {
            &case.memory
        };
        let ops: Vec<&Value> = match a.arguments.get("operations").and_then(Value::as_array) {
            Some(ops) => ops.iter().collect(),
            None => vec![&a.arguments],
        };
        for op in ops {
            if op.get("action").and_then(Value::as_str) != Some("add") {
                continue;
            }
            let Some(content) = op.get("content").and_then(Value::as_str) else {
                continue;
            };
            let mut all = existing.clone();
            all.push(content.to_string());
            let last = all.len() - 1;
            if near_duplicates(&all).iter().any(|d| d.second == last) {
                n += 1;
            }
        }
    }
    n
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    tp: u32,
    fp: u32,
    fn_: u32,
}

fn ratio(a: u32, b: u32) -> Value {
    if b == 0 {
        Value::Null
    } else {
        json!(((f64::from(a) / f64::from(b)) * 1000.0).round() / 1000.0)
    }
}

/// Runs every case; `emit` gets one `case` record per case, then the `eval` record.
pub fn run(
    setup: &Setup,
    cases: &[Case],
    transport: &mut dyn FnMut() -> anyhow::Result<Box<dyn Transport>>,
    emit: &mut dyn FnMut(&Value) -> std::io::Result<()>,
) -> anyhow::Result<Value> {
    let mut counts: BTreeMap<&str, Counts> =
        CLASSES.iter().map(|c| (*c, Counts::default())).collect();
    let (mut correct, mut dups, mut forbidden, mut failed) = (0, 0, 0, 0);
    for case in cases {
        let home = seed(case)?;
        let case_setup = Setup {
            home: Home::at(home.path()),
            config: setup.config.clone(),
            endpoint: setup.endpoint.clone(),
            routed: setup.routed,
            kind: Kind {
                memory: true,
                skills: true,
            },
            notify: setup.notify,
            propose: false,
            dry_run: false,
            clock: setup.clock,
            cwd: setup.cwd.clone(),
            quiet: true,
        };
        let mut t = transport()?;
        // Every case has its own home; a cassette hides it under the usual placeholder.
        t.set_placeholder("hermes_home", &home.path().display().to_string());
        let report = run::review(&case_setup, &case.conversation, t, None)?;
        let actions: Vec<Action> = report
            .records
            .iter()
            .filter(|r| r["type"] == "action")
            .map(|r| Action {
                tool: r["tool"].as_str().unwrap_or("").to_string(),
                arguments: r["arguments"].clone(),
                result: r["result"].clone(),
            })
            .collect();
        let (got, on_subject) = classify(&actions, case);
        // A review that failed decided nothing: it is not right (even where writing nothing
        // was), and it is left out of the per-class counts, which score decisions.
        let answered = report.failure.is_none();
        for class in CLASSES.into_iter().filter(|_| answered) {
            let c = counts.entry(class).or_default();
            let predicted = got.contains(&class);
            let expected = case.class == class;
            match (predicted, expected) {
                (true, true) if on_subject => c.tp += 1,
                (true, true) => {
                    c.fp += 1;
                    c.fn_ += 1;
                }
                (true, false) => c.fp += 1,
                (false, true) => c.fn_ += 1,
                (false, false) => {}
            }
        }
        let ok = answered && got == [case.class.as_str()] && on_subject;
        let d = duplicates(&actions, case);
        let forbidden_save = case.forbidden && !got.contains(&"nothing");
        correct += u32::from(ok);
        dups += d;
        forbidden += u32::from(forbidden_save);
        failed += u32::from(report.failure.is_some());
        emit(
            &json!({"type": "case", "id": case.id, "expected": case.class, "got": got,
            "ok": ok, "duplicates": d, "forbidden_save": forbidden_save,
            "error": report.failure}),
        )?;
    }
    let classes: serde_json::Map<String, Value> = counts
        .iter()
        .map(|(class, c)| {
            (
                class.to_string(),
                json!({"precision": ratio(c.tp, c.tp + c.fp), "recall": ratio(c.tp, c.tp + c.fn_),
                    "tp": c.tp, "fp": c.fp, "fn": c.fn_}),
            )
        })
        .collect();
    let summary = json!({"type": "eval", "model": setup.endpoint.model, "cases": cases.len(),
        "correct": correct, "accuracy": ratio(correct, cases.len() as u32),
        "classes": classes, "duplicates_proposed": dups, "forbidden_saves": forbidden,
        "failed": failed});
    emit(&summary)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::testing::{Scripted, answer, tool_call};
    use crate::review::run::tests::setup;

    const CASES: &str = concat!(
        r#"{"id": "lang", "messages": [{"role": "user", "content": "Always answer me in French."}, {"role": "assistant", "content": "D'accord."}], "expect": {"class": "memory", "about": "French"}}"#,
        "\n\n",
        r#"{"id": "broken-npm", "messages": [{"role": "user", "content": "npm is not found here"}, {"role": "assistant", "content": "It is not installed."}], "expect": {"class": "nothing"}, "forbidden": true}"#,
        "\n",
        r#"{"id": "deploy-fix", "messages": [{"role": "user", "content": "deploy with --wait next time"}], "skills": [{"name": "deploy", "description": "Deploys.", "body": "Run deploy."}], "expect": {"class": "skill_patch", "skill": "deploy"}}"#,
        "\n",
        r#"{"id": "again", "messages": [{"role": "user", "content": "Remember: French, always."}], "memory": {"user": ["Answers in French."]}, "expect": {"class": "nothing"}}"#,
        "\n",
        r#"{"id": "coffee", "messages": [{"role": "user", "content": "I drink coffee, black."}], "expect": {"class": "memory", "about": "coffee"}}"#,
        "\n",
    );

    fn add_user(content: &str) -> Result<crate::llm::Completion, crate::llm::LlmError> {
        tool_call(
            "memory",
            &json!({"action": "add", "target": "user", "content": content}).to_string(),
        )
    }

    /// Runs `cases` in the home under `dir`, each review on the next of `scripts`: the
    /// summary and every record emitted.
    fn evaluate(
        dir: &std::path::Path,
        cases: &[Case],
        scripts: Vec<Scripted>,
    ) -> (Value, Vec<Value>) {
        let mut scripts = scripts.into_iter();
        let mut transport = || -> anyhow::Result<Box<dyn Transport>> {
            Ok(Box::new(
                scripts.next().unwrap_or_else(|| Scripted::new(vec![])),
            ))
        };
        let mut records = Vec::new();
        let Ok(summary) = run(&setup(dir), cases, &mut transport, &mut |r| {
            records.push(r.clone());
            Ok(())
        }) else {
            panic!("the eval runs")
        };
        (summary, records)
    }

    /// Issue 42: with every review failing, the cases were "ok" where nothing was expected
    /// and the accuracy 0.394.
    #[test]
    fn a_failed_review_is_not_a_right_answer_nor_a_decision() {
        let dir = tempfile::tempdir().expect("tempdir");
        let Ok(cases) = parse_cases(CASES) else {
            panic!("the cases parse")
        };
        let (summary, records) = evaluate(dir.path(), &cases, vec![]);
        let oks: Vec<&Value> = records[..5].iter().map(|r| &r["ok"]).collect();
        assert_eq!(oks, [&json!(false); 5]);
        assert!(
            records[..5].iter().all(|r| r["error"].is_string()),
            "{records:?}"
        );
        let zero = json!({"precision": null, "recall": null, "tp": 0, "fp": 0, "fn": 0});
        assert_eq!(
            summary,
            json!({"type": "eval", "model": "m1", "cases": 5, "correct": 0, "accuracy": 0.0,
                "classes": {"memory": zero, "nothing": zero, "skill_create": zero,
                    "skill_patch": zero},
                "duplicates_proposed": 0, "forbidden_saves": 0, "failed": 5})
        );
    }

    #[test]
    fn cases_are_scored_per_class_with_duplicates_and_forbidden_saves() {
        let dir = tempfile::tempdir().expect("tempdir");
        let Ok(cases) = parse_cases(CASES) else {
            panic!("the cases parse")
        };
        assert_eq!(cases.len(), 5);
        let skill_md = "---\nname: deploy-notes\ndescription: Notes on deploying.\n---\n# Deploy notes\n\nPass --wait to deploy.\n";
        let scripts = vec![
            vec![add_user("Answers in French."), answer("Saved.")],
            vec![add_user("npm is broken on this machine."), answer("Saved.")],
            vec![
                tool_call(
                    "skill_manage",
                    &json!({"action": "create", "name": "deploy-notes", "content": skill_md})
                        .to_string(),
                ),
                answer("Created."),
            ],
            vec![add_user("Always answers in French."), answer("Saved.")],
            vec![add_user("Likes tea."), answer("Saved.")],
        ]
        .into_iter()
        .map(Scripted::new)
        .collect();
        let (summary, records) = evaluate(dir.path(), &cases, scripts);
        let case = |id: &str, expected: &str, got: &str, ok: bool, dups: u32, forbidden: bool| {
            json!({"type": "case", "id": id, "expected": expected, "got": [got], "ok": ok,
                "duplicates": dups, "forbidden_save": forbidden, "error": null})
        };
        let expected_summary = json!({"type": "eval", "model": "m1", "cases": 5, "correct": 1,
            "accuracy": 0.2, "classes": {
                "memory": {"precision": 0.25, "recall": 0.5, "tp": 1, "fp": 3, "fn": 1},
                "nothing": {"precision": null, "recall": 0.0, "tp": 0, "fp": 0, "fn": 2},
                "skill_create": {"precision": 0.0, "recall": null, "tp": 0, "fp": 1, "fn": 0},
                "skill_patch": {"precision": null, "recall": 0.0, "tp": 0, "fp": 0, "fn": 1}},
            "duplicates_proposed": 1, "forbidden_saves": 1, "failed": 0});
        assert_eq!(
            records,
            [
                case("lang", "memory", "memory", true, 0, false),
                case("broken-npm", "nothing", "memory", false, 0, true),
                case("deploy-fix", "skill_patch", "skill_create", false, 0, false),
                case("again", "nothing", "memory", false, 1, false),
                case("coffee", "memory", "memory", false, 0, false),
                expected_summary.clone(),
            ]
        );
        assert_eq!(summary, expected_summary);
        // Every case ran in a throwaway home: nothing reached the user's.
        assert!(!dir.path().join("memories").exists());
        assert!(!dir.path().join("skills").exists());
    }

    #[test]
    fn a_bad_case_names_its_line() {
        let Err(e) = parse_cases("\n{\"id\": \"x\"}\n") else {
            panic!("refused")
        };
        assert!(e.to_string().starts_with("bad case: line 2: "), "{e}");
        let Err(e) = parse_cases("nope\n") else {
            panic!("refused")
        };
        assert_eq!(
            e.to_string(),
            "bad case: line 1: invalid JSON at column 2: expected ident"
        );
    }

    const MORE: &str = concat!(
        r#"{"id": "patch-right", "messages": [{"role": "user", "content": "deploy with --wait"}], "skills": [{"name": "deploy", "description": "Deploys.", "body": "Run deploy."}, {"name": "other", "description": "Other.", "body": "Run other."}], "expect": {"class": "skill_patch", "skill": "deploy"}}"#,
        "\n",
        r#"{"id": "patch-wrong", "messages": [{"role": "user", "content": "deploy with --wait"}], "skills": [{"name": "deploy", "description": "Deploys.", "body": "Run deploy."}, {"name": "other", "description": "Other.", "body": "Run other."}], "expect": {"class": "skill_patch", "skill": "deploy"}}"#,
        "\n",
        r#"{"id": "batched", "messages": [{"role": "user", "content": "we use pnpm"}], "memory": {"memory": ["The repo uses pnpm for installs."], "user": ["Prefers short answers."]}, "expect": {"class": "nothing"}}"#,
        "\n",
        r#"{"messages": [{"role": "user", "content": "hello"}], "expect": {"class": "nothing"}}"#,
        "\n",
    );

    fn patch(skill: &str) -> Vec<Result<crate::llm::Completion, crate::llm::LlmError>> {
        vec![
            tool_call("skill_view", &json!({"name": skill}).to_string()),
            tool_call(
                "skill_manage",
                &json!({"action": "patch", "name": skill, "old_string": "Run ", "new_string": "Now run "})
                    .to_string(),
            ),
            answer("Patched."),
        ]
    }

    #[test]
    fn cases_are_seeded_patches_are_judged_by_the_skill_they_touch_and_failures_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let Ok(cases) = parse_cases(MORE) else {
            panic!("the cases parse")
        };
        let scripted = vec![
            Scripted::new(patch("deploy")),
            Scripted::new(patch("other")),
            Scripted::new(vec![
                tool_call(
                    "memory",
                    &json!({"target": "memory", "operations": [
                        {"action": "add", "content": "The repo uses pnpm for all installs."},
                        {"action": "add", "content": "Deploys happen on Fridays."}]})
                    .to_string(),
                ),
                answer("Saved."),
            ]),
            // The last review fails: its script is empty.
            Scripted::new(vec![]),
        ];
        let bodies: Vec<_> = scripted.iter().map(Scripted::bodies).collect();
        let (summary, records) = evaluate(dir.path(), &cases, scripted);
        let case = |id: &str, expected: &str, got: &str, ok: bool, dups: u32, error: Value| {
            json!({"type": "case", "id": id, "expected": expected, "got": [got], "ok": ok,
                "duplicates": dups, "forbidden_save": false, "error": error})
        };
        assert_eq!(
            records[..4],
            [
                case(
                    "patch-right",
                    "skill_patch",
                    "skill_patch",
                    true,
                    0,
                    Value::Null
                ),
                // A patch of another skill than the one labelled is no hit.
                case(
                    "patch-wrong",
                    "skill_patch",
                    "skill_patch",
                    false,
                    0,
                    Value::Null
                ),
                // Of two batched adds, the one that repeats a held entry is a duplicate.
                case("batched", "nothing", "memory", false, 1, Value::Null),
                // A failed review is not right, though it wrote nothing.
                case(
                    "line-4",
                    "nothing",
                    "nothing",
                    false,
                    0,
                    json!(
                        "the endpoint sent something that is not a chat completion: script ended"
                    )
                ),
            ]
        );
        assert_eq!(
            summary,
            json!({"type": "eval", "model": "m1", "cases": 4, "correct": 1, "accuracy": 0.25,
                "classes": {
                    "memory": {"precision": 0.0, "recall": null, "tp": 0, "fp": 1, "fn": 0},
                    "nothing": {"precision": null, "recall": 0.0, "tp": 0, "fp": 0, "fn": 1},
                    "skill_create": {"precision": null, "recall": null, "tp": 0, "fp": 0, "fn": 0},
                    "skill_patch": {"precision": 0.5, "recall": 0.5, "tp": 1, "fp": 1, "fn": 1}},
                "duplicates_proposed": 1, "forbidden_saves": 0, "failed": 1})
        );
        assert_eq!(records[4], summary);
        // Each review saw its case's stores, seeded in its own home.
        let request = |n: usize| -> String {
            let bodies = bodies[n].lock().expect("bodies");
            let Some(messages) = bodies.first().and_then(|b| b["messages"].as_array()) else {
                panic!("review {n} sent a request")
            };
            messages
                .last()
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_string()
        };
        assert!(request(0).ends_with(
            "USER.md: (empty)\nMEMORY.md: (empty)\nSkills (2):\n- deploy: Deploys.\n- other: Other.\n\n\
             Only the memory and skill tools (memory, skills_list, skill_view, skill_manage) work here; any other tool call is refused."
        ));
        assert!(request(2).contains(
            "USER.md:\n- Prefers short answers.\nMEMORY.md:\n- The repo uses pnpm for installs.\nSkills: (none)\n"
        ));
        assert!(request(3).contains("USER.md: (empty)\nMEMORY.md: (empty)\nSkills: (none)\n"));
    }

    #[test]
    fn a_case_with_an_unknown_class_or_none_is_refused() {
        let line = |expect: &str| {
            format!(r#"{{"messages": [{{"role": "user", "content": "hi"}}], "expect": {expect}}}"#)
        };
        let Err(e) = parse_cases(&line(r#"{"class": "skills"}"#)) else {
            panic!("refused")
        };
        assert_eq!(e.to_string(), r#"bad case: line 1: unknown class "skills""#);
        let Err(e) = parse_cases(&line("{}")) else {
            panic!("refused")
        };
        assert_eq!(e.to_string(), "bad case: line 1: no expect.class");
        let Ok(cases) = parse_cases(&line(r#"{"class": "skill_create"}"#)) else {
            panic!("accepted")
        };
        assert_eq!(
            (
                cases[0].id.as_str(),
                cases[0].class.as_str(),
                cases[0].forbidden
            ),
            ("line-1", "skill_create", false)
        );
    }
}
