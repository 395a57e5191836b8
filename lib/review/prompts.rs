//! What the review asks the model (reference `loop` §1.2), in our own words but with the
//! reference's editorial policy: which signals are worth keeping, the order of actions, what
//! is never saved, and "Nothing to save." as a real but not default answer. The model is also
//! shown what memory and the skill library already hold, so it deduplicates before it writes
//! rather than after.

use crate::memory::snapshot::sanitize_entry;
use crate::memory::{MemoryStore, Target};

/// Which reviews were asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub memory: bool,
    pub skills: bool,
}

/// The fixed last line of every review request (upstream sends the same warning).
pub const TOOLS_NOTE: &str = "Only the memory and skill tools (memory, skills_list, skill_view, \
skill_manage) work here; any other tool call is refused.";

const MEMORY_POLICY: &str = "\
MEMORY holds who the user is and how they want you to work, for every future session.
Save with the `memory` tool (target `user` for the person, `memory` for your own notes on \
their environment and conventions) when the user:
- told you something durable about themselves: role, projects, tools they use, personal details they shared on purpose;
- stated a preference or an expectation about how you should behave, write, or work.
Keep each entry one short, specific sentence. If an entry on the same subject already exists \
(see \"What is already saved\" below), do not add a second one: leave it, or `replace` it when \
the new statement is more precise or contradicts it.";

const SKILLS_POLICY: &str = "\
SKILLS hold how to do a class of task for this user: procedures, pitfalls, preferred formats.
Signals that call for a skill change, each on its own:
a) the user corrected your style, tone, format or verbosity (\"too long\", \"stop doing X\", \
\"just give me the command\") — put the lesson into the skill that governs that kind of task;
b) the user corrected your approach or the order of steps — add it as a step or a pitfall;
c) a non-trivial fix, workaround, debugging path or tool-usage pattern emerged;
d) a skill you loaded turned out wrong, incomplete or outdated.
Take the first action that fits:
1. patch a skill that was loaded in this conversation (skill_view, then skill_manage patch);
2. patch an existing broader skill that covers the class (find it with skills_list, read it \
with skill_view, then patch: a subsection, a pitfall, a wider trigger);
3. add a support file under such a skill with skill_manage write_file — references/<topic>.md \
for session detail and error transcripts, templates/<name> for starter files, \
scripts/<name> for re-runnable checks — and patch one line into its SKILL.md pointing to it;
4. only when nothing covers the class, create a new skill with a class-level name (never a \
ticket number, an error string, a codename or a today-only task like fix-X or debug-Y).
Always skill_view a skill before you patch or rewrite it. Never edit bundled or hub-installed \
skills; mention overlapping skills in your reply instead of merging them.";

