//! The curator's LLM consolidation pass (reference `loop` §4.8): the model sees the
//! agent-created skills with their usage and the clusters we found (shared name prefix,
//! similar descriptions), builds class-level umbrellas, moves narrow content into an
//! umbrella's `references/`, and archives the absorbed skills with `absorbed_into`.
//!
//! It runs through the agent's tool loop with three tools (`skills_list`, `skill_view`,
//! `skill_manage`) under the `curator` origin, so every autonomous guard of the skill library
//! applies; there is no terminal (upstream's fork gets the full catalogue). Views do not
//! count as use: the curator reading a skill must not keep it from going stale.
//!
//! Pruning (upstream's prompt asks for `absorbed_into=""`, its own guard refuses it): a delete
//! with an empty `absorbed_into` archives the skill when the automatic pass already judged it
//! stale, it is agent-created, not pinned and no cron job names it. An active skill leaves
//! only by being absorbed into an umbrella (docs/decisions.md).
//!
//! In a dry run every write is refused with a note, the calls are still recorded, and the
//! model reports what it would do.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};

use super::classify::Call;
use super::report::LlmMeta;
use super::rows::Row;
use crate::agent::registry::Registry;
use crate::agent::{Agent, AgentParts, AgentSettings, ApprovalMode, Clock, ToolHook};
use crate::llm::{Client, Endpoint, RetryPolicy, Transport};
use crate::sessions::{Db, migrate};
use crate::skills::guards::{Origin, ReadMarks};
use crate::skills::library::{Index, Library};
use crate::skills::manage::{ManageArgs, Session};
use crate::skills::usage;

/// Model calls one pass may make (upstream allows 9999; a pass that needs more is stuck).
pub const BUDGET: u32 = 60;

pub const TOOLS: [&str; 3] = ["skill_manage", "skill_view", "skills_list"];

/// Skills whose names share a first word, and skills whose descriptions share most words.
pub fn clusters(rows: &[Row], descriptions: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut by_prefix: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in rows {
        let prefix = r.name.split(['-', '_']).next().unwrap_or(&r.name);
        by_prefix.entry(prefix).or_default().push(r.name.clone());
    }
    let mut clustered: BTreeSet<String> = BTreeSet::new();
    for names in by_prefix.into_values().filter(|n| n.len() >= 2) {
        clustered.extend(names.iter().cloned());
        out.push(names);
    }
    let words = |name: &str| -> BTreeSet<String> {
        descriptions
            .get(name)
            .map(|d| {
                d.to_lowercase()
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| w.len() > 3)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let rest: Vec<&Row> = rows
        .iter()
        .filter(|r| !clustered.contains(&r.name))
        .collect();
    let mut taken: BTreeSet<usize> = BTreeSet::new();
    for i in 0..rest.len() {
        if taken.contains(&i) {
            continue;
        }
        let a = words(&rest[i].name);
        let mut group = vec![rest[i].name.clone()];
        for (j, other) in rest.iter().enumerate().skip(i + 1) {
            let b = words(&other.name);
            let shared = a.intersection(&b).count();
            let union = a.union(&b).count();
            if union > 0 && shared * 2 >= union && !taken.contains(&j) {
                group.push(other.name.clone());
                taken.insert(j);
            }
        }
        if group.len() >= 2 {
            out.push(group);
        }
    }
    out
}

/// The candidate list of §4.8, one line per agent-created skill.
pub fn candidate_list(rows: &[Row], cron: &BTreeSet<String>) -> String {
    if rows.is_empty() {
        return "No agent-created skills to review.".into();
    }
    let yes = |b: bool| if b { "yes" } else { "no" };
    let lines: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "- {}  state={}  pinned={}  cron={}  activity={}  use={}  view={}  patches={}  last_activity={}",
                r.name,
                r.state().unwrap_or("active"),
                yes(r.pinned()),
                yes(cron.contains(&r.name)),
                r.activity_count,
                r.counter("use_count"),
                r.counter("view_count"),
                r.counter("patch_count"),
                r.last_activity_at.as_deref().unwrap_or("never")
            )
        })
        .collect();
    format!(
        "Agent-created skills ({}):\n\n{}",
        rows.len(),
        lines.join("\n")
    )
}

