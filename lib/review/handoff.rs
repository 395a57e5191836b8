//! What connects a chat to the review it starts: the chat's model, passed in the review's
//! environment, and the record of how each review ended — one line in
//! `$HERMES_HOME/logs/review.log` — after which the chat's hand-off file is removed.
//!
//! A review started in the background has nobody to tell; the log is where its outcome is
//! found, failures included (docs/formats.md § Review log).

use std::io::Write;
use std::path::Path;

use jiff::Timestamp;

use crate::home::Home;
use crate::llm::endpoint::Overrides;

/// The model the chat ran on (its `-m`, or what `/model` switched to).
pub const CHAT_MODEL_VAR: &str = "HERMES_CHAT_MODEL";
/// The chat's `--provider`, when it was given one.
pub const CHAT_PROVIDER_VAR: &str = "HERMES_CHAT_PROVIDER";
/// The chat's `--base-url`, when it was given one.
pub const CHAT_BASE_URL_VAR: &str = "HERMES_CHAT_BASE_URL";

/// The chat's model as `hermes-review` resolves it: the values hermes-chat put in the
/// environment stand for its own flags, config.yaml fills in the rest.
pub fn chat_overrides(get: &dyn Fn(&str) -> Option<String>) -> Overrides {
    let var = |name: &str| {
        get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    Overrides {
        model: var(CHAT_MODEL_VAR),
        provider: var(CHAT_PROVIDER_VAR),
        base_url: var(CHAT_BASE_URL_VAR),
    }
}

/// The environment hermes-chat gives the review it starts.
pub fn chat_env(model: &str, chat_flags: &Overrides) -> Vec<(&'static str, String)> {
    let mut env = vec![(CHAT_MODEL_VAR, model.to_string())];
    if let Some(p) = &chat_flags.provider {
        env.push((CHAT_PROVIDER_VAR, p.clone()));
    }
    if let Some(u) = &chat_flags.base_url {
        env.push((CHAT_BASE_URL_VAR, u.clone()));
    }
    env
}

/// How one review ended, as the log says it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// It ran: its summary line (none when nothing was saved), writes and requests made.
    Done {
        line: Option<String>,
        writes: u64,
        requests: u64,
    },
    /// It failed, and why.
    Failed(String),
}

/// The session a review was of: the conversation's id, else the hand-off file's name
/// (`<session>-<n>.jsonl`), else `-`.
pub fn session_of(session_id: Option<&str>, input: Option<&Path>) -> String {
    if let Some(id) = session_id.filter(|s| !s.is_empty()) {
        return id.to_string();
    }
    input
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .map(|stem| match stem.rsplit_once('-') {
            Some((session, n)) if !session.is_empty() && n.parse::<u32>().is_ok() => {
                session.to_string()
            }
            _ => stem,
        })
        .filter(|s| !s.is_empty() && s != "-")
        .unwrap_or_else(|| "-".to_string())
}

/// One log line: `<UTC time> <session> ok: <what was saved> (N write(s), N request(s))` or
/// `<UTC time> <session> failed: <why>`, on one line whatever the error said.
pub fn log_line(at: Timestamp, session: &str, outcome: &Outcome) -> String {
    let time = at.strftime("%Y-%m-%dT%H:%M:%SZ");
    let what = match outcome {
        Outcome::Done {
            line,
            writes,
            requests,
        } => {
            let said = line
                .as_deref()
                .map(|l| l.trim_start_matches(crate::review::summary::PREFIX))
                .unwrap_or("nothing saved");
            format!("ok: {said} ({writes} write(s), {requests} request(s))")
        }
        Outcome::Failed(why) => format!("failed: {why}"),
    };
    let one_line: String = what
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    format!("{time} {session} {one_line}\n")
}

/// Appends the outcome to the review log. The log is ours alone (Python has none): one
/// `O_APPEND` write per line keeps the lines of reviews that end together whole.
pub fn log(home: &Home, line: &str) -> std::io::Result<()> {
    let path = home.review_log();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    file.write_all(line.as_bytes())
}

/// Whether `input` is one of the home's hand-off files (and so ours to remove once its
/// review is logged).
pub fn is_handoff(home: &Home, input: &Path) -> bool {
    let pending = home.pending_dir("review");
    match (
        input.parent().map(std::fs::canonicalize),
        std::fs::canonicalize(&pending),
    ) {
        (Some(Ok(dir)), Ok(pending)) => dir == pending,
        _ => false,
    }
}

