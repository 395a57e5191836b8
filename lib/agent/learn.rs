//! `/learn [what]`: turns what was just done (or a folder, a file, pasted text) into one
//! SKILL.md through a prompt that carries the authoring standard, then checks the result
//! instead of hoping: the linter (as `hermes-skill-scan --lint` runs it), the description's
//! length counted, the author, and the eight sections in order. A failing skill goes back to
//! the model once with the reasons.

use std::path::Path;

use crate::skills::frontmatter;
use crate::skills::lint::{self, Level, Profile};

/// What `author` must say: the tool that wrote the skill, never a person's login or identity.
pub const AUTHOR: &str = "hermes-loop";

/// The body sections, in order.
pub const SECTIONS: [&str; 7] = [
    "When to Use",
    "Prerequisites",
    "How to Run",
    "Quick Reference",
    "Procedure",
    "Pitfalls",
    "Verification",
];

pub const MAX_DESCRIPTION: usize = 60;

/// The prompt of one `/learn` turn.
pub fn prompt(request: &str) -> String {
    let what = if request.trim().is_empty() {
        "the workflow we just went through in this conversation: what worked, in the order it worked".to_string()
    } else {
        request.trim().to_string()
    };
    format!(
        "[/learn] Turn the request below into ONE reusable skill and save it.\n\n\
THE REQUEST:\n{what}\n\n\
If the request names a folder, a file or a URL, read it first with your tools (read_file, \
search_files, terminal); if it is pasted text, work from the text. Use only commands, flags \
and paths you have seen work or read in the sources: never invent one.\n\n\
Save it with skill_manage(action=\"create\") as a SKILL.md that meets this standard:\n\
- Frontmatter: `name` (lowercase, digits and hyphens), `description` of at most {MAX_DESCRIPTION} \
characters (count them: the skills index cuts longer ones), `version: 0.1.0`, `author: {AUTHOR}` \
(exactly that; never a user name, login or git identity), and `metadata.hermes.tags` as a \
list of Capitalized words. Add `platforms` only when the procedure is bound to one OS.\n\
- Body: a `# Title` and a one-paragraph summary, then these sections as `##` headings, in \
this order: {}.\n\
- Write steps in terms of the agent's tools (terminal, read_file, search_files, write_file, \
patch) rather than shell habits like cat, grep or sed.\n\
- Keep it to roughly 100-200 lines. A script longer than a few lines goes into `scripts/` \
with skill_manage(action=\"write_file\") and the procedure runs it by path.\n\n\
When it is saved, reply with the skill's name, its category (if any) and one line on what it \
does.",
        SECTIONS.join(", ")
    )
}

/// Why a `/learn` turn saved no skill, from the messages of that turn: the model never called
/// `skill_manage`, or what its last call answered.
pub fn why_nothing_was_saved(turn: &[crate::llm::Message]) -> String {
    let answered = turn
        .iter()
        .rev()
        .find(|m| m.is(crate::llm::Role::Tool) && m.tool_name.as_deref() == Some("skill_manage"));
    let Some(result) = answered else {
        return "the model did not call skill_manage".to_string();
    };
    let said = serde_json::from_str::<serde_json::Value>(&result.content)
        .ok()
        .and_then(|v| {
            ["error", "message"].iter().find_map(|k| {
                v.get(*k)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string)
            })
        })
        .unwrap_or_else(|| result.content.clone());
    let said: String = said.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = said.chars().take(300).collect();
    format!("skill_manage answered: {short}")
}

/// Why a saved skill does not meet the standard; empty when it does.
pub fn check(skill_dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for issue in lint::lint_skill(skill_dir, Profile::Hermes) {
        if issue.level == Level::Error {
            problems.push(format!(
                "lint {} ({}:{}): {}",
                issue.rule, issue.file, issue.line, issue.message
            ));
        }
    }
    let text = match std::fs::read_to_string(skill_dir.join("SKILL.md")) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("SKILL.md cannot be read: {e}"));
            return problems;
        }
    };
    let fm = frontmatter::parse(&text);
    match fm.description() {
        Some(d) if d.chars().count() > MAX_DESCRIPTION => problems.push(format!(
            "the description has {} characters; at most {MAX_DESCRIPTION} are allowed",
            d.chars().count()
        )),
        None => problems.push("the frontmatter has no description".to_string()),
        _ => {}
    }
    if fm.str_field("author") != Some(AUTHOR) {
        problems.push(format!("`author` must be exactly `{AUTHOR}`"));
    }
    if !fm.body.lines().any(|l| l.starts_with("# ")) {
        problems.push("the body has no `# Title`".to_string());
    }
    let headings: Vec<&str> = fm
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(str::trim)
        .collect();
    // Each section is looked for after the one before it; `any` stops just past a match.
    let mut rest = headings.iter();
    for section in SECTIONS {
        let mut ahead = rest.clone();
        if ahead.any(|h| h.eq_ignore_ascii_case(section)) {
            rest = ahead;
        } else {
            let why = if headings.iter().any(|h| h.eq_ignore_ascii_case(section)) {
                "is out of order"
            } else {
                "is missing"
            };
            problems.push(format!("the section `## {section}` {why}"));
        }
    }
    problems
}