const PROMPT: &str = "\
You are the curator of this skill library, doing a consolidation pass. The goal is a small \
set of class-level skills — each a SKILL.md with labelled sections, plus references/, \
templates/ and scripts/ for detail — instead of many narrow skills written for one session \
each. Ask of every group: would a maintainer write these as N skills, or as one skill with N \
sections? \"Each has its own trigger\" is not a reason to keep them apart.

Rules:
1. Only the skills listed below are yours to change; bundled, hub-installed and external \
skills are not listed and must not be touched.
2. Nothing is deleted: a removed skill is archived (recoverable).
3. Leave skills with pinned=yes alone.
4. Never prune a cron=yes skill (a scheduled job loads it); merging it into an umbrella is \
fine, the job is pointed at the umbrella.
5. Usage counters are young and mostly zero: judge overlap by content; use=0 alone is no \
reason to keep or to remove.

How:
- Read the skills of each cluster below with skill_view (and any other overlap you find).
- For each group: patch the broadest member into the umbrella, or create a new umbrella \
with a class-level name; move narrow details into the umbrella's references/<topic>.md with \
skill_manage write_file, and add a one-line pointer to each such file in its SKILL.md.
- Then archive each absorbed skill: skill_manage action=delete name=<skill> \
absorbed_into=<umbrella>. A skill with support files or relative links moves whole: re-home \
every file under the umbrella, or leave the skill standalone.
- Prune: skill_manage action=delete absorbed_into=\"\" archives a skill that is already \
state=stale and covered by nothing; an active skill can only be absorbed.
- Keep going until no cluster is left; a pass that merges two or three groups and stops is \
unfinished.

End with a short summary for a person, then this block (every archived skill in exactly one \
list; an empty list is []):

```yaml
consolidations:
  - from: <archived skill>
    into: <umbrella>
    reason: <one short sentence>
prunings:
  - name: <archived skill>
    reason: <one short sentence>
```";

const DRY_RUN: &str = "\
DRY RUN: report only. skill_manage writes (create, patch, edit, delete, write_file, \
remove_file) are refused in this run; skills_list and skill_view work. Describe what you \
would do, and fill the YAML block with the consolidations and prunings you would make.";

/// The pass's request.
pub fn prompt(
    rows: &[Row],
    cron: &BTreeSet<String>,
    clusters: &[Vec<String>],
    dry_run: bool,
) -> String {
    let mut parts = Vec::new();
    if dry_run {
        parts.push(DRY_RUN.to_string());
    }
    parts.push(PROMPT.to_string());
    if !clusters.is_empty() {
        let lines: Vec<String> = clusters
            .iter()
            .map(|c| format!("- {}", c.join(", ")))
            .collect();
        parts.push(format!(
            "Candidate clusters (shared name prefix or similar descriptions):\n{}",
            lines.join("\n")
        ));
    }
    parts.push(candidate_list(rows, cron));
    parts.join("\n\n")
}

/// What the pass did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub meta: Option<LlmMeta>,
    pub calls: Vec<Call>,
}

struct CuratorTools {
    library: Library,
    marks: ReadMarks,
    cron: BTreeSet<String>,
    dry_run: bool,
    now: jiff::Timestamp,
    calls: Rc<RefCell<Vec<Call>>>,
}

impl CuratorTools {
    fn session(&mut self) -> Session<'_> {
        let mut s = Session::new(
            &self.library,
            Origin::Curator,
            crate::guard::write_guard::agent_write_scanner(),
        );
        s.count_views = false;
        s.set_marks(std::mem::take(&mut self.marks));
        s
    }

    fn prune(&mut self, name: &str) -> Value {
        let refuse = |why: String| json!({"success": false, "error": format!("Refusing to prune '{name}': {why}")});
        let index = Index::build(&self.library);
        let record = index.usage.get(name);
        if self.library.catalog().find_dir(name).is_none() {
            return refuse("no such skill.".into());
        }
        if !usage::is_curator_managed(record) {
            return refuse(
                "it is not agent-created; only the curator's own skills may be pruned.".into(),
            );
        }
        if usage::is_pinned(record) {
            return refuse("it is pinned.".into());
        }
        if self.cron.contains(name) {
            return refuse("a cron job loads it.".into());
        }
        if usage::state(record) != usage::STATE_STALE {
            return refuse(
                "it is not stale. An active skill leaves the library only by being absorbed into an umbrella (absorbed_into=<umbrella>)."
                    .into(),
            );
        }
        match super::manage::archive_one(&self.library, name, self.now) {
            Ok(message) => json!({"success": true,
                "message": format!("Skill '{name}' pruned ({message})."), "_archived": true}),
            Err(message) => json!({"success": false, "error": message}),
        }
    }
}

