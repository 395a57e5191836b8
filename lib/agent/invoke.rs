//! Skills as commands (reference `skills` §8.2, §8.4): `/<skill> [instruction]` and bundles
//! (`$HERMES_HOME/skill-bundles/*.yaml`) become one user message that carries the skill's
//! text, never the system prompt (which stays byte-stable for the provider's cache). The
//! message uses Hermes's markers, so the user's own instruction can be recovered from a
//! stored session by either agent ([`extract_instruction`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::skills::guards::Origin;
use crate::skills::library::Library;
use crate::skills::manage::Session;

const INSTRUCTION_MARKER: &str =
    "The user has provided the following instruction alongside the skill invocation: ";
const RUNTIME_NOTE: &str = "\n\n[Runtime note:";

/// A skill loaded for a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub name: String,
    /// The block of the message for this skill.
    pub block: String,
    /// Required environment variables that are not set (`skill_view`'s readiness).
    pub missing_env: Vec<String>,
}

/// Loads `name` through `skill_view` (which counts a use, as an invocation should).
pub fn load_skill(lib: &Library, name: &str, activation: &str) -> Result<Loaded, String> {
    let scanner = crate::skills::write_scan::Unavailable;
    let mut session = Session::new(lib, Origin::Foreground, &scanner);
    let viewed = session.view(name, None);
    if viewed.get("success") != Some(&Value::Bool(true)) {
        return Err(viewed
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("skill not found")
            .to_string());
    }
    let text = |k: &str| {
        viewed
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let skill_name = Some(text("name"))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| name.to_string());
    let mut lines: Vec<String> = vec![activation.replace("{name}", &skill_name), String::new()];
    lines.push(text("content").trim().to_string());
    let dir = text("skill_dir");
    if !dir.is_empty() {
        lines.push(String::new());
        lines.push(format!("[Skill directory: {dir}]"));
        lines.push(
            "Resolve any relative paths in this skill (e.g. `scripts/foo.js`, `templates/config.yaml`) against that directory, then run them with the terminal tool using the absolute path."
                .to_string(),
        );
    }
    if viewed.get("setup_needed") == Some(&Value::Bool(true)) {
        let note = text("setup_note");
        if !note.is_empty() {
            lines.push(String::new());
            lines.push(format!("[Skill setup note: {note}]"));
        }
    }
    let files = linked_files(&viewed);
    if !files.is_empty() && !dir.is_empty() {
        lines.push(String::new());
        lines.push("[This skill has supporting files:]".to_string());
        for rel in &files {
            lines.push(format!(
                "- {rel}  ->  {}",
                Path::new(&dir).join(rel).display()
            ));
        }
        lines.push(format!(
            "\nLoad any of these with skill_view(name=\"{skill_name}\", file_path=\"<path>\"), or run scripts directly by absolute path (e.g. `node {dir}/scripts/foo.js`)."
        ));
    }
    let missing_env = viewed
        .get("missing_required_environment_variables")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Ok(Loaded {
        name: skill_name,
        block: lines.join("\n"),
        missing_env,
    })
}

fn linked_files(viewed: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(Value::Object(groups)) = viewed.get("linked_files") {
        for files in groups.values() {
            if let Some(items) = files.as_array() {
                out.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
            }
        }
    }
    out.sort();
    out
}

/// The message of `/<skill> [instruction]`.
pub fn skill_message(
    lib: &Library,
    name: &str,
    instruction: &str,
) -> Result<(String, Loaded), String> {
    let loaded = load_skill(
        lib,
        name,
        "[IMPORTANT: The user has invoked the \"{name}\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]",
    )?;
    let mut message = loaded.block.clone();
    if !instruction.trim().is_empty() {
        message.push_str(&format!("\n\n{INSTRUCTION_MARKER}{}", instruction.trim()));
    }
    Ok((message, loaded))
}

/// A skill bundle from `skill-bundles/*.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub name: String,
    pub slug: String,
    pub skills: Vec<String>,
    pub description: String,
    pub instruction: Option<String>,
}

