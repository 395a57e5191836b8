//! The one-skill verbs: pin, unpin, archive, restore; and pause/resume. Messages are
//! Hermes's (`hermes curator …`), with our command names in the hints.

use jiff::Timestamp;

use super::state::CuratorState;
use crate::io::FileError;
use crate::skills::archive;
use crate::skills::library::{Index, Library};
use crate::skills::provenance::is_agent_created;
use crate::skills::usage;

/// A verb's answer: done (`Ok`) or refused (`Err`), with the message either way.
pub type Answer = Result<String, String>;

/// Pins or unpins a skill: refused for bundled and hub skills; written only for skills the
/// curator may manage (as Hermes's `set_pinned`).
pub fn pin(lib: &Library, name: &str, pinned: bool, now: Timestamp) -> Answer {
    // Hermes writes a record for any name; a typo then pins a skill that does not exist.
    if lib.catalog().find_dir(name).is_none() && !lib.home.archive_dir().join(name).is_dir() {
        return Err(format!("no skill named '{name}'"));
    }
    let index = Index::build(lib);
    if !is_agent_created(name, &index.provenance, index.identities()) {
        return Err(if pinned {
            format!(
                "'{name}' is bundled or hub-installed — cannot pin (only agent-created skills participate in curation)"
            )
        } else {
            format!(
                "'{name}' is bundled or hub-installed — there's nothing to unpin (curator only tracks agent-created skills)"
            )
        });
    }
    if index.is_curation_eligible(lib, name, None) {
        usage::set_pinned(&lib.home, name, pinned, now).map_err(|e| e.to_string())?;
    }
    Ok(if pinned {
        format!("pinned '{name}' (will bypass auto-transitions)")
    } else {
        format!("unpinned '{name}'")
    })
}

/// Archives one skill now; refused while it is pinned.
pub fn archive_one(lib: &Library, name: &str, now: Timestamp) -> Answer {
    let mut index = Index::build(lib);
    if usage::is_pinned(index.usage.get(name)) {
        return Err(format!(
            "'{name}' is pinned — unpin first with `hermes-curate unpin {name}`"
        ));
    }
    archive::archive_skill(lib, &mut index, name, now)
}

pub fn restore(lib: &Library, name: &str, now: Timestamp) -> Answer {
    let mut index = Index::build(lib);
    archive::restore_skill(lib, &mut index, name, now)
}

/// Sets `paused` in `.curator_state` (the other keys kept).
pub fn set_paused(lib: &Library, paused: bool) -> Result<(), FileError> {
    let mut state = CuratorState::load_lenient(&lib.home);
    state.set_paused(paused);
    state.save(&lib.home)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::*;
    use crate::curator::rows::fixture::{library, ts};
    use crate::home::Config;

    fn record(lib: &Library, name: &str) -> Json {
        let text = std::fs::read_to_string(lib.home.usage_json()).expect("usage");
        serde_json::from_str::<Json>(&text).expect("json")[name].clone()
    }

    /// Pin and unpin an agent-created skill, or one that is archived; a name that is
    /// nowhere, or a hub skill, is refused with Hermes's words.
    #[test]
    fn pin_and_unpin_with_hermes_messages() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = library(
            dir.path(),
            &["mine", "hubbed"],
            json!({"mine": {"created_by": "agent"}}),
            Config::defaults(),
        );
        std::fs::create_dir_all(dir.path().join("skills/.hub")).expect("mkdir");
        std::fs::write(
            dir.path().join("skills/.hub/lock.json"),
            r#"{"installed": {"hubbed": {"install_path": "hubbed"}}}"#,
        )
        .expect("lock");
        std::fs::create_dir_all(dir.path().join("skills/.archive/gone")).expect("mkdir");
        let now = ts("2026-06-01T12:00:00Z");
        assert_eq!(
            pin(&lib, "mine", true, now),
            Ok("pinned 'mine' (will bypass auto-transitions)".into())
        );
        assert_eq!(record(&lib, "mine")["pinned"], json!(true));
        assert_eq!(pin(&lib, "mine", false, now), Ok("unpinned 'mine'".into()));
        assert_eq!(record(&lib, "mine")["pinned"], json!(false));
        assert_eq!(
            pin(&lib, "gone", true, now),
            Ok("pinned 'gone' (will bypass auto-transitions)".into())
        );
        assert_eq!(record(&lib, "gone")["pinned"], json!(true));
        assert_eq!(
            pin(&lib, "nope", true, now),
            Err("no skill named 'nope'".into())
        );
        assert_eq!(
            pin(&lib, "hubbed", true, now),
            Err("'hubbed' is bundled or hub-installed — cannot pin (only agent-created skills participate in curation)".into())
        );
        assert_eq!(
            pin(&lib, "hubbed", false, now),
            Err("'hubbed' is bundled or hub-installed — there's nothing to unpin (curator only tracks agent-created skills)".into())
        );
        assert_eq!(record(&lib, "hubbed"), Json::Null);
        assert_eq!(record(&lib, "nope"), Json::Null);
    }

    /// A pinned skill is not archived; unpinned it is, and comes back by restore.
    #[test]
    fn archive_refuses_a_pinned_skill_and_restore_brings_it_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = library(
            dir.path(),
            &["mine"],
            json!({"mine": {"created_by": "agent", "pinned": true}}),
            Config::defaults(),
        );
        let now = ts("2026-06-01T12:00:00Z");
        assert_eq!(
            archive_one(&lib, "mine", now),
            Err("'mine' is pinned — unpin first with `hermes-curate unpin mine`".into())
        );
        assert!(dir.path().join("skills/mine/SKILL.md").is_file());
        pin(&lib, "mine", false, now).expect("unpin");
        let skills = dir.path().join("skills");
        assert_eq!(
            archive_one(&lib, "mine", now),
            Ok(format!(
                "archived to {}",
                skills.join(".archive/mine").display()
            ))
        );
        assert!(skills.join(".archive/mine/SKILL.md").is_file());
        assert_eq!(record(&lib, "mine")["state"], json!("archived"));
        assert_eq!(
            restore(&lib, "mine", ts("2026-06-02T12:00:00Z")),
            Ok(format!("restored to {}", skills.join("mine").display()))
        );
        assert!(skills.join("mine/SKILL.md").is_file());
        assert_eq!(record(&lib, "mine")["state"], json!("active"));
    }

    /// `paused` changes and the other keys stay.
    #[test]
    fn pause_and_resume_keep_the_other_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = library(dir.path(), &[], Json::Null, Config::defaults());
        std::fs::write(
            lib.home.curator_state(),
            r#"{"run_count": 3, "last_run_at": "2026-06-01T12:00:00+00:00"}"#,
        )
        .expect("state");
        set_paused(&lib, true).expect("pause");
        assert_eq!(
            std::fs::read_to_string(lib.home.curator_state()).expect("read"),
            "{\n  \"last_report_path\": null,\n  \"last_run_at\": \"2026-06-01T12:00:00+00:00\",\n  \"last_run_duration_seconds\": null,\n  \"last_run_summary\": null,\n  \"last_run_summary_shown_at\": null,\n  \"paused\": true,\n  \"run_count\": 3\n}"
        );
        set_paused(&lib, false).expect("resume");
        assert!(!CuratorState::load_lenient(&lib.home).paused());
    }
}