const WRITES: [&str; 6] = [
    "create",
    "edit",
    "patch",
    "delete",
    "write_file",
    "remove_file",
];

impl ToolHook for CuratorTools {
    fn call(&mut self, name: &str, args: &Value) -> Value {
        self.calls.borrow_mut().push(Call {
            name: name.to_string(),
            arguments: args.clone(),
        });
        match name {
            "skills_list" => {
                let category = args.get("category").and_then(Value::as_str);
                crate::skills::list::skills_list_tool(&self.library, category)
            }
            "skill_view" => {
                let skill = args.get("name").and_then(Value::as_str).unwrap_or("");
                let file = args.get("file_path").and_then(Value::as_str);
                let mut s = self.session();
                let result = s.view(skill, file);
                self.marks = s.take_marks();
                result
            }
            "skill_manage" => {
                let action = args.get("action").and_then(Value::as_str).unwrap_or("");
                if self.dry_run && WRITES.contains(&action) {
                    return json!({"success": false, "error": format!(
                        "Dry run: skill_manage {action} was not applied. Report it as an intended action instead."
                    )});
                }
                let blank_umbrella = matches!(args.get("absorbed_into"), Some(Value::String(s)) if s.trim().is_empty());
                if action == "delete" && blank_umbrella {
                    let skill = args.get("name").and_then(Value::as_str).unwrap_or("");
                    return self.prune(skill);
                }
                match ManageArgs::from_json(args) {
                    Ok(manage) => {
                        let mut s = self.session();
                        let result = s.manage(&manage);
                        self.marks = s.take_marks();
                        result
                    }
                    Err(message) => json!({"success": false, "error": message}),
                }
            }
            other => json!({"error": format!(
                "Curator denied non-whitelisted tool: {other}. Only skills_list, skill_view and skill_manage are available."
            )}),
        }
    }
}

/// Where the pass's model lives and how to reach it.
pub struct Model {
    pub endpoint: Endpoint,
    pub transport: Box<dyn Transport>,
}

