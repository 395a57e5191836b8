//! The one-line summary of a review (reference `loop` §1.7): what this review itself wrote,
//! in the words and order Hermes prints them, `off` / `on` / `verbose`.
//!
//! Only the review's own actions are looked at (the caller passes them, never the
//! conversation's earlier tool results), and only successful writes count: a refused or
//! failed write, a staged write in `on` mode and "Nothing to save." print nothing.

use serde_json::{Map, Value};

/// The prefix of the line as hermes-chat prints it.
pub const PREFIX: &str = "💾 Self-improvement review: ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notify {
    Off,
    On,
    Verbose,
}

impl Notify {
    /// `display.memory_notifications` or `--notify`: YAML booleans are on/off, anything
    /// unknown behaves as `on` (as upstream).
    pub fn parse(value: Option<&Value>) -> Notify {
        match value {
            Some(Value::Bool(false)) => Notify::Off,
            Some(Value::String(s)) => match s.trim().to_lowercase().as_str() {
                "off" | "false" | "no" => Notify::Off,
                "verbose" => Notify::Verbose,
                _ => Notify::On,
            },
            _ => Notify::On,
        }
    }
}

/// One call the review made: the tool, its arguments and its result object.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub tool: String,
    pub arguments: Value,
    pub result: Value,
}

/// Whether `action` changed a store: a successful memory or skill write, not staged for
/// approval, and not the memory tool's "already there" answer (upstream counts that one as
/// "Memory updated" because its message contains "added"; nothing was written).
pub fn is_write(action: &Action) -> bool {
    if action.tool != "memory" && action.tool != "skill_manage" {
        return false;
    }
    let result = &action.result;
    let message = result.get("message").and_then(Value::as_str).unwrap_or("");
    result.get("success").is_some_and(crate::pytext::truthy)
        && result.get("staged") != Some(&Value::Bool(true))
        && message != crate::memory::store::MESSAGE_EXISTS
        && message != crate::memory::store::MESSAGE_EQUIVALENT
}

/// The summary line, or `None` when there is nothing to say.
pub fn line(actions: &[Action], mode: Notify) -> Option<String> {
    if mode == Notify::Off {
        return None;
    }
    let verbose = mode == Notify::Verbose;
    let mut parts: Vec<String> = Vec::new();
    for action in actions {
        if action.tool != "memory" && action.tool != "skill_manage" {
            continue;
        }
        let Some(data) = action.result.as_object() else {
            continue;
        };
        // Staged writes still show in verbose mode, as upstream shows them.
        let staged = data.get("staged") == Some(&Value::Bool(true));
        if !(is_write(action) || verbose && staged) {
            continue;
        }
        let empty = Map::new();
        let args = action.arguments.as_object().unwrap_or(&empty);
        let arg = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("");
        let message = data.get("message").and_then(Value::as_str).unwrap_or("");
        let lower = message.to_lowercase();
        let is_skill = action.tool == "skill_manage";
        let target = data
            .get("target")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                let t = arg("target");
                if t.is_empty() {
                    "memory".into()
                } else {
                    t.into()
                }
            });
        if !verbose
            && (lower.contains("created")
                || lower.contains("updated")
                || is_skill && lower.contains("patched"))
        {
            parts.push(message.to_string());
            continue;
        }
        let label = if is_skill {
            "Skill".to_string()
        } else {
            match target.as_str() {
                "memory" => "Memory".to_string(),
                "user" => "User profile".to_string(),
                "" => continue,
                other => other.to_string(),
            }
        };
        if verbose {
            if is_skill {
                parts.push(verbose_skill(data, args, message));
            } else {
                parts.push(verbose_memory(&label, args));
            }
            continue;
        }
        // Upstream also checks for "Entry added", which "add" already covers.
        if ["added", "replaced", "removed", "applied"]
            .iter()
            .any(|k| lower.contains(k))
            || lower.contains("add")
        {
            parts.push(format!("{label} updated"));
        }
    }
    let mut seen = std::collections::HashSet::new();
    parts.retain(|p| seen.insert(p.clone()));
    (!parts.is_empty()).then(|| format!("{PREFIX}{}", parts.join(" · ")))
}