/// The bundles in `dir`, `*.yaml` then `*.yml`, each sorted; the first file wins a slug.
pub fn bundles(dir: &Path) -> Vec<Bundle> {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for ext in ["yaml", "yml"] {
        let mut these: Vec<_> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == ext))
                    .collect()
            })
            .unwrap_or_default();
        these.sort();
        files.extend(these);
    }
    let mut out: Vec<Bundle> = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(value) = crate::yaml::load(&text, &path.display().to_string()) else {
            continue;
        };
        let Some(map) = value.as_map() else { continue };
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = map
            .get("name")
            .map(|v| v.py_str())
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(stem);
        let skills: Vec<String> = map
            .get("skills")
            .and_then(|v| v.as_seq())
            .map(|items| {
                items
                    .iter()
                    .map(|i| i.py_str().trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if skills.is_empty() {
            continue;
        }
        let slug = slug(&name);
        if slug.is_empty() || out.iter().any(|b| b.slug == slug) {
            continue;
        }
        let description = map
            .get("description")
            .map(|v| v.py_str())
            .unwrap_or_else(|| format!("Load {} skills as a bundle", skills.len()));
        let instruction = map
            .get("instruction")
            .map(|v| v.py_str())
            .filter(|s| !s.trim().is_empty());
        out.push(Bundle {
            name,
            slug,
            skills,
            description,
            instruction,
        });
    }
    out
}

/// The message of a bundle invocation, and the skills it loaded.
pub fn bundle_message(lib: &Library, bundle: &Bundle, instruction: &str) -> (String, Vec<Loaded>) {
    let mut loaded = Vec::new();
    let mut missing = Vec::new();
    for name in &bundle.skills {
        let note = format!("[Loaded as part of the \"{}\" skill bundle.]", bundle.name);
        match load_skill(lib, name, &note) {
            Ok(l) => loaded.push(l),
            Err(_) => missing.push(name.clone()),
        }
    }
    let mut head = vec![
        format!(
            "[IMPORTANT: The user has invoked the \"{}\" skill bundle, loading {} skills together. Treat every skill below as active guidance for this turn.]",
            bundle.name,
            loaded.len()
        ),
        String::new(),
        format!("Bundle: {}", bundle.name),
        format!(
            "Skills loaded: {}",
            loaded
                .iter()
                .map(|l| l.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    if !missing.is_empty() {
        head.push(format!("Skills missing (skipped): {}", missing.join(", ")));
    }
    if let Some(i) = &bundle.instruction {
        head.push(String::new());
        head.push(format!("Bundle instruction: {i}"));
    }
    if !instruction.trim().is_empty() {
        head.push(String::new());
        head.push(format!("User instruction: {}", instruction.trim()));
    }
    let mut blocks = vec![head.join("\n")];
    blocks.extend(loaded.iter().map(|l| l.block.clone()));
    (blocks.join("\n\n"), loaded)
}

/// The user's own words in a stored skill invocation, if any.
pub fn extract_instruction(message: &str) -> Option<String> {
    if let Some(start) = message.rfind(INSTRUCTION_MARKER) {
        let rest = &message[start + INSTRUCTION_MARKER.len()..];
        let end = rest.find(RUNTIME_NOTE).unwrap_or(rest.len());
        return Some(rest[..end].trim().to_string());
    }
    message
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("User instruction: "))
        .map(|s| s.trim().to_string())
}

/// What the user typed for a stored skill or bundle invocation (`/<slug> [instruction]`), so
/// `/undo` puts that back at the prompt rather than the expanded message. `None` for a
/// message that is not an invocation.
pub fn typed_form(message: &str) -> Option<String> {
    let rest = message.strip_prefix("[IMPORTANT: The user has invoked the \"")?;
    let (name, after) = rest.split_once('"')?;
    // Only the part the invocation wrote: a skill's own text may hold either marker.
    let instruction = if after.starts_with(" skill, indicating") {
        message.rfind(INSTRUCTION_MARKER).map(|at| {
            let rest = &message[at + INSTRUCTION_MARKER.len()..];
            rest[..rest.find(RUNTIME_NOTE).unwrap_or(rest.len())].trim()
        })
    } else if after.starts_with(" skill bundle, loading") {
        let head = &message[..message
            .find("\n\n[Loaded as part of")
            .unwrap_or(message.len())];
        head.lines()
            .find_map(|l| l.strip_prefix("User instruction: "))
            .map(str::trim)
    } else {
        return None;
    };
    let mut typed = format!("/{}", slug(name));
    if let Some(instruction) = instruction.filter(|i| !i.is_empty()) {
        typed.push(' ');
        typed.push_str(instruction);
    }
    Some(typed)
}

/// Hermes's command slug: lowercase, spaces and underscores as `-`, only `[a-z0-9-]`, no
/// doubled or edge dashes.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        let c = if c == ' ' || c == '_' { '-' } else { c };
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            if c == '-' && out.ends_with('-') {
                continue;
            }
            out.push(c);
        }
    }
    out.trim_matches('-').to_string()
}

