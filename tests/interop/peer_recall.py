"""Recall questions for the real Python Hermes (tools/session_search_tool.py, hermes_state).

Commands (HERMES_HOME is set by the caller; each prints one JSON value):
- recall-seed: writes the scenario sessions of reference `recall` §8 (and more: CJK, roles,
  compaction, rewind, a long session, multimodal content, a branch, an archived session, a
  big cron session, a `work` profile) through Python's own API; answers the ids it wrote.
- recall-sanitize: stdin is a JSON list of queries; answers Python's sanitised form of each.
- recall: stdin is {"calls": [{"args": {...}, "current": id-or-null}], "model": bool};
  answers the session_search tool's JSON string for each call, through the tool registry as
  the agent dispatches it. With "model": true, the answers are those of session_search with
  hermes-recall's documented differences from 0.19.0 (docs/decisions.md, "Recall") applied
  to the search underneath: CJK words answered by the bigram index, rewound rows never
  returned by the LIKE scan, other profiles' stores searched. Everything above the search
  (lineages, demotion, windows, bookends, titles, shapes) stays Python's own.

Our own driver: it calls the upstream library and, under "model", swaps in our own model_*
functions for the documented differences; no upstream code here.
"""

import json
import os
import pathlib
import sqlite3
import sys


# ── the seed ───────────────────────────────────────────────────────────────────────────────

T = 1700000000.0


def _fix_start(db, sid, started):
    # create_session stamps time.time(); the scenarios want fixed starts.
    db._conn.execute("UPDATE sessions SET started_at = ? WHERE id = ?", (started, sid))


