//! The system prompt (reference `agent` §4): Hermes's three tiers in Hermes's order, in our
//! own words. Stable: identity (`SOUL.md` or ours), guidance for the tools present, the
//! skills index, the environment, the terminal hint. Context: the project's context file.
//! Volatile: the frozen memory snapshot and the line with the date, model and provider.
//!
//! Built once per session and stored on the session row: every call of the session sends the
//! same bytes, which is what a provider's prompt cache keys on. A resume reuses the stored
//! prompt when its `Model:`/`Provider:` lines still match.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Our identity, used when `$HERMES_HOME/SOUL.md` is missing or empty.
pub const DEFAULT_IDENTITY: &str = "You are a capable, careful assistant running on \
hermes-loop, an agent that keeps what it learns: a memory of the person it works for, a \
library of skills (procedures that worked), and a searchable record of past sessions. Be \
direct and accurate. Say what you did and what you did not do; when you are unsure, check \
with a tool instead of guessing.";

const HELP_GUIDANCE: &str = "You run on hermes-loop, a set of small command-line programs \
(hermes-chat, hermes-review, hermes-curate, hermes-skills, hermes-memory, hermes-recall) \
that share the folder $HERMES_HOME. When the user asks how this agent itself is set up, \
answer from that, and suggest the command that does what they want.";

const TASK_COMPLETION: &str = "# Finishing the job\n\
Carry a task through to the end: run the command, read the result, fix what failed, and \
check that the outcome is what was asked for before you answer. If you cannot finish, say \
exactly what is left and why. Never claim a change you did not verify.";

const PARALLEL_TOOLS: &str = "# Tool calls\n\
When several reads or searches do not depend on each other, request them in one response; \
they run side by side. Anything that changes files or runs commands goes one step at a time.";

const MEMORY_GUIDANCE: &str = "Use the memory tool to keep durable facts that will matter in \
future sessions: the user's preferences and corrections, stable facts about their \
environment and conventions. Keep entries short; do not save task progress, one-off \
results or anything that is stale in a week.";

const SESSION_SEARCH_GUIDANCE: &str = "When the user refers to earlier work (\"like last \
time\", \"the fix we did\"), search past sessions with session_search before asking them \
to repeat it.";

const SKILLS_GUIDANCE: &str = "When you work out a non-trivial procedure that is likely to \
come up again, or the user corrects how a task should be done, save or update a skill with \
skill_manage so the next session starts from it. Prefer patching an existing skill to \
creating a near-duplicate.";

const CLI_HINT: &str = "You are talking to the user through a terminal. Prefer plain text \
over heavy markdown; short lists and code blocks are fine. Files you create stay on this \
machine: give their paths.";

/// The cap on one context file, in characters (Hermes's floor).
pub const CONTEXT_FILE_MAX_CHARS: usize = 20_000;

/// What went into the prompt, for the start-up line and `thread.started`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Loaded {
    pub memory_chars: usize,
    pub user_chars: usize,
    pub skills: usize,
    pub context_files: Vec<ContextFile>,
    pub soul: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ContextFile {
    pub path: String,
    pub bytes: usize,
    pub truncated: bool,
}

/// The inputs of a prompt, gathered by the caller.
pub struct PromptInputs<'a> {
    pub hermes_home: &'a Path,
    pub cwd: &'a Path,
    pub tools: &'a BTreeSet<String>,
    /// The rendered skills index (`skills::prompt::build`), empty when there are no skills.
    pub skills_index: String,
    pub skills_count: usize,
    /// The memory snapshot's prompt part (MEMORY and USER PROFILE blocks).
    pub memory_block: String,
    pub memory_chars: usize,
    pub user_chars: usize,
    /// The memory provider's block (`system_prompt_block`), empty without one.
    pub provider_block: String,
    /// `Tuesday, December 01, 2026`.
    pub date: String,
    pub model: &'a str,
    pub provider: &'a str,
    /// `--ignore-rules`: no SOUL.md, no context files, no memory.
    pub ignore_rules: bool,
}