const NEVER_SAVE: &str = "\
Never save:
- failures that depend on this machine's setup (command not found, missing package, \
unconfigured credentials, paths after a migration) — if a setup fix was found, save the fix, \
never \"this tool does not work\";
- negative claims about tools or features (\"X is broken\", \"cannot use Y\"): they turn into \
refusals later;
- transient errors that went away when retried (the lesson, if any, is the retry);
- one-off task narratives and task progress, or anything that will be stale within a week.";

const NOTHING: &str = "\
If the conversation went smoothly, with no correction, no preference and no new technique, \
answer exactly \"Nothing to save.\" and stop. That answer is allowed, but it is not the \
default: when one of the signals above occurred, act on it.";

/// The request text for the review of `kind`, with the current state of the stores.
pub fn request(kind: Kind, holdings: &str) -> String {
    let opening = match (kind.memory, kind.skills) {
        (true, true) => {
            "Review the conversation above for two things worth keeping: facts and \
             preferences about the user (memory), and procedures or corrections worth \
             reusing (skills). Act on whichever has a real signal."
        }
        (true, false) => {
            "Review the conversation above and decide whether anything in it belongs in \
             memory."
        }
        _ => {
            "Review the conversation above and decide whether the skill library should \
             learn from it."
        }
    };
    let mut parts = vec![opening.to_string()];
    if kind.memory {
        parts.push(MEMORY_POLICY.to_string());
    }
    if kind.skills {
        parts.push(SKILLS_POLICY.to_string());
    }
    parts.push(NEVER_SAVE.to_string());
    parts.push(NOTHING.to_string());
    if !holdings.is_empty() {
        parts.push(holdings.to_string());
    }
    parts.push(TOOLS_NOTE.to_string());
    parts.join("\n\n")
}

/// Skills shown in the request at most; the model can list the rest.
const MAX_SKILLS_SHOWN: usize = 150;
const DESCRIPTION_CHARS: usize = 120;

/// "What is already saved": the live memory entries and the skill names with their
/// descriptions, read at the start of the review (not the chat's frozen snapshot, which may
/// be older).
pub fn holdings(memory: Option<&MemoryStore>, skills: &[(String, String)], kind: Kind) -> String {
    let mut out = String::from("What is already saved (check it before any add or create):");
    if kind.memory {
        if let Some(store) = memory {
            for (target, label) in [(Target::User, "USER.md"), (Target::Memory, "MEMORY.md")] {
                let entries = store.entries(target);
                if entries.is_empty() {
                    out.push_str(&format!("\n{label}: (empty)"));
                    continue;
                }
                out.push_str(&format!("\n{label}:"));
                for entry in entries {
                    out.push_str("\n- ");
                    out.push_str(&sanitize_entry(entry, label).replace('\n', " "));
                }
            }
        } else {
            out.push_str("\nMemory is disabled in config.yaml.");
        }
    }
    if skills.is_empty() {
        out.push_str("\nSkills: (none)");
    } else {
        out.push_str(&format!("\nSkills ({}):", skills.len()));
        for (name, description) in skills.iter().take(MAX_SKILLS_SHOWN) {
            let short: String = description.chars().take(DESCRIPTION_CHARS).collect();
            out.push_str(&format!("\n- {name}: {}", short.replace('\n', " ")));
        }
        if skills.len() > MAX_SKILLS_SHOWN {
            out.push_str(&format!(
                "\n- … and {} more (skills_list shows them all)",
                skills.len() - MAX_SKILLS_SHOWN
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_carries_its_policy_and_the_common_rules() {
        let memory = request(
            Kind {
                memory: true,
                skills: false,
            },
            "",
        );
        assert!(memory.contains("MEMORY holds"));
        assert!(!memory.contains("SKILLS hold"));
        assert!(memory.contains("Never save:"));
        assert!(memory.ends_with(TOOLS_NOTE));
        let both = request(
            Kind {
                memory: true,
                skills: true,
            },
            "X",
        );
        assert!(both.contains("MEMORY holds") && both.contains("SKILLS hold"));
        assert!(both.contains("\n\nX\n\n"));
    }

    const BOTH: Kind = Kind {
        memory: true,
        skills: true,
    };

    #[test]
    fn each_kind_opens_with_its_own_question_and_skips_empty_holdings() {
        let skills_only = request(
            Kind {
                memory: false,
                skills: true,
            },
            "",
        );
        assert!(skills_only.starts_with(
            "Review the conversation above and decide whether the skill library should learn from it.\n\n"
        ));
        assert!(!skills_only.contains("MEMORY holds"));
        assert!(skills_only.contains("SKILLS hold"));
        // No holdings: the policy parts, then the tools note, nothing in between.
        assert!(skills_only.contains(&format!("{NOTHING}\n\n{TOOLS_NOTE}")));
        let memory_only = request(
            Kind {
                memory: true,
                skills: false,
            },
            "",
        );
        assert!(memory_only.starts_with(
            "Review the conversation above and decide whether anything in it belongs in memory.\n\n"
        ));
        assert!(request(BOTH, "").starts_with(
            "Review the conversation above for two things worth keeping: facts and preferences"
        ));
    }

    fn store_with(user: &str, memory: &str) -> (tempfile::TempDir, MemoryStore) {
        let dir = tempfile::tempdir().expect("tempdir");
        let memories = dir.path().join("memories");
        std::fs::create_dir_all(&memories).expect("memories");
        std::fs::write(memories.join("USER.md"), user).expect("USER.md");
        std::fs::write(memories.join("MEMORY.md"), memory).expect("MEMORY.md");
        let home = crate::home::Home::at(dir.path());
        let config = crate::home::Config::defaults();
        let store = MemoryStore::load(&home, crate::memory::Limits::from_config(&config.memory))
            .expect("memory loads");
        (dir, store)
    }

    #[test]
    fn holdings_list_entries_on_one_line_each_and_skills_with_short_descriptions() {
        let (_dir, store) = store_with("Answers in French.\n§\nWorks on\nrust daily.", "");
        let long = "d".repeat(130);
        let skills = vec![
            ("deploy".to_string(), "Deploys\nthe app.".to_string()),
            ("notes".to_string(), long),
        ];
        assert_eq!(
            holdings(Some(&store), &skills, BOTH),
            format!(
                "What is already saved (check it before any add or create):\n\
                 USER.md:\n- Answers in French.\n- Works on rust daily.\n\
                 MEMORY.md: (empty)\n\
                 Skills (2):\n- deploy: Deploys the app.\n- notes: {}",
                "d".repeat(120)
            )
        );
        let skills_kind = Kind {
            memory: false,
            skills: true,
        };
        assert_eq!(
            holdings(Some(&store), &[], skills_kind),
            "What is already saved (check it before any add or create):\nSkills: (none)"
        );
        assert_eq!(
            holdings(None, &[], BOTH),
            "What is already saved (check it before any add or create):\n\
             Memory is disabled in config.yaml.\nSkills: (none)"
        );
    }

    #[test]
    fn holdings_show_at_most_150_skills_and_count_the_rest() {
        let skills = |n: usize| -> Vec<(String, String)> {
            (0..n).map(|i| (format!("s{i}"), "x".to_string())).collect()
        };
        let at_limit = holdings(None, &skills(150), BOTH);
        assert!(at_limit.contains("\nSkills (150):\n- s0: x\n"));
        assert!(at_limit.ends_with("\n- s149: x"));
        let over = holdings(None, &skills(152), BOTH);
        assert!(over.contains("\nSkills (152):\n"));
        assert!(over.ends_with("\n- s149: x\n- … and 2 more (skills_list shows them all)"));
    }
}