def _seed(db, prefix=""):
    ids = {}

    def session(name, source, started, **kw):
        sid = f"{prefix}{name}"
        db.create_session(sid, source, **kw)
        _fix_start(db, sid, started)
        ids[name] = sid
        return sid

    def add(sid, role, content, ts, **kw):
        return db.append_message(sid, role, content, timestamp=ts, **kw)

    # Discover: an interactive session, a cron one, hidden sub-agent and tool sessions.
    s = session("s_cli", "cli", T, model="anthropic/claude-sonnet-4")
    add(s, "user", "How do I configure the kubernetes ingress controller?", T + 1)
    add(s, "assistant", "Use an nginx ingress.", T + 2)
    add(s, "assistant", "", T + 3, tool_calls=[{"id": "call_1", "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": "ingress.yaml"})}}])
    add(s, "tool", "ok", T + 4, tool_name="terminal", tool_call_id="call_1")
    add(s, "assistant", "The chat-send handler broke after my-app.config.ts changed; see node.js logs.", T + 5)
    c = session("s_cron", "cron", T + 100)
    for i in range(5):
        add(c, "user", f"kubernetes kubernetes kubernetes ingress report {i}", T + 101 + i)
    sub = session("s_sub", "subagent", T + 200, parent_session_id=s,
                  model_config={"_delegate_from": s})
    add(sub, "user", "kubernetes kubernetes kubernetes kubernetes", T + 201)
    tool = session("s_tool", "tool", T + 300)
    add(tool, "user", "kubernetes kubernetes kubernetes kubernetes kubernetes", T + 301)

    # Lineage: a compressed, titled conversation and an unrelated one.
    root = session("root", "cli", T + 1000, model="openai/gpt-5")
    db.set_session_title(root, "Infra work")
    for i in range(4):
        add(root, "user" if i % 2 == 0 else "assistant", f"terraform modules part {i}", T + 1001 + i)
    db.end_session(root, "compression")
    child = session("child", "cli", T + 1100, parent_session_id=root)
    db.set_session_title(child, "Infra work #2")
    for i in range(4):
        add(child, "user" if i % 2 == 0 else "assistant",
            f"child msg {i} terraform terraform state", T + 1101 + i)
    other = session("other", "telegram", T + 1200)
    add(other, "user", "terraform is great", T + 1201)
    add(other, "assistant", "It is. Deploy it step-by-step.", T + 1202)

    # CJK rows; c7 is rewound.
    cjk = session("cjk", "cli", T + 2000)
    texts = ["我们讨论了数据库的设计和索引优化", "大别山项目的进度很好", "广西桂林漓江旅游攻略",
             "東京の天気は晴れです", "한국어 검색 테스트입니다", "mixed English 数据库 text"]
    for i, text in enumerate(texts):
        add(cjk, "user" if i % 2 == 0 else "assistant", text, T + 2001 + i)
    rewound = add(cjk, "user", "rewound 数据库设计 secret", T + 2010)
    add(cjk, "assistant", "好的，数据库设计已记录", T + 2011)
    db.rewind_to_message(cjk, rewound)
    cjk2 = session("cjk2", "telegram", T + 2100)
    add(cjk2, "user", "下周去广西桂林，帮我安排三天的行程", T + 2101)
    add(cjk2, "assistant", "第一天漓江游船，第二天阳朔骑行，第三天龙脊梯田。数据库不需要。", T + 2102)
    add(cjk2, "user", "Also: is the kubernetes 部署 on the new cluster ready?", T + 2103)

    # Roles: tool output is searched only when asked.
    r = session("roles", "cli", T + 3000)
    add(r, "user", "opening goal message", T + 3001)
    for i in range(12):
        call_id = f"c{i}"
        add(r, "assistant", "", T + 3002 + 2 * i, tool_calls=[{"id": call_id, "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": f"step {i}"})}}])
        out = "found the zebracorn" if i == 6 else f"output {i}"
        add(r, "tool", out, T + 3003 + 2 * i, tool_name="terminal", tool_call_id=call_id)
    add(r, "assistant", "final resolution", T + 3030)

    # A long session for read's head and tail.
    long = session("long", "cli", T + 4000)
    for i in range(35):
        add(long, "user" if i % 2 == 0 else "assistant", f"long {i} quasar", T + 4001 + i)

    # In-place compaction: the old rows stay searchable and scrollable.
    comp = session("compacted", "discord", T + 5000)
    add(comp, "user", "bravo question about postgres pools", T + 5001)
    add(comp, "assistant", "bravo answer: use pgbouncer", T + 5002)
    db.archive_and_compact(comp, [{"role": "assistant", "content": "summary of bravo",
                                   "timestamp": T + 5003}])
    add(comp, "user", "thanks, bravo", T + 5004)

    # Odd content: multimodal, unicode, control characters, an empty and a null message.
    odd = session("odd", "cli", T + 6000, model="x/y")
    add(odd, "user", [{"type": "text", "text": "look at this screenshot of the xylophone"},
                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}], T + 6001)
    add(odd, "assistant", "A xylophone 🎵 with \"quotes\", a back\\slash, a\u2028line and a \x07 bell.", T + 6002)
    add(odd, "user", "", T + 6003)
    add(odd, "assistant", None, T + 6004)
    add(odd, "user", "it's 100% done: a/b #tag (C++) and e-mail me", T + 6005)

    # A branch (listed by browse, a lineage of its own root) and an archived session.
    br = session("branch", "cli", T + 7000, parent_session_id=other,
                 model_config={"_branched_from": other})
    add(br, "user", "branching off the terraform talk", T + 7001)
    arch = session("archived", "cli", T + 7500)
    add(arch, "user", "archived zeppelin notes", T + 7501)
    db.set_session_archived(arch, True)

    # D7: a cron wall of 301 dense rows and one interactive hit ranked below them.
    big = session("cronbig", "cron", T + 8000)
    for i in range(301):
        add(big, "user", "needle needle needle", T + 8001 + i)
    lone = session("lone", "cli", T + 9000)
    add(lone, "user", "needle " + " ".join(f"filler{i}" for i in range(60)), T + 9001)
    return ids


def cmd_seed(args):
    import hermes_state

    home = pathlib.Path(os.environ["HERMES_HOME"])
    db = hermes_state.SessionDB()
    ids = _seed(db)
    db.close()
    # A second profile with its own store.
    work = home / "profiles" / "work"
    work.mkdir(parents=True, exist_ok=True)
    wdb = hermes_state.SessionDB(db_path=work / "state.db")
    sid = "work_only"
    wdb.create_session(sid, "cli")
    _fix_start(wdb, sid, T + 10000)
    wdb.append_message(sid, "user", "the work profile talks about kubernetes quotas", timestamp=T + 10001)
    wdb.append_message(sid, "assistant", "quotas are per namespace", timestamp=T + 10002)
    wdb.close()
    ids["work_only"] = sid
    return ids


# ── the model of our differences ───────────────────────────────────────────────────────────
# Everything named model_* below is OUR code: a Python model of what hermes-recall does where
# docs/decisions.md says it differs from 0.19.0, patched under Hermes's own session_search.
# A comparison against it checks the layers above the search (Hermes's), not the search:
# the search answers of those calls (CJK index, other profiles) are pinned by hand in
# tests/interop_recall.rs instead.