fn clip(text: &str, n: usize) -> String {
    let flat = text.replace('\n', " ");
    if flat.chars().count() > n {
        format!("{}…", flat.chars().take(n).collect::<String>())
    } else {
        flat
    }
}

fn verbose_skill(data: &Map<String, Value>, args: &Map<String, Value>, message: &str) -> String {
    let empty = Map::new();
    let change = data
        .get("_change")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let pick = |change_key: &str, arg_key: &str| -> String {
        change
            .get(change_key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .or_else(|| args.get(arg_key).and_then(Value::as_str))
            .unwrap_or("")
            .to_string()
    };
    let name = args.get("name").and_then(Value::as_str).unwrap_or("");
    let action = args.get("action").and_then(Value::as_str).unwrap_or("?");
    let description = change
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (old, new) = (pick("old", "old_string"), pick("new", "new_string"));
    match action {
        "patch" if !old.is_empty() || !new.is_empty() => format!(
            "📝 Skill '{name}' patched: \"{}\" → \"{}\"",
            clip(&old, 80),
            clip(&new, 80)
        ),
        "create" if !description.is_empty() => {
            format!("📝 Skill '{name}' created: {description}")
        }
        "edit" if !description.is_empty() => {
            format!("📝 Skill '{name}' rewritten: {description}")
        }
        _ if message.is_empty() => format!("📝 Skill {action}"),
        _ => format!("📝 {message}"),
    }
}

fn verbose_memory(label: &str, args: &Map<String, Value>) -> String {
    let one = |op: &Map<String, Value>| -> Option<String> {
        let text = |k: &str| op.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        match op.get("action").and_then(Value::as_str) {
            Some("add") => text("content").map(|c| format!("{label} ➕ {}", clip(c, 120))),
            Some("replace") => text("content").map(|c| format!("{label} ✏️ {}", clip(c, 120))),
            Some("remove") => text("old_text").map(|o| format!("{label} ➖ {}", clip(o, 60))),
            _ => None,
        }
    };
    if let Some(ops) = args
        .get("operations")
        .and_then(Value::as_array)
        .filter(|o| !o.is_empty())
    {
        let lines: Vec<String> = ops
            .iter()
            .filter_map(Value::as_object)
            .filter_map(one)
            .collect();
        if !lines.is_empty() {
            return lines.join(" · ");
        }
        return format!("{label} updated");
    }
    one(args).unwrap_or_else(|| format!("{label} updated"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn act(tool: &str, arguments: Value, result: Value) -> Action {
        Action {
            tool: tool.into(),
            arguments,
            result,
        }
    }

    fn sample() -> Vec<Action> {
        vec![
            act(
                "memory",
                json!({"action": "add", "target": "user", "content": "User prefers terse answers"}),
                json!({"success": true, "target": "user", "message": "Entry added."}),
            ),
            act(
                "skill_view",
                json!({"name": "git-workflow"}),
                json!({"success": true}),
            ),
            act(
                "skill_manage",
                json!({"action": "patch", "name": "git-workflow", "old_string": "git push", "new_string": "git push --force-with-lease"}),
                json!({"success": true, "message": "Patched SKILL.md in skill 'git-workflow' (1 replacement)."}),
            ),
            act(
                "skill_manage",
                json!({"action": "create", "name": "py-testing"}),
                json!({"success": true, "message": "Skill 'py-testing' created."}),
            ),
            act(
                "memory",
                json!({"action": "replace", "target": "memory", "old_text": "x", "content": "y"}),
                json!({"success": false, "error": "No entry matched 'x'."}),
            ),
            act(
                "memory",
                json!({"action": "add", "target": "memory", "content": "Uses fish"}),
                json!({"success": true, "target": "memory", "message": crate::memory::store::MESSAGE_EXISTS}),
            ),
        ]
    }

    #[test]
    fn on_lists_each_successful_write_once_in_order() {
        assert_eq!(
            line(&sample(), Notify::On).as_deref(),
            Some(
                "💾 Self-improvement review: User profile updated · Patched SKILL.md in skill 'git-workflow' (1 replacement). · Skill 'py-testing' created."
            )
        );
        assert_eq!(line(&sample(), Notify::Off), None);
        assert_eq!(line(&sample()[4..], Notify::On), None);
    }

    #[test]
    fn verbose_shows_the_content() {
        assert_eq!(
            line(&sample()[..3], Notify::Verbose).as_deref(),
            Some(
                "💾 Self-improvement review: User profile ➕ User prefers terse answers · 📝 Skill 'git-workflow' patched: \"git push\" → \"git push --force-with-lease\""
            )
        );
    }

    #[test]
    fn yaml_booleans_and_words_pick_the_mode() {
        assert_eq!(Notify::parse(Some(&json!(false))), Notify::Off);
        assert_eq!(Notify::parse(Some(&json!("Verbose"))), Notify::Verbose);
        assert_eq!(Notify::parse(Some(&json!(true))), Notify::On);
        assert_eq!(Notify::parse(None), Notify::On);
        for off in ["off", " No ", "FALSE"] {
            assert_eq!(Notify::parse(Some(&json!(off))), Notify::Off, "{off:?}");
        }
        for on in ["on", "yes", "loud", ""] {
            assert_eq!(Notify::parse(Some(&json!(on))), Notify::On, "{on:?}");
        }
        assert_eq!(Notify::parse(Some(&json!(0))), Notify::On);
    }

    fn ok(message: &str) -> Value {
        json!({"success": true, "message": message})
    }

    /// The summary line of `actions` in `mode`, without its prefix.
    fn shown(actions: &[Action], mode: Notify) -> Option<String> {
        line(actions, mode).map(|l| l.replacen(PREFIX, "", 1))
    }

    /// Reference `loop` §1.7: per action, which line "on" mode prints.
    #[test]
    fn on_mode_names_what_each_write_did_and_skips_file_writes_and_staged_ones() {
        let cases = [
            // A support file written, or a skill archived: no keyword, no line.
            (
                act(
                    "skill_manage",
                    json!({"action": "write_file", "name": "x", "file_path": "references/a.md"}),
                    ok("File 'references/a.md' written to skill 'x'."),
                ),
                None,
            ),
            (
                act(
                    "skill_manage",
                    json!({"action": "remove_file", "name": "x", "file_path": "references/a.md"}),
                    ok("File 'references/a.md' removed from skill 'x'."),
                ),
                Some("Skill updated"),
            ),
            (
                act(
                    "memory",
                    json!({"action": "replace", "target": "memory", "old_text": "a", "content": "b"}),
                    ok("Entry replaced."),
                ),
                Some("Memory updated"),
            ),
            (
                act(
                    "memory",
                    json!({"target": "user", "operations": []}),
                    json!({"success": true, "target": "user", "message": "Applied 2 operations."}),
                ),
                Some("User profile updated"),
            ),
            (
                act(
                    "memory",
                    json!({"action": "add", "target": "memory", "content": "Likes tea"}),
                    json!({"success": true, "staged": true, "message": "Staged for approval."}),
                ),
                None,
            ),
            // Any message with "add" in it counts, as upstream's does.
            (
                act(
                    "memory",
                    json!({"action": "add", "target": "memory", "content": "Likes tea"}),
                    ok("Addition saved."),
                ),
                Some("Memory updated"),
            ),
        ];
        for (action, expected) in cases {
            assert_eq!(
                shown(std::slice::from_ref(&action), Notify::On).as_deref(),
                expected,
                "{action:?}"
            );
        }
    }

    #[test]
    fn verbose_mode_shows_staged_writes_but_never_failed_ones() {
        let staged = act(
            "memory",
            json!({"action": "add", "target": "memory", "content": "Likes tea"}),
            json!({"success": true, "staged": true, "message": "Staged for approval."}),
        );
        let failed = act(
            "memory",
            json!({"action": "add", "target": "memory", "content": "Likes coffee"}),
            json!({"success": false, "error": "Memory is full."}),
        );
        assert_eq!(
            shown(&[staged.clone(), failed.clone()], Notify::Verbose).as_deref(),
            Some("Memory ➕ Likes tea")
        );
        assert_eq!(shown(&[failed], Notify::Verbose), None);
        assert_eq!(shown(&[staged], Notify::On), None);
    }

    #[test]
    fn verbose_skill_lines_by_action() {
        let skill = |arguments: Value, result: Value| -> Option<String> {
            shown(&[act("skill_manage", arguments, result)], Notify::Verbose)
        };
        let described = |message: &str| json!({"success": true, "message": message, "_change": {"description": "Deploys the app."}});
        assert_eq!(
            skill(
                json!({"action": "create", "name": "deploy"}),
                described("Skill 'deploy' created.")
            )
            .as_deref(),
            Some("📝 Skill 'deploy' created: Deploys the app.")
        );
        assert_eq!(
            skill(
                json!({"action": "create", "name": "deploy"}),
                ok("Skill 'deploy' created.")
            )
            .as_deref(),
            Some("📝 Skill 'deploy' created.")
        );
        assert_eq!(
            skill(
                json!({"action": "edit", "name": "deploy"}),
                described("Skill 'deploy' updated (full rewrite).")
            )
            .as_deref(),
            Some("📝 Skill 'deploy' rewritten: Deploys the app.")
        );
        assert_eq!(
            skill(
                json!({"action": "edit", "name": "deploy"}),
                ok("Skill 'deploy' updated (full rewrite).")
            )
            .as_deref(),
            Some("📝 Skill 'deploy' updated (full rewrite).")
        );
        // A patch with neither side known says its message.
        assert_eq!(
            skill(
                json!({"action": "patch", "name": "deploy"}),
                ok("Patched SKILL.md in skill 'deploy' (1 replacement).")
            )
            .as_deref(),
            Some("📝 Patched SKILL.md in skill 'deploy' (1 replacement).")
        );
        // An empty side of `_change` falls back to the call's own argument.
        assert_eq!(
            skill(
                json!({"action": "patch", "name": "deploy", "old_string": "run", "new_string": "x"}),
                json!({"success": true, "message": "Patched.", "_change": {"old": "", "new": "run --wait"}})
            )
            .as_deref(),
            Some("📝 Skill 'deploy' patched: \"run\" → \"run --wait\"")
        );
        // One known side is enough for the patch line.
        assert_eq!(
            skill(
                json!({"action": "patch", "name": "deploy", "old_string": "--force"}),
                ok("Patched.")
            )
            .as_deref(),
            Some("📝 Skill 'deploy' patched: \"--force\" → \"\"")
        );
        assert_eq!(
            skill(
                json!({"action": "write_file", "name": "deploy"}),
                json!({"success": true})
            )
            .as_deref(),
            Some("📝 Skill write_file")
        );
    }

    #[test]
    fn verbose_clips_at_80_120_and_60_characters() {
        let (eighty, more) = ("o".repeat(80), "o".repeat(81));
        assert_eq!(
            shown(
                &[act(
                    "skill_manage",
                    json!({"action": "patch", "name": "s", "old_string": eighty, "new_string": more}),
                    ok("Patched."),
                )],
                Notify::Verbose
            ),
            Some(format!(
                "📝 Skill 's' patched: \"{eighty}\" → \"{eighty}…\""
            ))
        );
        let memory = |arguments: Value| -> Option<String> {
            shown(&[act("memory", arguments, ok("Done."))], Notify::Verbose)
        };
        assert_eq!(
            memory(
                json!({"action": "replace", "target": "user", "old_text": "a", "content": "c".repeat(121)})
            ),
            Some(format!("User profile ✏️ {}…", "c".repeat(120)))
        );
        assert_eq!(
            memory(json!({"action": "remove", "target": "memory", "old_text": "r".repeat(60)})),
            Some(format!("Memory ➖ {}", "r".repeat(60)))
        );
        // An empty batch reads the call as one operation; a batch with nothing to show says
        // the store was updated.
        assert_eq!(
            memory(json!({"action": "add", "target": "memory", "content": "x", "operations": []})),
            Some("Memory ➕ x".to_string())
        );
        assert_eq!(
            memory(json!({"target": "memory", "operations": [{"action": "rename"}]})),
            Some("Memory updated".to_string())
        );
    }
}
