//! The team store's schema, created and migrated by `hermes-index --store URL init`: the
//! steps below run in order inside one transaction, each once, recorded in
//! `hermes.schema_version`.
//!
//! Who sees what. Every home belongs to an owner: the database role that pushes it, or a
//! name an administrator maps to that role in `hermes.owner_roles`. Owners share through
//! teams (`hermes.team_members`). Reads of sessions and message windows go through
//! row-level security; the full-text search goes through `hermes.search` and discover's
//! title match through `hermes.title_match`, SECURITY DEFINER functions that apply the
//! same rule themselves, because under row-level security PostgreSQL cannot push `@@` or
//! `LIKE` (not leakproof) into an index scan and every search becomes a scan of the
//! visible rows (measured 0.48 → 54 ms).

use postgres::Client;

use super::error::{Error, Result, query};

/// The version this build writes.
pub const VERSION: i32 = 2;

/// Step `n` brings the schema from version `n` to `n + 1`.
const STEPS: &[&str] = &[V1, V2];

/// The signatures grants name.
const SEARCH: &str = "hermes.search(text, text, text, text, text[], text[], text, integer)";
const TITLE_MATCH: &str = "hermes.title_match(text, text, text, text)";

const V1: &str = r#"
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE hermes.owner_roles (
    owner text NOT NULL,
    role name NOT NULL,
    PRIMARY KEY (owner, role)
);

CREATE TABLE hermes.team_members (
    team text NOT NULL,
    owner text NOT NULL,
    PRIMARY KEY (team, owner)
);

