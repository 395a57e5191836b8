//! Cross-session recall: the `session_search` tool of Hermes 0.19.0 (reference `recall` §3-5),
//! answering with the same JSON, key for key, from the same `state.db`.
//!
//! [`Recall::answer`] takes the tool's arguments and picks the mode as upstream does:
//! - **scroll** ([`scroll::scroll`]): `session_id` and `around_message_id`;
//! - **read** ([`scroll::read`]): `session_id` alone (looked for in every profile when missing);
//! - **browse** ([`browse::browse`]): no query;
//! - **discover** ([`discover::discover`]): a query, sanitised ([`sanitize`]), routed to an
//!   index ([`route`]), its matches read in upstream's order ([`search`]), one result per
//!   lineage ([`store::Store::root_of`]), each with its window and bookends ([`view`]).
//!
//! Where our answer differs from 0.19.0 on purpose (CJK words through the bigram index,
//! rewound rows never returned, searches of other profiles), `docs/decisions.md` says so.

pub mod browse;
pub mod discover;
pub mod profile;
pub mod render;
pub mod route;
pub mod sanitize;
pub mod scroll;
pub mod search;
pub mod snippet;
pub mod store;
pub mod title;
pub mod view;
pub mod when;

use serde_json::{Map, Value, json};

use crate::home::Home;
use crate::pytext::{py_int, py_str, strip};
use crate::sessions;
pub use search::Sort;
pub use store::Store;

/// `_HIDDEN_SESSION_SOURCES`: sessions no search or list shows.
pub const HIDDEN_SOURCES: &[&str] = &["subagent", "tool"];

/// A tool error: `{"error": message, "success": false}`.
pub fn error(message: impl Into<String>) -> Value {
    json!({"error": message.into(), "success": false})
}

/// The tool's arguments, as JSON values: the tool coerces them itself (a `limit` of `"5"` is
/// 5, of `"x"` the default), so they are kept as given. A missing key is `null`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    pub query: Value,
    pub limit: Value,
    pub sort: Value,
    pub session_id: Value,
    pub around_message_id: Value,
    pub window: Value,
    pub role_filter: Value,
    pub profile: Value,
}

impl Args {
    /// The arguments of one tool call; keys the tool does not take are ignored.
    pub fn from_object(object: &Map<String, Value>) -> Args {
        let get = |key: &str| object.get(key).cloned().unwrap_or(Value::Null);
        Args {
            query: get("query"),
            limit: get("limit"),
            sort: get("sort"),
            session_id: get("session_id"),
            around_message_id: get("around_message_id"),
            window: get("window"),
            role_filter: get("role_filter"),
            profile: get("profile"),
        }
    }
}

/// Whether an answer is negative: an error object, or a discover that found nothing.
pub fn is_negative(answer: &Value) -> bool {
    answer.get("success") != Some(&Value::Bool(true))
        || (answer.get("mode") == Some(&Value::from("discover"))
            && answer.get("count") == Some(&Value::from(0)))
}

/// A Hermes home's session store, open for recall.
#[derive(Debug)]
pub struct Recall {
    home: Home,
    store: Store,
}

impl Recall {
    /// Opens `home`'s `state.db` (see [`Store::open`]).
    pub fn open(home: Home) -> sessions::Result<Recall> {
        let store = Store::open(&home.state_db())?;
        Ok(Recall { home, store })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// One `session_search` call; `current` is the caller's live session (its lineage is
    /// left out of discover and browse, and scroll refuses it).
    pub fn answer(&self, args: &Args, current: Option<&str>) -> Value {
        self.store.forget();
        let mut session_id = args.session_id.clone();
        let mut profile = args.profile.clone();
        if let Value::String(id) = &args.session_id
            && let Some((embedded, rest)) = id.split_once('/')
            && !rest.is_empty()
        {
            session_id = Value::from(rest);
            if !embedded.is_empty() && (profile.is_null() || strip(&py_str(&profile)).is_empty()) {
                profile = Value::from(embedded);
            }
        }

        let mut current = current;
        let mut profile_store = None;
        if !profile.is_null() && !strip(&py_str(&profile)).is_empty() {
            let name = py_str(&profile);
            let dir = match profile::resolve(&self.home, &name) {
                Ok(dir) => dir,
                Err(e) => return error(format!("profile '{name}': {e}")),
            };
            match Store::open_read_only(&dir.join("state.db")) {
                Ok(store) => profile_store = Some(store),
                Err(e) => return error(format!("profile '{name}': {}", open_error(&e))),
            }
            current = None;
        }
        let store = profile_store.as_ref().unwrap_or(&self.store);
        let _snapshot = store.snapshot();

        let named = session_id.as_str().map(strip).filter(|s| !s.is_empty());
        if let Some(id) = named {
            if !args.around_message_id.is_null() {
                return scroll::scroll(
                    store,
                    &session_id,
                    &args.around_message_id,
                    &args.window,
                    current,
                );
            }
            let answer = scroll::read(store, id);
            if answer.get("success") == Some(&Value::Bool(true)) {
                return answer;
            }
            return self.read_elsewhere(store, id).unwrap_or(answer);
        }

        let limit = py_int(&args.limit).unwrap_or(3).clamp(1, 10) as usize;
        let query = match &args.query {
            Value::String(q) if !strip(q).is_empty() => strip(q),
            _ => return browse::browse(store, limit, current),
        };
        let roles = match &args.role_filter {
            Value::String(r) if !strip(r).is_empty() => {
                let roles: Vec<String> = r
                    .split(',')
                    .map(strip)
                    .filter(|r| !r.is_empty())
                    .map(str::to_string)
                    .collect();
                (!roles.is_empty()).then_some(roles)
            }
            _ => None,
        };
        let sort = match &args.sort {
            Value::String(s) => match strip(s).to_lowercase().as_str() {
                "newest" => Sort::Newest,
                "oldest" => Sort::Oldest,
                _ => Sort::Rank,
            },
            _ => Sort::Rank,
        };
        discover::discover(store, query, roles, limit, sort, current)
    }

    /// A read of an id the store does not hold: every profile's store is looked in, and a
    /// hit is answered with the `profile` it came from.
    fn read_elsewhere(&self, searched: &Store, id: &str) -> Option<Value> {
        let searched = std::fs::canonicalize(searched.path()).ok();
        for (name, path) in profile::every_store(&self.home) {
            if std::fs::canonicalize(&path).ok() == searched && searched.is_some() {
                continue;
            }
            let Ok(other) = Store::open_read_only(&path) else {
                continue;
            };
            let _snapshot = other.snapshot();
            if !matches!(other.session(id), Ok(Some(_))) {
                continue;
            }
            let mut found = scroll::read(&other, id);
            if found.get("success") != Some(&Value::Bool(true)) {
                return None;
            }
            if let Value::Object(map) = &mut found {
                map.insert("profile".into(), Value::from(name));
            }
            return Some(found);
        }
        None
    }
}

/// What Python's `sqlite3` says when a profile's store cannot be opened read-only.
fn open_error(e: &sessions::Error) -> String {
    match e {
        sessions::Error::Missing(_) => "unable to open database file".into(),
        other => other.to_string(),
    }
}

/// The error object upstream answers with when the store cannot be opened at all.
pub fn unavailable(e: &sessions::Error) -> Value {
    error(format!("Session database not available: {e}."))
}