/// The message that sends a failing skill back to the model.
pub fn retry_message(name: &str, problems: &[String]) -> String {
    format!(
        "The skill `{name}` you saved does not meet the standard yet:\n{}\n\nFix it with \
skill_manage (action \"edit\" with the full corrected SKILL.md), then reply with its name again.",
        problems
            .iter()
            .map(|p| format!("- {p}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_saved_says_whether_skill_manage_was_called_and_what_it_said() {
        use crate::llm::Message;
        let result = |tool: &str, content: &str| {
            let call = crate::llm::ToolCall {
                id: "c1".into(),
                name: tool.into(),
                arguments: "{}".into(),
            };
            Message::tool_result(&call, true, content)
        };
        let talk = [
            Message::user("learn it"),
            Message::assistant("I would rather not."),
        ];
        assert_eq!(
            why_nothing_was_saved(&talk),
            "the model did not call skill_manage"
        );
        let refused = [
            Message::user("learn it"),
            result("read_file", r#"{"error": "not this one"}"#),
            result(
                "skill_manage",
                r#"{"success": false, "error": "Skill 'x' already exists.\nPick another name."}"#,
            ),
            Message::assistant("It exists."),
        ];
        assert_eq!(
            why_nothing_was_saved(&refused),
            "skill_manage answered: Skill 'x' already exists. Pick another name."
        );
        let plain = [result("skill_manage", "not json")];
        assert_eq!(
            why_nothing_was_saved(&plain),
            "skill_manage answered: not json"
        );
    }

    fn skill(body: &str, description: &str, author: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("SKILL.md"),
            format!("---\nname: x\ndescription: {description}\nversion: 0.1.0\nauthor: {author}\n---\n{body}"),
        )
        .unwrap();
        dir
    }

    fn full_body() -> String {
        let mut b = String::from("# Title\n\nSummary.\n\n");
        for s in SECTIONS {
            b.push_str(&format!("## {s}\n\nText.\n\n"));
        }
        b
    }

    #[test]
    fn a_skill_to_the_standard_passes() {
        let d = skill(&full_body(), "Rotates staging certificates.", AUTHOR);
        assert_eq!(check(d.path()), Vec::<String>::new());
    }

    #[test]
    fn length_author_and_order_are_counted() {
        let body = full_body()
            .replace("## Pitfalls", "## Zzz")
            .replace("## When to Use", "## Pitfalls2");
        let d = skill(&body, &"x".repeat(61), "sam");
        let p = check(d.path());
        assert!(p.iter().any(|s| s.contains("61 characters")), "{p:?}");
        assert!(p.iter().any(|s| s.contains("`author`")), "{p:?}");
        assert!(
            p.iter().any(|s| s.contains("## When to Use` is missing")),
            "{p:?}"
        );
        assert!(
            p.iter().any(|s| s.contains("## Pitfalls` is missing")),
            "{p:?}"
        );
    }

    #[test]
    fn every_problem_is_named_exactly() {
        let body = full_body()
            .replace("# Title\n", "Title\n")
            .replace("## Pitfalls\n\nText.\n\n", "")
            .replace("## Verification", "## Pitfalls\n\nText.\n\n## Verification");
        let moved = body.replace("## Prerequisites", "## Procedure2");
        let d = skill(&moved, &"d".repeat(MAX_DESCRIPTION), AUTHOR);
        let got = check(d.path());
        assert_eq!(
            got,
            [
                "the body has no `# Title`",
                "the section `## Prerequisites` is missing",
            ],
            "{got:?}"
        );
        let swapped = full_body()
            .replace("## Procedure", "## Tmp")
            .replace("## Pitfalls", "## Procedure")
            .replace("## Tmp", "## Pitfalls");
        let d = skill(&swapped, "Fine.", AUTHOR);
        assert_eq!(
            check(d.path()),
            ["the section `## Pitfalls` is out of order"]
        );
        let d = skill(&full_body(), &"é".repeat(MAX_DESCRIPTION + 1), AUTHOR);
        assert_eq!(
            check(d.path()),
            ["the description has 61 characters; at most 60 are allowed"]
        );
        let Ok(empty) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let got = check(empty.path());
        assert!(
            got.last()
                .is_some_and(|p| p.starts_with("SKILL.md cannot be read: ")),
            "{got:?}"
        );
    }

    #[test]
    fn a_skill_without_a_description_is_told_so() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let text = format!(
            "---\nname: x\nversion: 0.1.0\nauthor: {AUTHOR}\n---\n{}",
            full_body()
        );
        std::fs::write(dir.path().join("SKILL.md"), text).unwrap_or_default();
        let got = check(dir.path());
        assert!(
            got.contains(&"the frontmatter has no description".to_string()),
            "{got:?}"
        );
    }

    #[test]
    fn the_prompt_and_the_retry_say_what_is_wanted() {
        let asked = prompt("  the deploy script  ");
        assert!(asked.contains("THE REQUEST:\nthe deploy script\n\n"));
        assert!(prompt(" ").contains(
            "THE REQUEST:\nthe workflow we just went through in this conversation: what worked, in the order it worked\n\n"
        ));
        assert!(asked.contains("in this order: When to Use, Prerequisites, How to Run, Quick Reference, Procedure, Pitfalls, Verification.\n"));
        assert!(asked.contains("`description` of at most 60 characters"));
        assert_eq!(
            retry_message("tidy", &["a".into(), "b".into()]),
            "The skill `tidy` you saved does not meet the standard yet:\n- a\n- b\n\nFix it with skill_manage (action \"edit\" with the full corrected SKILL.md), then reply with its name again."
        );
    }
}