/// Builds the prompt and says what it loaded.
pub fn build(inputs: &PromptInputs<'_>) -> (String, Loaded) {
    let mut loaded = Loaded::default();
    let has = |t: &str| inputs.tools.contains(t);

    let mut stable: Vec<String> = Vec::new();
    let soul = if inputs.ignore_rules {
        None
    } else {
        read_text(&inputs.hermes_home.join("SOUL.md")).filter(|s| !s.trim().is_empty())
    };
    loaded.soul = soul.is_some();
    stable.push(match soul {
        Some(text) => cap(text.trim(), CONTEXT_FILE_MAX_CHARS).0,
        None => DEFAULT_IDENTITY.to_string(),
    });
    stable.push(HELP_GUIDANCE.to_string());
    if !inputs.tools.is_empty() {
        stable.push(TASK_COMPLETION.to_string());
        stable.push(PARALLEL_TOOLS.to_string());
    }
    let guidance: Vec<&str> = [
        (has("memory"), MEMORY_GUIDANCE),
        (has("session_search"), SESSION_SEARCH_GUIDANCE),
        (has("skill_manage"), SKILLS_GUIDANCE),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, text)| *text)
    .collect();
    if !guidance.is_empty() {
        stable.push(guidance.join(" "));
    }
    if !inputs.skills_index.trim().is_empty() && (has("skill_view") || has("skills_list")) {
        stable.push(inputs.skills_index.clone());
        loaded.skills = inputs.skills_count;
    }
    stable.push(environment(inputs.cwd));
    stable.push(CLI_HINT.to_string());

    let mut context: Vec<String> = Vec::new();
    if !inputs.ignore_rules
        && let Some((name, path, text)) = project_context(inputs.cwd)
    {
        let (body, truncated) = cap(&text, CONTEXT_FILE_MAX_CHARS);
        loaded.context_files.push(ContextFile {
            path: path.display().to_string(),
            bytes: text.len(),
            truncated,
        });
        context.push(format!(
            "# Project Context\n\nThe following project context files have been loaded and \
             should be followed:\n\n## {name}\n\n{}",
            body.trim()
        ));
    }

    let mut volatile: Vec<String> = Vec::new();
    if !inputs.ignore_rules && !inputs.memory_block.trim().is_empty() {
        volatile.push(inputs.memory_block.clone());
        loaded.memory_chars = inputs.memory_chars;
        loaded.user_chars = inputs.user_chars;
    }
    if !inputs.provider_block.trim().is_empty() {
        volatile.push(inputs.provider_block.clone());
    }
    volatile.push(format!(
        "Conversation started: {}\nModel: {}\nProvider: {}",
        inputs.date, inputs.model, inputs.provider
    ));

    let tiers: Vec<String> = [stable, context, volatile]
        .into_iter()
        .map(|pieces| {
            pieces
                .iter()
                .map(|p| p.trim())
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .filter(|t| !t.is_empty())
        .collect();
    (tiers.join("\n\n"), loaded)
}

/// Whether a stored prompt can be reused: its last `Model:` and `Provider:` lines name the
/// model and provider of this run.
pub fn reusable(stored: &str, model: &str, provider: &str) -> bool {
    let last = |prefix: &str| {
        stored
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::trim)
    };
    last("Model: ") == Some(model) && last("Provider: ") == Some(provider)
}

fn environment(cwd: &Path) -> String {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| std::env::consts::OS.to_string());
    let home = std::env::var("HOME").unwrap_or_default();
    format!(
        "Host: {} ({release})\nUser home directory: {home}\nCurrent working directory: {}",
        os_name(),
        cwd.display()
    )
}

fn os_name() -> &'static str {
    match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "macOS",
        other => other,
    }
}

/// The first project context file, in Hermes's order: `.hermes.md`/`HERMES.md` from the cwd
/// up to the git root, then `AGENTS.md`, `CLAUDE.md`, `.cursorrules` in the cwd.
fn project_context(cwd: &Path) -> Option<(String, PathBuf, String)> {
    let git_root = cwd.ancestors().find(|d| d.join(".git").exists());
    let mut dirs: Vec<&Path> = Vec::new();
    for d in cwd.ancestors() {
        dirs.push(d);
        if Some(d) == git_root || git_root.is_none() {
            break;
        }
    }
    for dir in &dirs {
        for name in [".hermes.md", "HERMES.md"] {
            if let Some(text) = read_text(&dir.join(name)) {
                return Some((name.to_string(), dir.join(name), strip_front_matter(&text)));
            }
        }
    }
    for name in [
        "AGENTS.md",
        "agents.md",
        "CLAUDE.md",
        "claude.md",
        ".cursorrules",
    ] {
        let path = cwd.join(name);
        if let Some(text) = read_text(&path).filter(|t| !t.trim().is_empty()) {
            return Some((name.to_string(), path, text));
        }
    }
    None
}