/// Runs the pass over `rows` (the curator-managed skills after the automatic transitions).
#[allow(clippy::too_many_arguments)]
pub fn run(
    lib: &Library,
    model: Model,
    rows: &[Row],
    cron: &BTreeSet<String>,
    dry_run: bool,
    now: jiff::Timestamp,
    fixed_clock: bool,
    cwd: &Path,
) -> Outcome {
    let mut outcome = Outcome::default();
    if rows.is_empty() {
        return outcome;
    }
    let descriptions: BTreeMap<String, String> = crate::skills::list::skills_list_tool(lib, None)
        .get("skills")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| {
                    Some((
                        s.get("name")?.as_str()?.to_string(),
                        s.get("description")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let request = prompt(rows, cron, &clusters(rows, &descriptions), dry_run);
    let (endpoint_model, provider) = (
        model.endpoint.model.clone(),
        model.endpoint.provider.clone(),
    );
    let fail = |e: String| LlmMeta {
        final_text: String::new(),
        summary: format!("error ({e})"),
        model: endpoint_model.clone(),
        provider: provider.clone(),
        tool_calls: Vec::new(),
        error: Some(e),
    };
    let mut db = match Db::create(Path::new(":memory:"), Default::default()) {
        Ok(db) => db,
        Err(e) => {
            outcome.meta = Some(fail(e.to_string()));
            return outcome;
        }
    };
    if let Err(e) = migrate::ensure_schema(&mut db) {
        outcome.meta = Some(fail(e.to_string()));
        return outcome;
    }
    let mut settings = AgentSettings::from_config(&lib.config);
    settings.max_turns = BUDGET;
    settings.compression.enabled = false;
    settings.memory_nudge_interval = 0;
    settings.skill_nudge_interval = 0;
    let client = Client::new(
        model.transport,
        RetryPolicy {
            attempts: settings.api_max_retries,
            backoff_base: settings.retry_backoff,
        },
        Arc::new(AtomicBool::new(false)),
    );
    let fixed = fixed_clock.then(|| crate::clock::unix_seconds(now));
    let parts = AgentParts {
        home: lib.home.clone(),
        config: lib.config.clone(),
        settings,
        endpoint: model.endpoint,
        client,
        db,
        cwd: PathBuf::from(cwd),
        source: "curator".into(),
        approvals: ApprovalMode::Deny,
        registry: Registry::new(Some(&TOOLS)),
        interrupt: Arc::new(AtomicBool::new(false)),
        clock: Clock::new(fixed),
        ignore_rules: false,
        ephemeral: String::new(),
        provider_use: crate::agent::session::ProviderUse::Off,
    };
    let mut agent = match Agent::new(parts) {
        Ok(a) => a,
        Err(e) => {
            outcome.meta = Some(fail(e.to_string()));
            return outcome;
        }
    };
    let calls = Rc::new(RefCell::new(Vec::new()));
    agent.set_tool_hook(Box::new(CuratorTools {
        library: Library::new(lib.home.clone(), lib.config.clone(), lib.runtime.clone()),
        marks: ReadMarks::default(),
        cron: cron.clone(),
        dry_run,
        now,
        calls: calls.clone(),
    }));
    let turn = agent.run_turn(&request, &mut NoNotes);
    drop(agent);
    outcome.calls = calls.borrow().clone();
    let tool_calls: Vec<Value> = outcome
        .calls
        .iter()
        .map(|c| json!({"name": c.name, "arguments": c.arguments.to_string()}))
        .collect();
    let (final_text, error) = match turn {
        Ok(t) => (
            t.answer.unwrap_or_default().trim().to_string(),
            t.error.map(|e| format!("error: {e}")),
        ),
        Err(e) => (String::new(), Some(format!("error: {e}"))),
    };
    let summary = match &error {
        Some(e) => e.clone(),
        None if final_text.chars().count() > 240 => {
            format!("{}…", final_text.chars().take(240).collect::<String>())
        }
        None if final_text.is_empty() => "no change".into(),
        None => final_text.clone(),
    };
    outcome.meta = Some(LlmMeta {
        final_text,
        summary,
        model: endpoint_model,
        provider,
        tool_calls,
        error,
    });
    outcome
}

struct NoNotes;

impl crate::agent::Observer for NoNotes {}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> Row {
        Row {
            name: name.into(),
            record: Default::default(),
            persisted: true,
            last_activity_at: None,
            activity_count: 0,
            provenance: None,
        }
    }

    #[test]
    fn clusters_by_prefix_then_by_description() {
        let rows: Vec<Row> = ["docker-a", "docker_b", "nginx-certs", "tls-expiry", "solo"]
            .into_iter()
            .map(row)
            .collect();
        let descriptions: BTreeMap<String, String> = [
            ("nginx-certs", "Renewing TLS certificates on nginx hosts"),
            ("tls-expiry", "Checking TLS certificates on nginx hosts"),
            ("solo", "Something else entirely"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(
            clusters(&rows, &descriptions),
            [
                vec!["docker-a", "docker_b"],
                vec!["nginx-certs", "tls-expiry"]
            ]
        );
    }

    #[test]
    fn the_prompt_carries_the_clusters_and_the_candidates() {
        let p = prompt(
            &[],
            &BTreeSet::new(),
            &[vec!["docker-a".into(), "docker-b".into()]],
            true,
        );
        assert!(p.starts_with("DRY RUN"));
        assert!(p.contains(
            "Candidate clusters (shared name prefix or similar descriptions):\n- docker-a, docker-b"
        ));
        assert!(p.ends_with("No agent-created skills to review."));
    }

    /// Words of four letters or more count; a pair joins when it shares at least half of
    /// the words the two hold together (none held: no pair); each skill joins one group.
    #[test]
    fn description_clusters_need_half_the_long_words() {
        let rows: Vec<Row> = ["alpha-one", "beta", "delta", "epsilon", "gamma", "omega"]
            .into_iter()
            .map(row)
            .collect();
        let descriptions: BTreeMap<String, String> = [
            // {backup, postgres} and {backup, redis}: one shared of three.
            ("alpha-one", "Backup postgres"),
            ("epsilon", "Backup redis"),
            // {deploy} both: three-letter words do not count.
            ("beta", "Deploy the web app"),
            ("gamma", "Deploy the api box"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(clusters(&rows, &descriptions), [vec!["beta", "gamma"]]);
    }

    #[test]
    fn the_candidate_list_says_what_the_model_must_respect() {
        let now = jiff::Timestamp::from_second(1_780_000_000).expect("ts");
        let rows = vec![
            super::super::rows::fixture::row(
                "alpha",
                json!({"state": "stale", "pinned": true, "use_count": 2, "view_count": 1,
                       "patch_count": 4, "last_used_at": "2026-05-01T00:00:00+00:00"}),
                now,
            ),
            super::super::rows::fixture::row("beta", json!({"state": 7}), now),
        ];
        let cron: BTreeSet<String> = ["beta".to_string()].into();
        let list = "Agent-created skills (2):\n\n\
            - alpha  state=stale  pinned=yes  cron=no  activity=7  use=2  view=1  patches=4  last_activity=2026-05-01T00:00:00+00:00\n\
            - beta  state=active  pinned=no  cron=yes  activity=0  use=0  view=0  patches=0  last_activity=never";
        assert_eq!(candidate_list(&rows, &cron), list);
        // No clusters, no dry run: the rules, then the list.
        assert_eq!(
            prompt(&rows, &cron, &[], false),
            format!("{PROMPT}\n\n{list}")
        );
        assert_eq!(
            prompt(&rows, &cron, &[vec!["a".into(), "b".into()]], true),
            format!(
                "{DRY_RUN}\n\n{PROMPT}\n\nCandidate clusters (shared name prefix or similar descriptions):\n- a, b\n\n{list}"
            )
        );
    }

    /// A home with agent-created skills in each state the prune rule cares about.
    fn home(dir: &Path) -> Library {
        super::super::rows::fixture::library(
            dir,
            &["stale-one", "active-one", "pinned-one", "cron-one", "hand"],
            json!({
                "stale-one": {"created_by": "agent", "state": "stale"},
                "active-one": {"created_by": "agent", "state": "active"},
                "pinned-one": {"created_by": "agent", "state": "stale", "pinned": true},
                "cron-one": {"created_by": "agent", "state": "stale"},
            }),
            crate::home::Config::defaults(),
        )
    }

    fn tools(lib: &Library, dry_run: bool) -> (CuratorTools, Rc<RefCell<Vec<Call>>>) {
        let calls = Rc::new(RefCell::new(Vec::new()));
        let tools = CuratorTools {
            library: Library::new(lib.home.clone(), lib.config.clone(), lib.runtime.clone()),
            marks: ReadMarks::default(),
            cron: ["cron-one".to_string()].into(),
            dry_run,
            now: jiff::Timestamp::from_second(1_780_000_000).expect("ts"),
            calls: calls.clone(),
        };
        (tools, calls)
    }

    /// A delete with a blank `absorbed_into` prunes: only a stale, agent-created, unpinned
    /// skill no cron job loads, each refusal saying why.
    #[test]
    fn a_blank_umbrella_prunes_only_what_may_be_pruned() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = home(dir.path());
        let (mut tools, calls) = tools(&lib, false);
        let mut prune = |name: &str| {
            tools.call(
                "skill_manage",
                &json!({"action": "delete", "name": name, "absorbed_into": " "}),
            )
        };
        let refused = |name: &str, why: &str| json!({"success": false, "error": format!("Refusing to prune '{name}': {why}")});
        assert_eq!(prune("ghost"), refused("ghost", "no such skill."));
        assert_eq!(
            prune("hand"),
            refused(
                "hand",
                "it is not agent-created; only the curator's own skills may be pruned."
            )
        );
        assert_eq!(prune("pinned-one"), refused("pinned-one", "it is pinned."));
        assert_eq!(
            prune("cron-one"),
            refused("cron-one", "a cron job loads it.")
        );
        assert_eq!(
            prune("active-one"),
            refused(
                "active-one",
                "it is not stale. An active skill leaves the library only by being absorbed into an umbrella (absorbed_into=<umbrella>)."
            )
        );
        let archived = dir.path().join("skills/.archive/stale-one");
        assert_eq!(
            prune("stale-one"),
            json!({"success": true,
                   "message": format!("Skill 'stale-one' pruned (archived to {}).", archived.display()),
                   "_archived": true})
        );
        assert!(archived.join("SKILL.md").is_file());
        assert_eq!(calls.borrow().len(), 6);
        assert_eq!(
            calls.borrow()[0],
            Call {
                name: "skill_manage".into(),
                arguments: json!({"action": "delete", "name": "ghost", "absorbed_into": " "}),
            }
        );
        // Any other action goes to skill_manage itself, whatever its absorbed_into.
        assert_eq!(
            tools.call(
                "skill_manage",
                &json!({"action": "create", "name": 7, "absorbed_into": ""})
            ),
            json!({"success": false, "error": "name must be a string."})
        );
    }

    /// In a dry run every write is refused with a note; reading still works, and (as in a
    /// live pass) the curator's reads are not counted as views. Other tools are denied.
    #[test]
    fn a_dry_run_refuses_writes_and_reads_without_counting() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = home(dir.path());
        let (mut tools, calls) = tools(&lib, true);
        for action in WRITES {
            assert_eq!(
                tools.call(
                    "skill_manage",
                    &json!({"action": action, "name": "stale-one", "absorbed_into": ""})
                ),
                json!({"success": false, "error": format!(
                    "Dry run: skill_manage {action} was not applied. Report it as an intended action instead."
                )})
            );
        }
        assert!(dir.path().join("skills/stale-one/SKILL.md").is_file());
        let view = tools.call("skill_view", &json!({"name": "stale-one"}));
        assert_eq!(view["success"], json!(true), "{view}");
        let usage: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("skills/.usage.json")).expect("usage"),
        )
        .expect("json");
        assert_eq!(usage["stale-one"].get("view_count"), None);
        let list = tools.call("skills_list", &json!({}));
        assert!(list["skills"].is_array(), "{list}");
        assert_eq!(
            tools.call("terminal", &json!({"command": "ls"})),
            json!({"error": "Curator denied non-whitelisted tool: terminal. Only skills_list, skill_view and skill_manage are available."})
        );
        let names: Vec<String> = calls.borrow().iter().map(|c| c.name.clone()).collect();
        assert_eq!(
            names,
            [
                "skill_manage",
                "skill_manage",
                "skill_manage",
                "skill_manage",
                "skill_manage",
                "skill_manage",
                "skill_view",
                "skills_list",
                "terminal"
            ]
        );
    }

    /// The pass runs the model's tool calls through the hook and reports them; its summary
    /// is the answer, cut at 240 characters.
    #[test]
    fn a_pass_records_its_calls_and_summarises_the_answer() {
        use super::super::rows::fixture::{answer, model, tool_call};
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = home(dir.path());
        let now = jiff::Timestamp::from_second(1_780_000_000).expect("ts");
        let rows = super::super::rows::agent_created(&Index::build(&lib), now);
        let cron: BTreeSet<String> = ["cron-one".to_string()].into();
        let args = r#"{"action":"delete","name":"stale-one","absorbed_into":""}"#;
        let long = "x".repeat(241);
        let script = vec![tool_call("skill_manage", args), answer(&long)];
        let outcome = run(
            &lib,
            model(script),
            &rows,
            &cron,
            false,
            now,
            true,
            dir.path(),
        );
        assert_eq!(
            outcome.calls,
            [Call {
                name: "skill_manage".into(),
                arguments: serde_json::from_str(args).expect("args"),
            }]
        );
        assert_eq!(
            outcome.meta,
            Some(LlmMeta {
                final_text: long.clone(),
                summary: format!("{}…", "x".repeat(240)),
                model: "m1".into(),
                provider: "custom".into(),
                tool_calls: vec![json!({"name": "skill_manage", "arguments": args})],
                error: None,
            })
        );
        assert!(
            dir.path()
                .join("skills/.archive/stale-one/SKILL.md")
                .is_file()
        );

        // Dry runs of the same candidates, each answered by its own script.
        let dry_pass = |script| {
            run(
                &lib,
                model(script),
                &rows,
                &cron,
                true,
                now,
                true,
                dir.path(),
            )
        };
        let exact = "y".repeat(240);
        let outcome = dry_pass(vec![answer(&exact)]);
        let meta = outcome.meta.expect("meta");
        assert_eq!(
            (meta.final_text.as_str(), meta.summary.as_str()),
            (exact.as_str(), exact.as_str())
        );

        // Interrupted: no answer and no error.
        let stopped = vec![Err(crate::llm::LlmError::Interrupted { partial: None })];
        let outcome = dry_pass(stopped);
        let meta = outcome.meta.expect("meta");
        assert_eq!(
            (meta.final_text.as_str(), meta.summary.as_str()),
            ("", "no change")
        );
        assert_eq!(meta.error, None);

        // No skills: no pass.
        let outcome = run(&lib, model(vec![]), &[], &cron, true, now, true, dir.path());
        assert_eq!(outcome.meta, None);
        assert!(outcome.calls.is_empty());
    }
}
