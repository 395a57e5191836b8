//! SCROLL (`_scroll`, reference `recall` §4.5) and READ (`_read_session`, §4.6): a window of a
//! session around a message id, and a whole session (head and tail when long).

use serde_json::{Map, Value};

use super::discover::shaped;
use super::store::{SessionMeta, Store, sql_json};
use super::{error, view, when};
use crate::pytext::{PyInt, py_int, py_int_of, strip};

/// `session_meta` of scroll and read: the session's own start, source, model and title.
pub fn session_meta(meta: &SessionMeta) -> Value {
    let mut out = Map::new();
    out.insert("when".into(), Value::from(when::format(&meta.started_at)));
    out.insert("source".into(), sql_json(&meta.source));
    out.insert("model".into(), sql_json(&meta.model));
    out.insert("title".into(), sql_json(&meta.title));
    Value::Object(out)
}

/// Scroll: `window` (clamped to 1..=20, 5 when not a number) rows each side of `around`.
pub fn scroll(
    store: &Store,
    session_id: &Value,
    around: &Value,
    window: &Value,
    current: Option<&str>,
) -> Value {
    let Some(session_id) = session_id.as_str().map(strip).filter(|s| !s.is_empty()) else {
        return error("scroll requires session_id");
    };
    let Some(around) = py_int_of(around) else {
        return error("scroll requires integer around_message_id");
    };
    let window = py_int(window).unwrap_or(5).clamp(1, 20);

    if let Some(current) = current.filter(|c| !c.is_empty()) {
        let (a, c) = (store.root_of(session_id), store.root_of(current));
        if !a.is_empty() && !c.is_empty() && a == c {
            return error(
                "scroll rejected: anchor lives in the current session lineage (already in your active context)",
            );
        }
    }
    let Some(mut meta) = store.session(session_id).ok().flatten() else {
        return error(format!("session_id not found: {session_id}"));
    };
    let PyInt::Small(around) = around else {
        // Python hands SQLite an int it cannot bind.
        return error("failed to load messages: Python int too large to convert to SQLite INTEGER");
    };
    let mut session_id = session_id.to_string();
    let mut view = match view::around(store.conn(), &session_id, around, window) {
        Ok(v) => v,
        Err(e) => return error(format!("failed to load messages: {e}")),
    };

    // An anchor that lives in a descendant of the named session: read it there.
    let mut warning = None;
    if view.rows.is_empty()
        && let Ok(Some(owner)) = view::owner_of(store.conn(), around)
        && owner != session_id
    {
        let (a, o) = (store.root_of(&session_id), store.root_of(&owner));
        if !a.is_empty()
            && a == o
            && let Ok(rebound) = view::around(store.conn(), &owner, around, window)
            && !rebound.rows.is_empty()
        {
            warning = Some(format!(
                "around_message_id {around} lives in {owner} (child of {session_id}); rebound transparently"
            ));
            view = rebound;
            if let Ok(Some(owner_meta)) = store.session(&owner) {
                meta = owner_meta;
            }
            session_id = owner;
        }
    }
    if view.rows.is_empty() {
        return error(format!(
            "around_message_id {around} not in session_id {session_id}"
        ));
    }

    let mut out = Map::new();
    out.insert("success".into(), Value::Bool(true));
    out.insert("mode".into(), Value::from("scroll"));
    out.insert("session_id".into(), Value::from(session_id));
    out.insert("around_message_id".into(), Value::from(around));
    out.insert("session_meta".into(), session_meta(&meta));
    out.insert("window".into(), Value::from(window));
    out.insert("messages".into(), shaped(&view.rows, Some(around)));
    out.insert("messages_before".into(), Value::from(view.before));
    out.insert("messages_after".into(), Value::from(view.after));
    if let Some(w) = warning {
        out.insert("warning".into(), Value::from(w));
    }
    Value::Object(out)
}

/// Read: the live transcript, the first 20 and last 10 rows when it has more than 30.
pub fn read(store: &Store, session_id: &str) -> Value {
    const HEAD: usize = 20;
    const TAIL: usize = 10;
    let Some(meta) = store.session(session_id).ok().flatten() else {
        return error(format!("session_id not found: {session_id}"));
    };
    let transcript = match view::transcript(store.conn(), session_id, HEAD, TAIL) {
        Ok(t) => t,
        Err(e) => return error(format!("failed to load session: {e}")),
    };
    let truncated = !transcript.tail.is_empty();
    let mut rows = transcript.head;
    rows.extend(transcript.tail);

    let mut out = Map::new();
    out.insert("success".into(), Value::Bool(true));
    out.insert("mode".into(), Value::from("read"));
    out.insert("session_id".into(), Value::from(session_id));
    out.insert("session_meta".into(), session_meta(&meta));
    out.insert("message_count".into(), Value::from(transcript.total));
    out.insert("truncated".into(), Value::Bool(truncated));
    out.insert("messages".into(), shaped(&rows, None));
    if truncated {
        out.insert(
            "message".into(),
            Value::from(format!(
                "Session has {} messages; showing first {HEAD} + last {TAIL}. Pass around_message_id (any id above) to scroll the middle.",
                transcript.total
            )),
        );
    }
    Value::Object(out)
}