fn strip_front_matter(text: &str) -> String {
    if let Some(rest) = text.strip_prefix("---\n")
        && let Some(end) = rest.find("\n---")
    {
        let after = &rest[end + 4..];
        return after.trim_start_matches(['\n', '\r']).to_string();
    }
    text.to_string()
}

fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// At most `max` characters: 70 % head and 20 % tail around a marker (Hermes's split).
pub fn cap(text: &str, max: usize) -> (String, bool) {
    let count = text.chars().count();
    if count <= max {
        return (text.to_string(), false);
    }
    let head: String = text.chars().take(max * 7 / 10).collect();
    let tail: String = text.chars().skip(count - max * 2 / 10).collect();
    let omitted = count - max * 7 / 10 - max * 2 / 10;
    (
        format!(
            "{head}\n\n[...truncated {omitted} characters; read the file for the rest...]\n\n{tail}"
        ),
        true,
    )
}

/// `Tuesday, December 01, 2026` in local time.
pub fn date_line(now: jiff::Timestamp) -> String {
    let zoned = now.to_zoned(jiff::tz::TimeZone::system());
    zoned.strftime("%A, %B %d, %Y").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(home: &'a Path, cwd: &'a Path, tools: &'a BTreeSet<String>) -> PromptInputs<'a> {
        PromptInputs {
            hermes_home: home,
            cwd,
            tools,
            skills_index: String::new(),
            skills_count: 0,
            memory_block: String::new(),
            memory_chars: 0,
            user_chars: 0,
            provider_block: String::new(),
            date: "Tuesday, December 01, 2026".into(),
            model: "fake-model",
            provider: "custom",
            ignore_rules: false,
        }
    }

    #[test]
    fn ends_with_the_identity_lines_and_is_reusable() {
        let dir = tempfile::tempdir().unwrap();
        let tools = BTreeSet::from(["terminal".to_string()]);
        let (prompt, loaded) = build(&inputs(dir.path(), dir.path(), &tools));
        assert!(prompt.starts_with(DEFAULT_IDENTITY));
        assert!(prompt.ends_with(
            "Conversation started: Tuesday, December 01, 2026\nModel: fake-model\nProvider: custom"
        ));
        assert!(reusable(&prompt, "fake-model", "custom"));
        assert!(!reusable(&prompt, "other", "custom"));
        assert!(!loaded.soul);
    }

    #[test]
    fn soul_and_agents_md_are_loaded_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SOUL.md"), "You are Ada.\n").unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "Run make test.\n").unwrap();
        let tools = BTreeSet::new();
        let (prompt, loaded) = build(&inputs(dir.path(), dir.path(), &tools));
        assert!(prompt.starts_with("You are Ada.\n\n"));
        assert!(prompt.contains("## AGENTS.md\n\nRun make test.\n\nConversation started"));
        assert_eq!(loaded.context_files.len(), 1);
        assert!(!loaded.context_files[0].truncated);
    }

    #[test]
    fn a_long_context_file_is_cut_with_a_marker() {
        let (text, truncated) = cap(&"x".repeat(30_000), 20_000);
        assert!(truncated);
        assert!(text.contains("[...truncated 12000 characters"));
    }

    fn tools(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn temp() -> tempfile::TempDir {
        match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("temp dir: {e}"),
        }
    }

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_default();
        }
        std::fs::write(path, text).unwrap_or_default();
    }

    #[test]
    fn the_tiers_come_in_hermess_order_each_piece_once() {
        let home = temp();
        let all = tools(&[
            "memory",
            "session_search",
            "skill_manage",
            "skill_view",
            "terminal",
        ]);
        let mut given = inputs(home.path(), home.path(), &all);
        given.skills_index = "<available_skills>\n  ops: x\n</available_skills>\n".into();
        given.skills_count = 4;
        given.memory_block = "MEMORY\nlikes tea\n".into();
        given.memory_chars = 9;
        given.user_chars = 3;
        given.provider_block = "  PROVIDER BLOCK  ".into();
        let (prompt, loaded) = build(&given);
        let want = [
            DEFAULT_IDENTITY.to_string(),
            HELP_GUIDANCE.into(),
            TASK_COMPLETION.into(),
            PARALLEL_TOOLS.into(),
            format!("{MEMORY_GUIDANCE} {SESSION_SEARCH_GUIDANCE} {SKILLS_GUIDANCE}"),
            "<available_skills>\n  ops: x\n</available_skills>".into(),
            environment(home.path()),
            CLI_HINT.into(),
            "MEMORY\nlikes tea".into(),
            "PROVIDER BLOCK".into(),
            "Conversation started: Tuesday, December 01, 2026\nModel: fake-model\nProvider: custom"
                .into(),
        ]
        .join("\n\n");
        assert_eq!(prompt, want);
        assert_eq!(
            loaded,
            Loaded {
                memory_chars: 9,
                user_chars: 3,
                skills: 4,
                context_files: Vec::new(),
                soul: false,
            }
        );
    }

    #[test]
    fn guidance_is_given_only_for_the_tools_present() {
        let home = temp();
        let prompt_with = |names: &[&str]| {
            let t = tools(names);
            build(&inputs(home.path(), home.path(), &t)).0
        };
        let none = prompt_with(&[]);
        for text in [
            TASK_COMPLETION,
            PARALLEL_TOOLS,
            MEMORY_GUIDANCE,
            SKILLS_GUIDANCE,
        ] {
            assert!(!none.contains(text));
        }
        let memory = prompt_with(&["memory"]);
        assert!(memory.contains(&format!("{PARALLEL_TOOLS}\n\n{MEMORY_GUIDANCE}\n\n")));
        assert!(!memory.contains(SESSION_SEARCH_GUIDANCE));
        let two = prompt_with(&["session_search", "skill_manage"]);
        assert!(two.contains(&format!(
            "\n\n{SESSION_SEARCH_GUIDANCE} {SKILLS_GUIDANCE}\n\n"
        )));
        assert!(!two.contains(MEMORY_GUIDANCE));
    }

    #[test]
    fn the_skills_index_needs_a_skills_tool_and_some_text() {
        let home = temp();
        let index = "<available_skills>\n  ops: x\n</available_skills>";
        let with = |names: &[&str], text: &str| {
            let t = tools(names);
            let mut given = inputs(home.path(), home.path(), &t);
            given.skills_index = text.into();
            given.skills_count = 2;
            let (prompt, loaded) = build(&given);
            (prompt.contains("<available_skills>"), loaded.skills)
        };
        assert_eq!(with(&["skills_list"], index), (true, 2));
        assert_eq!(with(&["skill_view"], index), (true, 2));
        assert_eq!(with(&["terminal"], index), (false, 0));
        assert_eq!(with(&["skill_view"], " \n "), (false, 0));
    }

    #[test]
    fn ignoring_rules_drops_soul_context_and_memory_but_not_the_provider() {
        let home = temp();
        write(&home.path().join("SOUL.md"), "You are Ada.\n");
        write(&home.path().join("AGENTS.md"), "Run make test.\n");
        let t = tools(&[]);
        let mut given = inputs(home.path(), home.path(), &t);
        given.memory_block = "MEMORY\nx".into();
        given.memory_chars = 1;
        given.provider_block = "PROVIDER".into();
        given.ignore_rules = true;
        let (prompt, loaded) = build(&given);
        assert!(prompt.starts_with(DEFAULT_IDENTITY));
        assert!(!prompt.contains("Ada") && !prompt.contains("make test"));
        assert!(!prompt.contains("MEMORY"));
        assert!(prompt.contains("\n\nPROVIDER\n\nConversation started"));
        assert_eq!(loaded, Loaded::default());
    }

    #[test]
    fn a_blank_soul_or_memory_counts_as_none() {
        let home = temp();
        write(&home.path().join("SOUL.md"), " \n\n");
        let t = tools(&[]);
        let mut given = inputs(home.path(), home.path(), &t);
        given.memory_block = "\n  \n".into();
        given.memory_chars = 5;
        let (prompt, loaded) = build(&given);
        assert!(prompt.starts_with(&format!("{DEFAULT_IDENTITY}\n\n{HELP_GUIDANCE}\n\n")));
        assert!(!loaded.soul);
        assert_eq!(loaded.memory_chars, 0);
        let long = format!("{}\n", "s".repeat(CONTEXT_FILE_MAX_CHARS + 10));
        write(&home.path().join("SOUL.md"), &long);
        let (prompt, loaded) = build(&given);
        assert!(loaded.soul);
        let (capped, _) = cap(long.trim(), CONTEXT_FILE_MAX_CHARS);
        assert!(prompt.starts_with(&format!("{capped}\n\n{HELP_GUIDANCE}")));
    }

    #[test]
    fn the_hermes_file_is_looked_for_up_to_the_git_root_and_beats_agents_md() {
        let root = temp();
        let repo = root.path().join("repo");
        let cwd = repo.join("src/deep");
        std::fs::create_dir_all(repo.join(".git")).unwrap_or_default();
        std::fs::create_dir_all(&cwd).unwrap_or_default();
        write(&root.path().join(".hermes.md"), "above the repo\n");
        write(&cwd.join("AGENTS.md"), "agents here\n");
        let found = |dir: &Path| project_context(dir);
        assert_eq!(
            found(&cwd),
            Some((
                "AGENTS.md".into(),
                cwd.join("AGENTS.md"),
                "agents here\n".into()
            ))
        );
        write(
            &repo.join("HERMES.md"),
            "---\ntitle: x\n---\n\nat the root\n",
        );
        assert_eq!(
            found(&cwd),
            Some((
                "HERMES.md".into(),
                repo.join("HERMES.md"),
                "at the root\n".into()
            ))
        );
        write(&repo.join("src/.hermes.md"), "nearer\n");
        assert_eq!(
            found(&cwd).map(|(n, p, _)| (n, p)),
            Some((".hermes.md".into(), repo.join("src/.hermes.md")))
        );
        // Without a git root only the folder itself is searched.
        let loose = root.path().join("loose/inner");
        std::fs::create_dir_all(&loose).unwrap_or_default();
        write(&root.path().join("loose/.hermes.md"), "parent\n");
        assert_eq!(found(&loose), None);
    }

    #[test]
    fn an_empty_agents_file_gives_way_to_the_next_name() {
        let dir = temp();
        write(&dir.path().join("AGENTS.md"), "  \n");
        write(&dir.path().join("CLAUDE.md"), "claude rules\n");
        write(&dir.path().join(".cursorrules"), "cursor rules\n");
        assert_eq!(
            project_context(dir.path()).map(|(n, _, t)| (n, t)),
            Some(("CLAUDE.md".into(), "claude rules\n".into()))
        );
        let t = tools(&[]);
        let long = "r".repeat(CONTEXT_FILE_MAX_CHARS + 1);
        write(&dir.path().join("CLAUDE.md"), &long);
        let (prompt, loaded) = build(&inputs(dir.path(), dir.path(), &t));
        assert_eq!(
            loaded.context_files,
            [ContextFile {
                path: dir.path().join("CLAUDE.md").display().to_string(),
                bytes: CONTEXT_FILE_MAX_CHARS + 1,
                truncated: true,
            }]
        );
        assert!(prompt.contains(
            "# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n## CLAUDE.md\n\nrrr"
        ));
    }

    #[test]
    fn front_matter_is_stripped_only_when_it_is_closed() {
        assert_eq!(strip_front_matter("---\na: b\n---\n\nbody\n"), "body\n");
        assert_eq!(strip_front_matter("---\na: b\nbody\n"), "---\na: b\nbody\n");
        assert_eq!(strip_front_matter("body\n---\n"), "body\n---\n");
    }

    #[test]
    fn a_cut_keeps_seven_tenths_before_and_two_tenths_after() {
        assert_eq!(
            cap("abcdefghij", 5),
            (
                "abc\n\n[...truncated 6 characters; read the file for the rest...]\n\nj".into(),
                true
            )
        );
        assert_eq!(cap("abcde", 5), ("abcde".into(), false));
        assert_eq!(cap("ééééééé", 6).0.chars().next(), Some('é'));
    }

    #[test]
    fn reuse_reads_the_last_model_and_provider_lines() {
        let prompt = "x\nModel: old\nProvider: p\nModel:  new \nProvider: p";
        assert!(reusable(prompt, "new", "p"));
        assert!(!reusable(prompt, "old", "p"));
        assert!(!reusable(prompt, "new", "q"));
        assert!(!reusable("Model: new", "new", "p"));
    }

    #[test]
    fn the_environment_names_host_home_and_folder() {
        let dir = temp();
        let env = environment(dir.path());
        let lines: Vec<&str> = env.lines().collect();
        assert_eq!(lines.len(), 3);
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        assert_eq!(lines[0], format!("Host: Linux ({})", release.trim()));
        assert_eq!(
            lines[1],
            format!(
                "User home directory: {}",
                std::env::var("HOME").unwrap_or_default()
            )
        );
        assert_eq!(
            lines[2],
            format!("Current working directory: {}", dir.path().display())
        );
        assert_eq!(os_name(), "Linux");
    }

    #[test]
    fn the_date_line_spells_the_day_out() {
        let noon = jiff::Timestamp::from_second(1_796_126_400).unwrap_or_default();
        assert_eq!(date_line(noon), "Tuesday, December 01, 2026");
    }
}
