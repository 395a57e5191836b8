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