def model_is_cjk(ch):
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x3000 <= cp <= 0x303F or 0x3040 <= cp <= 0x309F or 0x30A0 <= cp <= 0x30FF
            or 0xAC00 <= cp <= 0xD7AF)


def model_letter(ch):
    return model_is_cjk(ch) and ch.isalnum()


def model_is_op(tok):
    return tok.upper() in ("AND", "OR", "NOT")


def model_match_run(word):
    chars = [c for c in word if model_letter(c)]
    if len(chars) == 1:
        return f'"{chars[0]}" *'
    return '"' + " ".join(a + b for a, b in zip(chars, chars[1:])) + '"'


def model_bigram(tokens):
    """Our bigram expression and the words a snippet marks, or None (docs/formats.md)."""
    parts, needles, expect_word, negated = [], [], True, False
    for tok in tokens:
        if model_is_op(tok):
            if expect_word:
                return None
            parts.append(tok.upper())
            negated = tok.upper() == "NOT"
            expect_word = True
            continue
        word = tok.strip('"')
        if not word or not all(model_letter(c) for c in word):
            return None
        parts.append(model_match_run(word))
        if not negated:
            needles.append(word)
        negated, expect_word = False, False
    if expect_word:
        return None
    return " ".join(parts), needles


def model_snippet(text, needles, window=40):
    """Our CJK snippet (docs/formats.md): 40 characters around the first match."""
    marked = [False] * len(text)
    for n in needles:
        for i in range(len(text) - len(n) + 1):
            if text[i:i + len(n)] == n:
                for j in range(i, i + len(n)):
                    marked[j] = True
    if len(text) <= window:
        start, end = 0, len(text)
    elif True not in marked:
        start, end = 0, window
    else:
        first = marked.index(True)
        last = max(i for i in range(first, min(len(text), first + window)) if marked[i])
        start = min(max(first - (window - (last - first + 1)) // 2, 0), len(text) - window)
        end = start + window
    out = "..." if start > 0 else ""
    opened = False
    for i in range(start, end):
        if marked[i] and not opened:
            out += ">>>"
            opened = True
        elif not marked[i] and opened:
            out += "<<<"
            opened = False
        out += text[i]
    if opened:
        out += "<<<"
    if end < len(text):
        out += "..."
    return out


def model_cjk_index_current(conn):
    try:
        watermark = conn.execute(
            "SELECT value FROM messages_fts_cjk_state WHERE key = 'watermark'").fetchone()
        pending = conn.execute("SELECT count(*) FROM messages_fts_cjk_pending").fetchone()[0]
        max_id = conn.execute("SELECT COALESCE(max(id), 0) FROM messages").fetchone()[0]
    except sqlite3.OperationalError:
        return False
    return watermark is not None and watermark[0] == max_id and pending == 0


def model_where(source_filter, exclude_sources, role_filter):
    clauses, params = ["(m.active = 1 OR m.compacted = 1)"], []
    if source_filter is not None:
        clauses.append(f"s.source IN ({','.join('?' for _ in source_filter)})")
        params += list(source_filter)
    if exclude_sources is not None:
        clauses.append(f"s.source NOT IN ({','.join('?' for _ in exclude_sources)})")
        params += list(exclude_sources)
    if role_filter:
        clauses.append(f"m.role IN ({','.join('?' for _ in role_filter)})")
        params += list(role_filter)
    return clauses, params


def model_order(sort):
    sort = sort.strip().lower() if isinstance(sort, str) else None
    return {"newest": "ORDER BY m.timestamp DESC, rank",
            "oldest": "ORDER BY m.timestamp ASC, rank"}.get(sort, "ORDER BY rank")


def model_rows(cursor):
    out = []
    for row in cursor.fetchall():
        d = dict(row)
        d.pop("content", None)
        d["context"] = []
        out.append(d)
    return out


def model_search_messages(original):
    def search(self, query, source_filter=None, exclude_sources=None, role_filter=None,
               limit=20, offset=0, sort=None, include_inactive=False):
        if not query or not query.strip():
            return []
        q = self._sanitize_fts5_query(query)
        if not q or not self._contains_cjk(q):
            return original(self, query, source_filter=source_filter,
                            exclude_sources=exclude_sources, role_filter=role_filter,
                            limit=limit, offset=offset, sort=sort,
                            include_inactive=include_inactive)
        conn = self._conn
        raw = q.strip('"').strip()
        tokens = raw.split()
        where, params = model_where(source_filter, exclude_sources, role_filter)
        bigram = model_bigram(tokens) if model_cjk_index_current(conn) else None
        if bigram is not None:
            expr, needles = bigram
            try:
                cur = conn.execute(
                    f"""SELECT m.id, m.session_id, m.role,
                               COALESCE(m.content, '') || ' ' || COALESCE(m.tool_name, '') || ' '
                                   || COALESCE(m.tool_calls, '') AS fts_text,
                               m.content, m.timestamp, m.tool_name,
                               s.source, s.model, s.started_at AS session_started
                        FROM messages_fts_cjk
                        JOIN messages m ON m.id = messages_fts_cjk.rowid
                        JOIN sessions s ON s.id = m.session_id
                        WHERE messages_fts_cjk MATCH ? AND {' AND '.join(where)}
                        {model_order(sort)} LIMIT ? OFFSET ?""",
                    [expr] + params + [limit, offset])
                rows = model_rows(cur)
                for r in rows:
                    r["snippet"] = model_snippet(r.pop("fts_text"), needles)
                return rows
            except sqlite3.OperationalError:
                pass
        short = any(self._count_cjk(t) < 3 for t in tokens if not model_is_op(t) and self._contains_cjk(t))
        if self._count_cjk(raw) >= 3 and not short and self._trigram_available:
            expr = " ".join(t if model_is_op(t) else '"' + t.replace('"', '""') + '"' for t in tokens)
            try:
                cur = conn.execute(
                    f"""SELECT m.id, m.session_id, m.role,
                               snippet(messages_fts_trigram, 0, '>>>', '<<<', '...', 40) AS snippet,
                               m.content, m.timestamp, m.tool_name,
                               s.source, s.model, s.started_at AS session_started
                        FROM messages_fts_trigram
                        JOIN messages m ON m.id = messages_fts_trigram.rowid
                        JOIN sessions s ON s.id = m.session_id
                        WHERE messages_fts_trigram MATCH ? AND {' AND '.join(where)}
                        {model_order(sort)} LIMIT ? OFFSET ?""",
                    [expr] + params + [limit, offset])
                return model_rows(cur)
            except sqlite3.OperationalError:
                pass
        words = [t for t in tokens if not model_is_op(t)] or [raw]
        clauses, like_params = [], []
        for w in words:
            esc = w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            clauses.append("(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' "
                           "OR m.tool_calls LIKE ? ESCAPE '\\')")
            like_params += [f"%{esc}%"] * 3
        cur = conn.execute(
            f"""SELECT m.id, m.session_id, m.role,
                       substr(m.content, max(1, instr(m.content, ?) - 40), 120) AS snippet,
                       m.content, m.timestamp, m.tool_name,
                       s.source, s.model, s.started_at AS session_started
                FROM messages m JOIN sessions s ON s.id = m.session_id
                WHERE ({' OR '.join(clauses)}) AND {' AND '.join(where)}
                ORDER BY m.timestamp DESC LIMIT ? OFFSET ?""",
            [words[0]] + like_params + params + [limit, offset])
        return model_rows(cur)

    return search


def model_apply():
    import hermes_state
    import tools.session_search_tool as tool

    hermes_state.SessionDB.search_messages = model_search_messages(
        hermes_state.SessionDB.search_messages)
    original = tool._resolve_profile_db

    def model_resolve_profile_db(profile):
        db = original(profile)
        if db is not None:
            # Upstream opens other profiles read-only with full-text search switched off.
            names = {r[0] for r in db._conn.execute("SELECT name FROM sqlite_master")}
            db._fts_enabled = "messages_fts" in names
            db._trigram_available = "messages_fts_trigram" in names
        return db

    tool._resolve_profile_db = model_resolve_profile_db


def cmd_recall(args):
    import hermes_state
    from tools.registry import registry
    import tools.session_search_tool  # noqa: F401  (registers the tool)

    request = json.load(sys.stdin)
    if request.get("model"):
        model_apply()
    db = hermes_state.SessionDB()
    answers = []
    for call in request["calls"]:
        answers.append(registry.dispatch("session_search", call.get("args", {}), db=db,
                                         current_session_id=call.get("current")))
    db.close()
    return answers


def cmd_sanitize(args):
    """stdin: a JSON list of queries; answers `_sanitize_fts5_query` of each."""
    import hermes_state

    return [hermes_state.SessionDB._sanitize_fts5_query(q) for q in json.load(sys.stdin)]


COMMANDS = {
    "recall-seed": cmd_seed,
    "recall": cmd_recall,
    "recall-sanitize": cmd_sanitize,
}