/// How long a hand-off file may wait for a review before it is pruned: a week. A file
/// that old belongs to a review that never started (no `hermes-review` installed) or one
/// that died without a word; its conversation stays in state.db.
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// Removes hand-off files in `dir` last written more than [`STALE_AFTER`] before `now`;
/// their names. Unreadable entries are left alone.
pub fn prune_stale(dir: &Path, now: std::time::SystemTime) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut pruned = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let age = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| now.duration_since(at).ok());
        if age.is_some_and(|a| a > STALE_AFTER) && std::fs::remove_file(&path).is_ok() {
            pruned.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    pruned.sort();
    pruned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("a timestamp")
    }

    #[test]
    fn the_chats_flags_come_back_from_the_environment_and_blanks_are_unset() {
        let env = chat_env(
            "m-1",
            &Overrides {
                model: Some("ignored: the live model is passed".into()),
                provider: None,
                base_url: Some("http://127.0.0.1:9/v1".into()),
            },
        );
        assert_eq!(
            env,
            [
                (CHAT_MODEL_VAR, "m-1".to_string()),
                (CHAT_BASE_URL_VAR, "http://127.0.0.1:9/v1".to_string())
            ]
        );
        let get = |name: &str| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| (name == CHAT_PROVIDER_VAR).then(|| "  ".to_string()))
        };
        let back = chat_overrides(&get);
        assert_eq!(back.model.as_deref(), Some("m-1"));
        assert_eq!(back.provider, None);
        assert_eq!(back.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        let none = chat_overrides(&|_| None);
        assert_eq!(
            (none.model, none.provider, none.base_url),
            (None, None, None)
        );
    }

    #[test]
    fn the_session_is_the_conversations_else_the_hand_off_files() {
        let file = Path::new("/h/pending/review/20261207_101500_ab12cd-3.jsonl");
        assert_eq!(session_of(Some("s9"), Some(file)), "s9");
        assert_eq!(session_of(None, Some(file)), "20261207_101500_ab12cd");
        assert_eq!(session_of(Some(""), Some(Path::new("conv.jsonl"))), "conv");
        assert_eq!(session_of(None, Some(Path::new("-"))), "-");
        assert_eq!(session_of(None, None), "-");
    }

    #[test]
    fn a_log_line_says_what_was_saved_or_why_it_failed_on_one_line() {
        let now = at("2026-12-07T22:50:01.5Z");
        let done = Outcome::Done {
            line: Some("💾 Self-improvement review: User profile updated".into()),
            writes: 1,
            requests: 2,
        };
        assert_eq!(
            log_line(now, "s1", &done),
            "2026-12-07T22:50:01Z s1 ok: User profile updated (1 write(s), 2 request(s))\n"
        );
        let nothing = Outcome::Done {
            line: None,
            writes: 0,
            requests: 1,
        };
        assert_eq!(
            log_line(now, "s1", &nothing),
            "2026-12-07T22:50:01Z s1 ok: nothing saved (0 write(s), 1 request(s))\n"
        );
        let failed = Outcome::Failed("no model configured\nhint: pass --model".into());
        assert_eq!(
            log_line(now, "-", &failed),
            "2026-12-07T22:50:01Z - failed: no model configured hint: pass --model\n"
        );
    }

    #[test]
    fn lines_are_appended_to_the_log_under_the_home() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        log(&home, "one\n").expect("logged");
        log(&home, "two\n").expect("logged");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("logs/review.log")).ok(),
            Some("one\ntwo\n".to_string())
        );
    }

    #[test]
    fn only_a_file_in_the_homes_pending_reviews_is_a_hand_off() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let pending = dir.path().join("pending/review");
        std::fs::create_dir_all(&pending).expect("dirs");
        let inside = pending.join("s-1.jsonl");
        let outside = dir.path().join("s-1.jsonl");
        for f in [&inside, &outside] {
            std::fs::write(f, "").expect("written");
        }
        assert!(is_handoff(&home, &inside));
        assert!(is_handoff(
            &home,
            &dir.path().join("pending/../pending/review/s-1.jsonl")
        ));
        assert!(!is_handoff(&home, &outside));
        assert!(!is_handoff(&Home::at(dir.path().join("nowhere")), &inside));
    }

    #[test]
    fn only_hand_off_files_older_than_a_week_are_pruned() {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["old-1.jsonl", "new-1.jsonl", "old-notes.txt"] {
            std::fs::write(dir.path().join(name), "").expect("written");
        }
        let day = std::time::Duration::from_secs(24 * 3600);
        let now = std::time::SystemTime::now();
        let set_age = |name: &str, age| {
            let file = std::fs::File::options()
                .write(true)
                .open(dir.path().join(name))
                .expect("open");
            file.set_modified(now - age).expect("mtime");
        };
        set_age("old-1.jsonl", 8 * day);
        set_age("old-notes.txt", 8 * day);
        set_age("new-1.jsonl", 6 * day);
        assert_eq!(prune_stale(dir.path(), now), ["old-1.jsonl"]);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["new-1.jsonl", "old-notes.txt"]);
        assert!(prune_stale(&dir.path().join("missing"), now).is_empty());
    }
}
