//! `hermes-recall --store URL`: the session_search tool's answers from the team store.
//!
//! Discover asks `hermes.search` (the only path to the full-text index, see
//! [`super::schema`]) for at most 300 ranked rows of the visible homes, then does locally
//! what the SQLite reader does: cron demotion, one result per lineage, the window and
//! bookends of each hit. Scroll and read name a session; in a store of many homes a
//! `session_id` may be written `HOME_ID/SESSION_ID`, and a bare id is looked for in the
//! caller's own home first, then in every home it may see. Each result carries `home_id`.

use std::collections::{HashMap, HashSet};

use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value, json};

mod browse;
mod title;

use title::TitleWanted;

use super::connect::Store;
use super::error::{Result, query};
use super::plan::{Plan, plan};
use super::view::{self, Conn, real, text};

use super::{schema, snippet};
use crate::pytext::{py_int, py_int_of, strip};
use crate::recall::discover::{DEMOTED_SOURCES, entry, shaped};
use crate::recall::scroll::session_meta;
use crate::recall::search::{Hit, SCAN_LIMIT};
use crate::recall::store::SessionMeta;
use crate::recall::{Args, HIDDEN_SOURCES, error, sanitize};

/// How many of the ranked rows have their sessions read up front (discover rarely looks
/// further before it has its lineages).
const PREFETCH: usize = 50;

/// Whose sessions a search sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// The caller's own homes (its role and the owner names mapped to it).
    Me,
    /// Also every home of an owner that shares a team with the caller.
    Team,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Me => "me",
            Scope::Team => "team",
        }
    }
}

/// A lineage in the store: its home and its root session.
type Lineage = (String, String);

/// What one search statement found: the title match's (home, session), and the rows
/// (home, hit) in the plan's order.
type Found = (Option<(String, String)>, Vec<(String, Hit)>);

/// A store open for recall, and the per-call caches of session rows and lineage roots.
pub struct TeamRecall {
    client: Conn,
    scope: Scope,
    /// The caller's home, when it was ever pushed: `current` lives there.
    my_home: Option<String>,
    sessions: HashMap<(String, String), Option<SessionMeta>>,
    roots: HashMap<(String, String), String>,
}

impl TeamRecall {
    /// Checks the schema and sets the scope for the row-level security policies.
    pub fn new(store: Store, scope: Scope, my_home: Option<String>) -> Result<TeamRecall> {
        let mut client = store.client;
        schema::require_current(&mut client)?;
        client
            .execute(
                "SELECT set_config('hermes.scope', $1, false)",
                &[&scope.as_str()],
            )
            .map_err(query("setting the scope"))?;
        Ok(TeamRecall {
            client: Conn::new(client),
            scope,
            my_home,
            sessions: HashMap::new(),
            roots: HashMap::new(),
        })
    }

    fn session(&mut self, home: &str, id: &str) -> Option<SessionMeta> {
        let key = (home.to_string(), id.to_string());
        if let Some(hit) = self.sessions.get(&key) {
            return hit.clone();
        }
        let row = view::session(&mut self.client, home, id).ok().flatten();
        self.sessions.insert(key, row.clone());
        row
    }

    /// Reads the rows of `keys` not cached yet, in one statement.
    fn prefetch(&mut self, keys: &[(String, String)]) {
        let missing: HashSet<&(String, String)> = keys
            .iter()
            .filter(|k| !self.sessions.contains_key(*k))
            .collect();
        if missing.is_empty() {
            return;
        }
        let (homes, ids): (Vec<&str>, Vec<&str>) = missing
            .iter()
            .map(|(h, i)| (h.as_str(), i.as_str()))
            .unzip();
        // The homes become uuid before the join: a cast inside it is not leakproof, and
        // row-level security would then keep it out of the index condition.
        let Ok(rows) = self.client.query(
            "SELECT s.home_id::text, s.id, s.source, s.model, s.title, s.started_at, s.parent_session_id
             FROM unnest($1::text[]::uuid[], $2::text[]) AS k(home, id)
             JOIN hermes.sessions s ON s.home_id = k.home AND s.id = k.id",
            &[&homes, &ids],
        ) else {
            return;
        };
        let mut found: HashMap<(String, String), Option<SessionMeta>> =
            missing.into_iter().map(|k| (k.clone(), None)).collect();
        for r in rows {
            let key: (String, String) = (r.get(0), r.get(1));
            let meta = SessionMeta {
                id: key.1.clone(),
                source: text(r.get(2)),
                model: text(r.get(3)),
                title: text(r.get(4)),
                started_at: real(r.get(5)),
                parent_session_id: r.get(6),
            };
            found.insert(key, Some(meta));
        }
        self.sessions.extend(found);
    }