CREATE TABLE hermes.homes (
    home_id uuid PRIMARY KEY,
    owner text NOT NULL,
    role name NOT NULL DEFAULT session_user,
    watermark bigint NOT NULL DEFAULT 0,
    sessions_complete boolean NOT NULL DEFAULT false,
    pushed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE hermes.sessions (
    home_id uuid NOT NULL,
    id text NOT NULL,
    owner text NOT NULL,
    source text,
    user_id text,
    model text,
    parent_session_id text,
    started_at double precision,
    ended_at double precision,
    end_reason text,
    message_count bigint,
    tool_call_count bigint,
    input_tokens bigint,
    output_tokens bigint,
    title text,
    archived bigint,
    PRIMARY KEY (home_id, id)
);
CREATE INDEX sessions_title ON hermes.sessions (title) WHERE title IS NOT NULL;
-- The title match's "<title> #N" prefix, ASCII-case-insensitive as SQLite's LIKE.
CREATE INDEX sessions_title_folded ON hermes.sessions
    (translate(title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') text_pattern_ops)
    WHERE title IS NOT NULL;
CREATE INDEX sessions_started ON hermes.sessions (owner, started_at DESC);

CREATE TABLE hermes.messages (
    home_id uuid NOT NULL,
    id bigint NOT NULL,
    owner text NOT NULL,
    session_id text NOT NULL,
    -- The session's source, copied: upstream never changes it, and the search filters on
    -- it before ranking without joining sessions.
    source text,
    role text,
    content text,
    content_json boolean NOT NULL DEFAULT false,
    tool_call_id text,
    tool_calls text,
    tool_name text,
    "timestamp" double precision,
    active bigint,
    compacted bigint,
    fts tsvector NOT NULL,
    cjk tsvector,
    PRIMARY KEY (home_id, id)
);
CREATE INDEX messages_session ON hermes.messages (home_id, session_id, id);
CREATE INDEX messages_fts ON hermes.messages USING gin (owner, fts);
CREATE INDEX messages_cjk ON hermes.messages USING gin (owner, cjk) WHERE cjk IS NOT NULL;

-- The owner names the calling role acts as: its own name and the names mapped to it.
CREATE FUNCTION hermes.my_owners() RETURNS text[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT array_agg(DISTINCT o) FROM (
        SELECT session_user::text AS o
        UNION SELECT owner FROM hermes.owner_roles WHERE role = session_user
    ) mine
$$;

-- The owners the caller may read under `scope` ('me' or 'team', from the setting
-- hermes.scope when not given): its own, plus every member of a team it belongs to.
CREATE FUNCTION hermes.visible_owners(scope text DEFAULT NULL) RETURNS text[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE
        WHEN coalesce(scope, current_setting('hermes.scope', true), 'me') = 'team' THEN (
            SELECT array_agg(DISTINCT o) FROM (
                SELECT unnest(hermes.my_owners()) AS o
                UNION
                SELECT other.owner FROM hermes.team_members mine
                JOIN hermes.team_members other ON other.team = mine.team
                WHERE mine.owner = ANY ((SELECT hermes.my_owners())::text[])
            ) visible)
        ELSE hermes.my_owners()
    END
$$;

-- The homes the caller may push: those it registered.
CREATE FUNCTION hermes.my_homes() RETURNS uuid[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT coalesce(array_agg(home_id), '{}') FROM hermes.homes WHERE role = session_user
$$;

ALTER TABLE hermes.homes ENABLE ROW LEVEL SECURITY;
ALTER TABLE hermes.sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE hermes.messages ENABLE ROW LEVEL SECURITY;

CREATE POLICY homes_read ON hermes.homes FOR SELECT
    USING (role = session_user OR owner = ANY ((SELECT hermes.visible_owners())::text[]));
CREATE POLICY homes_register ON hermes.homes FOR INSERT
    WITH CHECK (role = session_user AND owner = ANY ((SELECT hermes.my_owners())::text[]));
CREATE POLICY homes_update ON hermes.homes FOR UPDATE
    USING (role = session_user) WITH CHECK (role = session_user AND owner = ANY ((SELECT hermes.my_owners())::text[]));

CREATE POLICY sessions_read ON hermes.sessions FOR SELECT
    USING (owner = ANY ((SELECT hermes.visible_owners())::text[]) OR home_id = ANY ((SELECT hermes.my_homes())::uuid[]));
CREATE POLICY sessions_insert ON hermes.sessions FOR INSERT
    WITH CHECK (home_id = ANY ((SELECT hermes.my_homes())::uuid[]) AND owner = ANY ((SELECT hermes.my_owners())::text[]));
CREATE POLICY sessions_update ON hermes.sessions FOR UPDATE
    USING (home_id = ANY ((SELECT hermes.my_homes())::uuid[]))
    WITH CHECK (home_id = ANY ((SELECT hermes.my_homes())::uuid[]) AND owner = ANY ((SELECT hermes.my_owners())::text[]));
CREATE POLICY sessions_delete ON hermes.sessions FOR DELETE
    USING (home_id = ANY ((SELECT hermes.my_homes())::uuid[]));

CREATE POLICY messages_read ON hermes.messages FOR SELECT
    USING (owner = ANY ((SELECT hermes.visible_owners())::text[]) OR home_id = ANY ((SELECT hermes.my_homes())::uuid[]));
CREATE POLICY messages_insert ON hermes.messages FOR INSERT
    WITH CHECK (home_id = ANY ((SELECT hermes.my_homes())::uuid[]) AND owner = ANY ((SELECT hermes.my_owners())::text[]));
CREATE POLICY messages_update ON hermes.messages FOR UPDATE
    USING (home_id = ANY ((SELECT hermes.my_homes())::uuid[]))
    WITH CHECK (home_id = ANY ((SELECT hermes.my_homes())::uuid[]) AND owner = ANY ((SELECT hermes.my_owners())::text[]));
CREATE POLICY messages_delete ON hermes.messages FOR DELETE
    USING (home_id = ANY ((SELECT hermes.my_homes())::uuid[]));

-- The full-text search: the visible owners computed once, then an indexable condition on
-- (owner, fts) or (owner, cjk). Dynamic SQL, so every call is planned for its own words.
-- mode: 'words' (q_words, ranked), 'cjk' (q_cjk, ranked), 'like' (either, by time: the
-- LIKE scan's order).
CREATE FUNCTION hermes.search(
    q_words text, q_cjk text, mode text, scope text, roles text[], exclude_sources text[],
    sort text, lim integer)
RETURNS TABLE (home_id uuid, id bigint, session_id text, role text, source text,
               model text, session_started double precision, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    owners text[] := hermes.visible_owners(scope);
    matched text;
    ranked text;
    ordered text;
BEGIN
    IF mode = 'like' THEN
        matched := '(coalesce(m.fts @@ to_tsquery(''simple'', $2), false)
                     OR coalesce(m.cjk @@ to_tsquery(''simple'', $3), false))';
        ranked := '0::real';
        ordered := 'm."timestamp" DESC, m.home_id, m.id';
    ELSE
        IF mode = 'cjk' THEN
            matched := 'm.cjk @@ to_tsquery(''simple'', $3)';
            ranked := 'ts_rank_cd(m.cjk, to_tsquery(''simple'', $3), 1)';
        ELSE
            matched := 'm.fts @@ to_tsquery(''simple'', $2)';
            ranked := 'ts_rank_cd(m.fts, to_tsquery(''simple'', $2), 1)';
        END IF;
        ordered := CASE sort
            WHEN 'newest' THEN 'm."timestamp" DESC, rank DESC, m.home_id, m.id'
            WHEN 'oldest' THEN 'm."timestamp" ASC, rank DESC, m.home_id, m.id'
            ELSE 'rank DESC, m.home_id, m.id'
        END;
    END IF;
    -- One owner (the usual `me`): an equality the (owner, fts) index can use.
    RETURN QUERY EXECUTE format(
        'WITH top AS (
             SELECT m.home_id, m.id, m.session_id, m.role, m."timestamp", %s AS rank
             FROM hermes.messages m
             WHERE %s AND %s
               AND (m.active = 1 OR m.compacted = 1)
               AND (cardinality($4) = 0 OR m.role = ANY ($4))
               AND (m.source IS NULL OR NOT (m.source = ANY ($5)))
             ORDER BY %s
             LIMIT $6)
         SELECT m.home_id, m.id, m.session_id, m.role, s.source, s.model, s.started_at, m.rank
         FROM top m
         JOIN hermes.sessions s ON s.home_id = m.home_id AND s.id = m.session_id
         ORDER BY %s',
        ranked,
        CASE WHEN cardinality(owners) = 1 THEN 'm.owner = ($1)[1]' ELSE 'm.owner = ANY ($1)' END,
        matched, ordered, ordered)
    USING owners, q_words, q_cjk, roles, exclude_sources, lim;
END
$$;

REVOKE ALL ON FUNCTION hermes.search(text, text, text, text, text[], text[], text, integer) FROM PUBLIC;
"#;

/// Version 2: latency (issue 19). Three costs measured per discover on the benchmark
/// corpus, each removed here:
///
/// - GIN's pending list: `fastupdate` keeps up to 4 MB of fresh entries in an unsorted
///   list that every search reads whole (9,000 entries after a first push: +1.9 ms CPU a
///   search, even one that finds nothing) until autovacuum merges it. `push` now calls
///   `hermes.merge_pending()` after its last commit; it owns the indexes, which
///   `gin_clean_pending_list` requires, and only merges, so anyone may call it.
/// - `visible_owners` planned its whole CASE, the team branch too, on every call (0.17 ms,
///   and each read under row-level security calls it once): PL/pgSQL keeps the plans.
/// - The search now also returns the session's title and parent, and whether row-level
///   security would show that session, so the client needs no second statement for them.
///   JIT is off for it: no measured plan reached `jit_above_cost`, but one that did would
///   spend longer compiling than running.
const V2: &str = r#"
CREATE FUNCTION hermes.merge_pending() RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT gin_clean_pending_list('hermes.messages_fts'::regclass);
    SELECT gin_clean_pending_list('hermes.messages_cjk'::regclass);
$$;

CREATE OR REPLACE FUNCTION hermes.visible_owners(scope text DEFAULT NULL) RETURNS text[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF coalesce(scope, current_setting('hermes.scope', true), 'me') = 'team' THEN
        RETURN (SELECT array_agg(DISTINCT o) FROM (
            SELECT unnest(hermes.my_owners()) AS o
            UNION
            SELECT other.owner FROM hermes.team_members mine
            JOIN hermes.team_members other ON other.team = mine.team
            WHERE mine.owner = ANY ((SELECT hermes.my_owners())::text[])
        ) visible);
    END IF;
    RETURN hermes.my_owners();
END
$$;

-- A new result type means a new function: who may call it is kept below.
CREATE TEMP TABLE search_grantees ON COMMIT DROP AS
    SELECT a.grantee FROM pg_proc p, aclexplode(p.proacl) a
    WHERE p.oid = 'hermes.search(text, text, text, text, text[], text[], text, integer)'::regprocedure
      AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner;
DROP FUNCTION hermes.search(text, text, text, text, text[], text[], text, integer);

-- The full-text search: the visible owners computed once, then an indexable condition on
-- (owner, fts) or (owner, cjk). Dynamic SQL, so every call is planned for its own words.
-- mode: 'words' (q_words, ranked), 'cjk' (q_cjk, ranked), 'like' (either, by time: the
-- LIKE scan's order). `shown`: the sessions policy's own rule holds for the session row
-- (title and parent are null when not; a role that bypasses the policy may still read it).
CREATE FUNCTION hermes.search(
    q_words text, q_cjk text, mode text, scope text, roles text[], exclude_sources text[],
    sort text, lim integer)
RETURNS TABLE (home_id uuid, id bigint, session_id text, role text, source text,
               model text, session_started double precision, rank real,
               title text, parent_session_id text, shown boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off AS $$
DECLARE
    owners text[] := hermes.visible_owners(scope);
    homes uuid[] := hermes.my_homes();
    matched text;
    ranked text;
    ordered text;
BEGIN
    IF mode = 'like' THEN
        matched := '(coalesce(m.fts @@ to_tsquery(''simple'', $2), false)
                     OR coalesce(m.cjk @@ to_tsquery(''simple'', $3), false))';
        ranked := '0::real';
        ordered := 'm."timestamp" DESC, m.home_id, m.id';
    ELSE
        IF mode = 'cjk' THEN
            matched := 'm.cjk @@ to_tsquery(''simple'', $3)';
            ranked := 'ts_rank_cd(m.cjk, to_tsquery(''simple'', $3), 1)';
        ELSE
            matched := 'm.fts @@ to_tsquery(''simple'', $2)';
            ranked := 'ts_rank_cd(m.fts, to_tsquery(''simple'', $2), 1)';
        END IF;
        ordered := CASE sort
            WHEN 'newest' THEN 'm."timestamp" DESC, rank DESC, m.home_id, m.id'
            WHEN 'oldest' THEN 'm."timestamp" ASC, rank DESC, m.home_id, m.id'
            ELSE 'rank DESC, m.home_id, m.id'
        END;
    END IF;
    -- The session row: one index probe per ranked row. As a plain join the planner hashed
    -- every session of the store once there were ten homes (3.5 ms of a 12 ms search);
    -- OFFSET 0 keeps the subquery from being flattened into such a join.
    -- One owner (the usual `me`): an equality the (owner, fts) index can use.
    RETURN QUERY EXECUTE format(
        'WITH top AS (
             SELECT m.home_id, m.id, m.session_id, m.role, m."timestamp", %s AS rank
             FROM hermes.messages m
             WHERE %s AND %s
               AND (m.active = 1 OR m.compacted = 1)
               AND (cardinality($4) = 0 OR m.role = ANY ($4))
               AND (m.source IS NULL OR NOT (m.source = ANY ($5)))
             ORDER BY %s
             LIMIT $6)
         SELECT m.home_id, m.id, m.session_id, m.role, s.source, s.model, s.started_at, m.rank,
                CASE WHEN s.shown THEN s.title END, CASE WHEN s.shown THEN s.parent_session_id END,
                s.shown
         FROM top m
         CROSS JOIN LATERAL (
             SELECT s.source, s.model, s.started_at, s.title, s.parent_session_id,
                    coalesce(s.owner = ANY ($1) OR s.home_id = ANY ($7), false) AS shown
             FROM hermes.sessions s
             WHERE s.home_id = m.home_id AND s.id = m.session_id
             OFFSET 0) s
         ORDER BY %s',
        ranked,
        CASE WHEN cardinality(owners) = 1 THEN 'm.owner = ($1)[1]' ELSE 'm.owner = ANY ($1)' END,
        matched, ordered, ordered)
    USING owners, q_words, q_cjk, roles, exclude_sources, lim, homes;
END
$$;

REVOKE ALL ON FUNCTION hermes.search(text, text, text, text, text[], text[], text, integer) FROM PUBLIC;

-- The title match of discover: the newest "<title> #N" continuation (`prefix`, a LIKE
-- pattern on the ASCII-folded title), else the exact title; the caller's home (`mine`)
-- breaks ties. Under row-level security neither LIKE nor translate is leakproof, so the
-- folded-title index went unused and every discover read all visible sessions (2.8 ms
-- with ten homes); here the policy's rule is applied as a plain condition instead.
CREATE FUNCTION hermes.title_match(prefix text, exact text, mine text, scope text)
RETURNS TABLE (home_id uuid, id text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    owners text[] := hermes.visible_owners(scope);
    homes uuid[] := hermes.my_homes();
BEGIN
    RETURN QUERY
    SELECT t.home_id, t.id FROM (
        (SELECT s.home_id, s.id, 0 AS pri FROM hermes.sessions s
         WHERE s.title IS NOT NULL
           AND translate(s.title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE prefix ESCAPE '\'
           AND (s.owner = ANY (owners) OR s.home_id = ANY (homes))
         ORDER BY s.started_at DESC, (s.home_id::text = mine) DESC, s.home_id LIMIT 1)
        UNION ALL
        (SELECT s.home_id, s.id, 1 FROM hermes.sessions s
         WHERE s.title = exact AND (s.owner = ANY (owners) OR s.home_id = ANY (homes))
         ORDER BY (s.home_id::text = mine) DESC, s.home_id LIMIT 1)
    ) t
    ORDER BY t.pri LIMIT 1;
END
$$;

REVOKE ALL ON FUNCTION hermes.title_match(text, text, text, text) FROM PUBLIC;

-- Whoever could search keeps that right, and may match titles too.
DO $$
DECLARE
    g oid;
    f text;
BEGIN
    FOR g IN SELECT grantee FROM search_grantees LOOP
        FOREACH f IN ARRAY ARRAY['hermes.search(text, text, text, text, text[], text[], text, integer)',
                                 'hermes.title_match(text, text, text, text)'] LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', f,
                           CASE WHEN g = 0 THEN 'PUBLIC' ELSE g::regrole::text END);
        END LOOP;
    END LOOP;
END
$$;
"#;

/// What `init` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InitReport {
    pub from_version: i32,
    pub version: i32,
    /// The role given access (`--grant`), if any.
    pub granted: Option<String>,
}

/// The schema version of the store; 0 when it was never created.
pub fn version(client: &mut Client) -> Result<i32> {
    let exists: bool = client
        .query_one(
            "SELECT to_regclass('hermes.schema_version') IS NOT NULL",
            &[],
        )
        .map_err(query("reading the schema version"))?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let row = client
        .query_opt("SELECT max(version) FROM hermes.schema_version", &[])
        .map_err(query("reading the schema version"))?;
    Ok(row.and_then(|r| r.get::<_, Option<i32>>(0)).unwrap_or(0))
}

/// Checks that the store is at the version this build speaks.
pub fn require_current(client: &mut Client) -> Result<()> {
    match version(client)? {
        VERSION => Ok(()),
        0 => Err(Error::Schema("the store has no hermes schema yet".into())),
        v if v > VERSION => Err(Error::Schema(format!(
            "the store is at version {v}, this build knows up to {VERSION}"
        ))),
        v => Err(Error::Schema(format!(
            "the store is at version {v}, this build needs {VERSION}"
        ))),
    }
}

/// Creates or migrates the schema; `grant` gives a role (or PUBLIC) what pushing and
/// searching need. Concurrent inits serialise on an advisory lock.
pub fn init(client: &mut Client, grant: Option<&str>) -> Result<InitReport> {
    init_to(client, grant, VERSION)
}

/// [`init`] up to `version` only: the tests build an older store to migrate.
#[doc(hidden)]
pub fn init_to(client: &mut Client, grant: Option<&str>, version: i32) -> Result<InitReport> {
    let version = version.clamp(1, VERSION);
    let mut tx = client
        .transaction()
        .map_err(query("starting the schema transaction"))?;
    tx.batch_execute(
        "SELECT pg_advisory_xact_lock(hashtext('hermes.schema'));
         CREATE SCHEMA IF NOT EXISTS hermes;
         CREATE TABLE IF NOT EXISTS hermes.schema_version (version integer NOT NULL);",
    )
    .map_err(query("creating the hermes schema"))?;
    let from: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM hermes.schema_version",
            &[],
        )
        .map_err(query("reading the schema version"))?
        .get(0);
    if from > VERSION {
        return Err(Error::Schema(format!(
            "the store is at version {from}, this build knows up to {VERSION}"
        )));
    }
    for (n, step) in STEPS
        .iter()
        .enumerate()
        .take(version as usize)
        .skip(from as usize)
    {
        tx.batch_execute(step)
            .map_err(query(format!("migrating to version {}", n + 1)))?;
    }
    tx.execute("DELETE FROM hermes.schema_version", &[])
        .map_err(query("recording the schema version"))?;
    let version = version.max(from);
    tx.execute(
        "INSERT INTO hermes.schema_version (version) VALUES ($1)",
        &[&version],
    )
    .map_err(query("recording the schema version"))?;
    if let Some(role) = grant {
        let role = if role.eq_ignore_ascii_case("public") {
            "PUBLIC".to_string()
        } else {
            quote_ident(role)
        };
        let title_match = if version >= 2 {
            format!("GRANT EXECUTE ON FUNCTION {TITLE_MATCH} TO {role};")
        } else {
            String::new()
        };
        tx.batch_execute(&format!(
            "GRANT USAGE ON SCHEMA hermes TO {role};
             GRANT SELECT ON hermes.schema_version TO {role};
             GRANT SELECT, INSERT, UPDATE ON hermes.homes TO {role};
             GRANT SELECT, INSERT, UPDATE, DELETE ON hermes.sessions, hermes.messages TO {role};
             GRANT EXECUTE ON FUNCTION {SEARCH} TO {role};
             {title_match}"
        ))
        .map_err(query(format!("granting access to {role}")))?;
    }
    tx.commit().map_err(query("committing the schema"))?;
    Ok(InitReport {
        from_version: from,
        version,
        granted: grant.map(str::to_string),
    })
}

/// An SQL identifier, quoted.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