/// Skill commands by slug (first skill wins a slug; built-in commands are never shadowed).
pub fn skill_commands(lib: &Library, builtins: &[&str]) -> BTreeMap<String, String> {
    let rows = crate::skills::list::skills_list_tool(lib, None);
    let mut out = BTreeMap::new();
    if let Some(skills) = rows.get("skills").and_then(Value::as_array) {
        for s in skills {
            let Some(name) = s.get("name").and_then(Value::as_str) else {
                continue;
            };
            let slug = slug(name);
            if slug.is_empty() || builtins.contains(&slug.as_str()) {
                continue;
            }
            out.entry(slug).or_insert_with(|| name.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_hermes() {
        assert_eq!(slug("Deploy Helper"), "deploy-helper");
        assert_eq!(slug("my__skill!"), "my-skill");
        assert_eq!(slug("--x--"), "x");
    }

    #[test]
    fn the_instruction_comes_back_out() {
        let m = format!(
            "[IMPORTANT: …]\n\nbody\n\n{INSTRUCTION_MARKER}rotate the staging cert\n\n[Runtime note: x]"
        );
        assert_eq!(
            extract_instruction(&m).as_deref(),
            Some("rotate the staging cert")
        );
        assert_eq!(
            extract_instruction("Bundle: b\nUser instruction: go"),
            Some("go".to_string())
        );
        assert_eq!(extract_instruction("plain"), None);
    }

    #[test]
    fn what_was_typed_comes_back_from_a_skill_or_bundle_invocation() {
        let (_dir, lib) = library();
        let typed = |message: Result<(String, Loaded), String>| {
            message.ok().and_then(|(m, _)| typed_form(&m))
        };
        assert_eq!(
            typed(skill_message(&lib, "Deploy Helper", "  ship v2  ")).as_deref(),
            Some("/deploy-helper ship v2")
        );
        assert_eq!(
            typed(skill_message(&lib, "plain-one", "")).as_deref(),
            Some("/plain-one")
        );
        let bundle = Bundle {
            name: "Ops Kit".into(),
            slug: "ops-kit".into(),
            skills: vec!["plain-one".into()],
            description: String::new(),
            instruction: Some("Be careful.".into()),
        };
        let (go, _) = bundle_message(&lib, &bundle, " go ");
        assert_eq!(typed_form(&go).as_deref(), Some("/ops-kit go"));
        let (bare, _) = bundle_message(&lib, &bundle, "");
        assert_eq!(typed_form(&bare).as_deref(), Some("/ops-kit"));
        assert_eq!(typed_form("just words"), None);
        assert_eq!(
            typed_form("[IMPORTANT: The user has invoked the \"x\" plan]"),
            None
        );
    }

    #[test]
    fn bundles_are_read_first_file_wins() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.yaml"),
            "name: Ops Kit\nskills: [x, ' y ', '']\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("b.yml"), "name: ops kit\nskills: [z]\n").unwrap();
        std::fs::write(dir.path().join("c.yaml"), "skills: []\n").unwrap();
        let b = bundles(dir.path());
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].slug, "ops-kit");
        assert_eq!(b[0].skills, ["x", "y"]);
        assert_eq!(b[0].description, "Load 2 skills as a bundle");
    }

    use crate::home::Home;

    /// A library with `deploy-helper` (a reference, a script, a required variable nobody
    /// sets) and `plain-one`.
    fn library() -> (tempfile::TempDir, Library) {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let skill = dir.path().join("skills/ops/deploy-helper");
        let write = |rel: &str, text: &str| {
            let path = skill.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_default();
            }
            std::fs::write(path, text).unwrap_or_default();
        };
        write(
            "SKILL.md",
            "---\nname: Deploy Helper\ndescription: Deploys the app.\nrequired_environment_variables:\n  - name: HL_UNSET_DEPLOY_TOKEN\n    prompt: The deploy token\n---\n# Deploy\n\nRun scripts/deploy.sh.\n",
        );
        write("references/guide.md", "guide\n");
        write("scripts/deploy.sh", "echo deploy\n");
        let plain = dir.path().join("skills/plain-one");
        std::fs::create_dir_all(&plain).unwrap_or_default();
        std::fs::write(
            plain.join("SKILL.md"),
            "---\nname: plain-one\ndescription: Plain.\n---\nDo the plain thing.\n",
        )
        .unwrap_or_default();
        let Ok(lib) = Library::open(Home::at(dir.path())) else {
            panic!("library")
        };
        (dir, lib)
    }

    #[test]
    fn a_skill_message_carries_the_skill_its_files_and_the_instruction() {
        let (dir, lib) = library();
        let Ok((message, loaded)) = skill_message(&lib, "Deploy Helper", "  ship v2  ") else {
            panic!("skill message")
        };
        let skill_dir = dir.path().join("skills/ops/deploy-helper");
        let d = skill_dir.display();
        let want = format!(
            "[IMPORTANT: The user has invoked the \"Deploy Helper\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]\n\n\
             ---\nname: Deploy Helper\ndescription: Deploys the app.\nrequired_environment_variables:\n  - name: HL_UNSET_DEPLOY_TOKEN\n    prompt: The deploy token\n---\n# Deploy\n\nRun scripts/deploy.sh.\n\n\
             [Skill directory: {d}]\n\
             Resolve any relative paths in this skill (e.g. `scripts/foo.js`, `templates/config.yaml`) against that directory, then run them with the terminal tool using the absolute path.\n\n\
             [Skill setup note: Setup needed before using this skill: missing env $HL_UNSET_DEPLOY_TOKEN.]\n\n\
             [This skill has supporting files:]\n\
             - references/guide.md  ->  {d}/references/guide.md\n\
             - scripts/deploy.sh  ->  {d}/scripts/deploy.sh\n\n\
             Load any of these with skill_view(name=\"Deploy Helper\", file_path=\"<path>\"), or run scripts directly by absolute path (e.g. `node {d}/scripts/foo.js`).\n\n\
             {INSTRUCTION_MARKER}ship v2"
        );
        assert_eq!(message, want);
        assert_eq!(loaded.name, "Deploy Helper");
        assert_eq!(loaded.missing_env, ["HL_UNSET_DEPLOY_TOKEN"]);
        assert_eq!(extract_instruction(&message).as_deref(), Some("ship v2"));
    }

    #[test]
    fn a_skill_found_by_its_folder_is_called_by_its_own_name() {
        let (_dir, lib) = library();
        let Ok((message, loaded)) = skill_message(&lib, "deploy-helper", "") else {
            panic!("skill message")
        };
        assert_eq!(loaded.name, "Deploy Helper");
        assert!(
            message.starts_with("[IMPORTANT: The user has invoked the \"Deploy Helper\" skill,"),
            "{message}"
        );
    }

    #[test]
    fn a_plain_skill_has_no_notes_and_no_instruction_line() {
        let (dir, lib) = library();
        let Ok((message, loaded)) = skill_message(&lib, "plain-one", " ") else {
            panic!("skill message")
        };
        let d = dir.path().join("skills/plain-one");
        assert_eq!(
            message,
            format!(
                "[IMPORTANT: The user has invoked the \"plain-one\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]\n\n\
                 ---\nname: plain-one\ndescription: Plain.\n---\nDo the plain thing.\n\n\
                 [Skill directory: {}]\n\
                 Resolve any relative paths in this skill (e.g. `scripts/foo.js`, `templates/config.yaml`) against that directory, then run them with the terminal tool using the absolute path.",
                d.display()
            )
        );
        assert!(loaded.missing_env.is_empty());
        assert!(skill_message(&lib, "no-such-skill", "").is_err());
    }

    #[test]
    fn a_bundle_message_lists_what_loaded_and_what_did_not() {
        let (_dir, lib) = library();
        let bundle = Bundle {
            name: "Ops Kit".into(),
            slug: "ops-kit".into(),
            skills: vec!["plain-one".into(), "ghost".into()],
            description: String::new(),
            instruction: Some("Be careful.".into()),
        };
        let (message, loaded) = bundle_message(&lib, &bundle, " go ");
        assert_eq!(loaded.len(), 1);
        let head = "[IMPORTANT: The user has invoked the \"Ops Kit\" skill bundle, loading 1 skills together. Treat every skill below as active guidance for this turn.]\n\n\
             Bundle: Ops Kit\nSkills loaded: plain-one\nSkills missing (skipped): ghost\n\n\
             Bundle instruction: Be careful.\n\nUser instruction: go\n\n\
             [Loaded as part of the \"Ops Kit\" skill bundle.]\n\n---\nname: plain-one";
        assert!(message.starts_with(head), "{message}");
        assert_eq!(extract_instruction(&message).as_deref(), Some("go"));
        let quiet = Bundle {
            instruction: None,
            skills: vec!["plain-one".into()],
            ..bundle
        };
        let (message, _) = bundle_message(&lib, &quiet, "");
        assert!(
            message.starts_with(
                "[IMPORTANT: The user has invoked the \"Ops Kit\" skill bundle, loading 1 skills together. Treat every skill below as active guidance for this turn.]\n\nBundle: Ops Kit\nSkills loaded: plain-one\n\n[Loaded"
            ),
            "{message}"
        );
    }

    #[test]
    fn skill_commands_never_shadow_builtins_and_the_first_skill_wins_a_slug() {
        let (_dir, lib) = library();
        let commands = skill_commands(&lib, &["plain-one"]);
        assert_eq!(
            commands.into_iter().collect::<Vec<_>>(),
            [("deploy-helper".to_string(), "Deploy Helper".to_string())]
        );
        assert_eq!(skill_commands(&lib, &[]).len(), 2);
    }

    #[test]
    fn bundle_files_give_name_description_and_instruction() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).unwrap_or_default();
        };
        write(
            "b-kit.yaml",
            "skills: [x]\ndescription: The kit.\ninstruction: ' '\n",
        );
        write("a.yml", "name: Second\nskills: [y]\ninstruction: Do it.\n");
        write("c.txt", "name: ignored\nskills: [z]\n");
        write("d.yaml", "name: '!!!'\nskills: [z]\n");
        write("e.yaml", "- not a map\n");
        write("f.yaml", "name: ' '\nskills: [w]\n");
        let found = bundles(dir.path());
        let summary: Vec<(&str, &str, &str, Option<&str>)> = found
            .iter()
            .map(|b| {
                (
                    b.name.as_str(),
                    b.slug.as_str(),
                    b.description.as_str(),
                    b.instruction.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("b-kit", "b-kit", "The kit.", None),
                ("f", "f", "Load 1 skills as a bundle", None),
                (
                    "Second",
                    "second",
                    "Load 1 skills as a bundle",
                    Some("Do it.")
                )
            ]
        );
        assert!(bundles(&dir.path().join("absent")).is_empty());
    }

    #[test]
    fn more_slugs() {
        assert_eq!(slug("A_B c"), "a-b-c");
        assert_eq!(slug("Ünïcode 2"), "ncode-2");
        assert_eq!(slug("- -"), "");
        assert_eq!(slug("a - b"), "a-b");
    }
}