    /// `_resolve_to_parent` within one home.
    fn root_of(&mut self, home: &str, id: &str) -> String {
        if id.is_empty() {
            return String::new();
        }
        let key = (home.to_string(), id.to_string());
        if let Some(root) = self.roots.get(&key) {
            return root.clone();
        }
        let mut visited = HashSet::new();
        let mut cur = id.to_string();
        while !cur.is_empty() && visited.insert(cur.clone()) {
            match self.session(home, &cur).and_then(|m| m.parent_session_id) {
                Some(parent) if !parent.is_empty() => cur = parent,
                _ => break,
            }
        }
        self.roots.insert(key, cur.clone());
        cur
    }

    /// One session_search call.
    pub fn answer(&mut self, args: &Args, current: Option<&str>) -> Value {
        self.sessions.clear();
        self.roots.clear();
        if let Some(id) = args
            .session_id
            .as_str()
            .map(strip)
            .filter(|s| !s.is_empty())
        {
            let id = id.to_string();
            if !args.around_message_id.is_null()
                && !matches!(
                    py_int_of(&args.around_message_id),
                    Some(crate::pytext::PyInt::Small(_))
                )
            {
                return error("scroll requires integer around_message_id");
            }
            let Some((home, id)) = self.locate(&id) else {
                return error(format!("session_id not found: {id}"));
            };
            if !args.around_message_id.is_null() {
                return self.scroll(&home, &id, &args.around_message_id, &args.window, current);
            }
            return self.read(&home, &id);
        }
        let limit = py_int(&args.limit).unwrap_or(3).clamp(1, 10) as usize;
        let query = match &args.query {
            Value::String(q) if !strip(q).is_empty() => strip(q).to_string(),
            _ => return self.browse(limit, current),
        };
        let roles: Vec<String> = match &args.role_filter {
            Value::String(r) => r
                .split(',')
                .map(strip)
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        let roles = if roles.is_empty() {
            vec!["user".to_string(), "assistant".to_string()]
        } else {
            roles
        };
        let sort = match &args.sort {
            Value::String(s) => strip(s).to_lowercase(),
            _ => String::new(),
        };
        self.discover(&query, &roles, limit, &sort, current)
    }

    /// `HOME_ID/SESSION_ID`, or a bare id: the caller's home first, then the only visible
    /// home holding it.
    fn locate(&mut self, wanted: &str) -> Option<(String, String)> {
        if let Some((home, id)) = wanted.split_once('/')
            && home.len() == 36
        {
            return self
                .session(home, id)
                .map(|_| (home.to_string(), id.to_string()));
        }
        if let Some(mine) = self.my_home.clone()
            && self.session(&mine, wanted).is_some()
        {
            return Some((mine, wanted.to_string()));
        }
        let rows = self
            .client
            .query(
                "SELECT home_id::text FROM hermes.sessions WHERE id = $1 ORDER BY home_id LIMIT 2",
                &[&wanted],
            )
            .ok()?;
        match rows.as_slice() {
            [one] => Some((one.get(0), wanted.to_string())),
            _ => None,
        }
    }

    fn current_root(&mut self, current: Option<&str>) -> Option<(String, String)> {
        let current = current.filter(|c| !c.is_empty())?;
        let home = self.my_home.clone()?;
        let root = self.root_of(&home, current);
        Some((home, root))
    }

    fn discover(
        &mut self,
        query: &str,
        roles: &[String],
        limit: usize,
        sort: &str,
        current: Option<&str>,
    ) -> Value {
        let current_root = self.current_root(current);
        let sanitized = sanitize::sanitize(query);
        let plan = if sanitized.is_empty() {
            Plan::Nothing
        } else {
            plan(&sanitized)
        };
        let wanted = TitleWanted::of(query, self.my_home.as_deref());
        let (titled, hits) = match self.search(&plan, roles, sort, wanted.as_ref()) {
            Ok(found) => found,
            Err(e) => return error(format!("Search failed: {e}")),
        };
        let title = match (titled, &wanted) {
            (Some(found), Some(wanted)) => self.title_entry(found, wanted, current_root.as_ref()),
            _ => None,
        };

        let mut seen: Vec<(Lineage, Option<(String, Hit)>)> = Vec::new();
        let mut roots: HashSet<(String, String)> = HashSet::new();
        if let Some((home, root, _)) = &title {
            roots.insert((home.clone(), root.clone()));
            seen.push(((home.clone(), root.clone()), None));
        }
        let any_rows = !hits.is_empty();
        let (interactive, demoted): (Vec<_>, Vec<_>) = hits.into_iter().partition(|(_, hit)| {
            !matches!(&hit.source, SqlValue::Text(s) if DEMOTED_SOURCES.contains(&s.as_str()))
        });
        let ordered: Vec<(String, Hit)> = interactive.into_iter().chain(demoted).collect();
        // The sessions the first rows belong to, in one statement rather than one each.
        let wanted: Vec<(String, String)> = ordered
            .iter()
            .take(PREFETCH)
            .map(|(home, hit)| (home.clone(), hit.session_id.clone()))
            .collect();
        self.prefetch(&wanted);
        for (home, hit) in ordered {
            if seen.len() >= limit {
                break;
            }
            let root = self.root_of(&home, &hit.session_id);
            let mine = self.my_home.as_deref() == Some(home.as_str());
            if let Some((_, c)) = &current_root
                && mine
                && !c.is_empty()
                && *c == root
            {
                continue;
            }
            if mine && current.is_some_and(|c| !c.is_empty() && c == hit.session_id) {
                continue;
            }
            if roots.insert((home.clone(), root.clone())) {
                seen.push(((home.clone(), root), Some((home, hit))));
            }
        }
        if !any_rows && title.is_none() {
            return json!({
                "success": true, "mode": "discover", "query": query, "results": [],
                "count": 0, "message": "No matching sessions found.",
            });
        }
        let sessions_searched = seen.len();
        let mut results = Vec::new();
        if let Some((_, _, t)) = title {
            results.push(t);
        }
        let picked: Vec<(String, String, Hit)> = seen
            .into_iter()
            .filter_map(|((_, root), hit)| hit.map(|(home, hit)| (home, root, hit)))
            .collect();
        let keys: Vec<(&str, &str, i64)> = picked
            .iter()
            .map(|(home, _, hit)| (home.as_str(), hit.session_id.as_str(), hit.id))
            .collect();
        // Upstream drops an entry whose view fails; a failed statement drops them all.
        let views = view::anchored_many(&mut self.client, &keys, 5, 3).unwrap_or_default();
        for ((home, root, hit), anchored) in picked.iter().zip(views) {
            let meta = self.session(home, root);
            let snippet = match &plan {
                Plan::Words { terms, .. } => snippet::word_snippet(&anchored.text, terms),
                Plan::Bigrams { terms, .. } => {
                    crate::recall::snippet::cjk_snippet(&anchored.text, terms)
                }
                Plan::Like { first, .. } => snippet::like_snippet(&anchored.content, first),
                Plan::Nothing => String::new(),
            };
            results.push(with_home(
                entry(hit, root, meta.as_ref(), &anchored.view, snippet),
                home,
            ));
        }
        let count = results.len();
        json!({
            "success": true, "mode": "discover", "query": query, "results": results,
            "count": count, "sessions_searched": sessions_searched,
        })
    }

    /// The session the title match found, and the rows (home, hit) in the plan's order,
    /// at most [`SCAN_LIMIT`]: one statement for both, since each statement is a round trip
    /// and, on a busy server, a wait to be scheduled.
    fn search(
        &mut self,
        plan: &Plan,
        roles: &[String],
        sort: &str,
        wanted: Option<&TitleWanted>,
    ) -> std::result::Result<Found, postgres::Error> {
        let (q_words, q_cjk, mode) = match plan {
            Plan::Words { tsquery, .. } => (Some(tsquery.clone()), None, "words"),
            Plan::Bigrams { tsquery, .. } => (None, Some(tsquery.clone()), "cjk"),
            Plan::Like { words, cjk, .. } => (words.clone(), cjk.clone(), "like"),
            Plan::Nothing => return Ok((wanted.and_then(|w| self.title_lookup(w)), Vec::new())),
        };
        let hidden: Vec<String> = HIDDEN_SOURCES.iter().map(|s| s.to_string()).collect();
        let scope = self.scope.as_str();
        let limit = SCAN_LIMIT as i32;
        let search: [&(dyn postgres::types::ToSql + Sync); 8] = [
            &q_words, &q_cjk, &mode, &scope, &roles, &hidden, &sort, &limit,
        ];
        if let Some(w) = wanted {
            let mut params = search.to_vec();
            params.extend([
                &w.prefix as &(dyn postgres::types::ToSql + Sync),
                &w.exact,
                &w.mine,
            ]);
            // A store where the caller may search but not match titles (a grant given by
            // hand) fails the statement: then each on its own, as before.
            if let Ok(rows) = self.client.query(
                "SELECT 0 AS part, n, home_id::text, id, session_id, role, source, model,
                        session_started, title, parent_session_id, shown
                 FROM hermes.search($1, $2, $3, $4, $5, $6, $7, $8) WITH ORDINALITY
                      AS s(home_id, id, session_id, role, source, model, session_started,
                           rank, title, parent_session_id, shown, n)
                 UNION ALL
                 SELECT 1, 0, home_id::text, NULL, id, NULL, NULL, NULL, NULL, NULL, NULL, NULL
                 FROM hermes.title_match($9, $10, $11, $4)
                 ORDER BY 1, 2",
                &params,
            ) {
                let (hits, titled): (Vec<&postgres::Row>, Vec<&postgres::Row>) =
                    rows.iter().partition(|r| r.get::<_, i32>(0) == 0);
                let titled = titled.first().map(|r| (r.get(2), r.get(4)));
                return Ok((titled, self.hits(&hits, 2)));
            }
        }
        let titled = wanted.and_then(|w| self.title_lookup(w));
        let rows = self.client.query(
            "SELECT home_id::text, id, session_id, role, source, model, session_started,
                    title, parent_session_id, shown
             FROM hermes.search($1, $2, $3, $4, $5, $6, $7, $8)",
            &search,
        )?;
        let rows: Vec<&postgres::Row> = rows.iter().collect();
        Ok((titled, self.hits(&rows, 0)))
    }

    /// The hits of the search's rows, their columns from `at` on (home, id, session,
    /// role, source, model, start, title, parent, shown).
    fn hits(&mut self, rows: &[&postgres::Row], at: usize) -> Vec<(String, Hit)> {
        let mut hits = Vec::with_capacity(rows.len());
        for r in rows {
            let home: String = r.get(at);
            let hit = Hit {
                id: r.get(at + 1),
                session_id: r.get(at + 2),
                role: text(r.get(at + 3)),
                source: text(r.get(at + 4)),
                model: text(r.get(at + 5)),
                session_started: real(r.get(at + 6)),
            };
            // The session row came with the hit: cached when the sessions policy's rule
            // shows it, so discover reads no session of a hit again. A row the rule hides
            // is left to the policy itself (a role may bypass it).
            if r.get::<_, Option<bool>>(at + 9) == Some(true) {
                let key = (home.clone(), hit.session_id.clone());
                self.sessions.entry(key).or_insert_with(|| {
                    Some(SessionMeta {
                        id: hit.session_id.clone(),
                        source: hit.source.clone(),
                        model: hit.model.clone(),
                        title: text(r.get(at + 7)),
                        started_at: hit.session_started.clone(),
                        parent_session_id: r.get(at + 8),
                    })
                });
            }
            hits.push((home, hit));
        }
        hits
    }

    fn scroll(
        &mut self,
        home: &str,
        session_id: &str,
        around: &Value,
        window: &Value,
        current: Option<&str>,
    ) -> Value {
        let Some(crate::pytext::PyInt::Small(around)) = py_int_of(around) else {
            return error("scroll requires integer around_message_id");
        };
        let window = py_int(window).unwrap_or(5).clamp(1, 20);
        if self.my_home.as_deref() == Some(home)
            && let Some((_, c)) = self.current_root(current)
        {
            let a = self.root_of(home, session_id);
            if !a.is_empty() && !c.is_empty() && a == c {
                return error(
                    "scroll rejected: anchor lives in the current session lineage (already in your active context)",
                );
            }
        }
        let Some(meta) = self.session(home, session_id) else {
            return error(format!("session_id not found: {session_id}"));
        };
        let view = match view::around(&mut self.client, home, session_id, around, window) {
            Ok(v) => v,
            Err(e) => return error(format!("failed to load messages: {e}")),
        };
        if view.rows.is_empty() {
            return error(format!(
                "around_message_id {around} not in session_id {session_id}"
            ));
        }
        let mut out = Map::new();
        out.insert("success".into(), Value::Bool(true));
        out.insert("mode".into(), Value::from("scroll"));
        out.insert("session_id".into(), Value::from(session_id));
        out.insert("home_id".into(), Value::from(home));
        out.insert("around_message_id".into(), Value::from(around));
        out.insert("session_meta".into(), session_meta(&meta));
        out.insert("window".into(), Value::from(window));
        out.insert("messages".into(), shaped(&view.rows, Some(around)));
        out.insert("messages_before".into(), Value::from(view.before));
        out.insert("messages_after".into(), Value::from(view.after));
        Value::Object(out)
    }

    fn read(&mut self, home: &str, session_id: &str) -> Value {
        const HEAD: usize = 20;
        const TAIL: usize = 10;
        let Some(meta) = self.session(home, session_id) else {
            return error(format!("session_id not found: {session_id}"));
        };
        let t = match view::transcript(&mut self.client, home, session_id, HEAD, TAIL) {
            Ok(t) => t,
            Err(e) => return error(format!("failed to load session: {e}")),
        };
        let truncated = !t.tail.is_empty();
        let total = t.total;
        let mut rows = t.head;
        rows.extend(t.tail);
        let mut out = Map::new();
        out.insert("success".into(), Value::Bool(true));
        out.insert("mode".into(), Value::from("read"));
        out.insert("session_id".into(), Value::from(session_id));
        out.insert("home_id".into(), Value::from(home));
        out.insert("session_meta".into(), session_meta(&meta));
        out.insert("message_count".into(), Value::from(total));
        out.insert("truncated".into(), Value::Bool(truncated));
        out.insert("messages".into(), shaped(&rows, None));
        if truncated {
            out.insert(
                "message".into(),
                Value::from(format!(
                    "Session has {total} messages; showing first {HEAD} + last {TAIL}. Pass around_message_id (any id above) to scroll the middle."
                )),
            );
        }
        Value::Object(out)
    }
}

/// Adds `home_id` right after `session_id`.
fn with_home(entry: Value, home: &str) -> Value {
    let Value::Object(map) = entry else {
        return entry;
    };
    let mut out = Map::new();
    for (k, v) in map {
        let after = k == "session_id";
        out.insert(k, v);
        if after {
            out.insert("home_id".into(), Value::from(home));
        }
    }
    Value::Object(out)
}

/// Connects for recall; the caller's home id is read when the home was ever pushed.
pub fn open(url: &str, scope: Scope, home_root: &std::path::Path) -> Result<TeamRecall> {
    let store = super::connect::connect(url, &super::connect::process_env)?;
    let my_home = std::fs::read(home_root.join(super::identity::FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<super::identity::Identity>(&b).ok())
        .map(|i| i.home_id);
    TeamRecall::new(store, scope, my_home)
}
