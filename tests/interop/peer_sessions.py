"""Session-store questions for the real Python Hermes (hermes_state, session_search).

Commands (HERMES_HOME is set by the caller; each prints one JSON value):
- sessions-master: sqlite_master of $HERMES_HOME/state.db read with plain sqlite3, plus
  schema_version and journal_mode (without opening SessionDB, which would migrate);
- sessions-open: opens SessionDB() (creating or migrating the file) and closes it;
- sessions-write: writes a set of sessions through Python's own API (titles, tool calls,
  multimodal and unusual content, a compression child, compaction, rewind, a sub-agent, an
  archived session); answers the ids it wrote;
- sessions-export [ARGS...]: runs `hermes sessions export - ARGS` and answers its lines;
- sessions-import-corpus PATH: import_sessions in chunks within its caps, then the
  active/compacted flags the import resets (what the benchmark does);
- sessions-search: stdin is a JSON list of {query, sort?, role_filter?, limit?}; answers
  search_messages rows and the session_search tool's JSON for each;
- sessions-append: Python writes after hermes-index indexed the file: appends (CJK and
  not), replace_messages, archive_and_compact, rewind and delete_session.

Our own driver: it calls the upstream library's public functions; no upstream code here.
"""

import json
import os
import pathlib
import sqlite3
import subprocess
import sys


def _db_path():
    return pathlib.Path(os.environ["HERMES_HOME"]) / "state.db"


def cmd_master(args):
    conn = sqlite3.connect(f"file:{_db_path()}?mode=ro", uri=True)
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    version = conn.execute("SELECT version FROM schema_version").fetchall()
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    conn.close()
    return {"objects": [list(r) for r in rows], "schema_version": [v[0] for v in version],
            "journal_mode": mode}


def cmd_open(args):
    import hermes_state

    db = hermes_state.SessionDB()
    db.close()
    return {"ok": True}


def cmd_write(args):
    import hermes_state

    db = hermes_state.SessionDB()
    t = 1700000000.0
    s1, s2, s3, s4, s5 = ("20231114_221320_aaaaaa", "20231114_222000_bbbbbb",
                          "cron_deadbeef_20231114_230000", "20231114_223000_cccccc",
                          "20231114_224000_dddddd")
    db.create_session(s1, "cli", model="anthropic/claude-sonnet-4",
                      model_config={"temperature": 0.2, "note": "naïve ☃"}, cwd="/work/app")
    db.set_session_title(s1, "Infra work")
    db.append_message(s1, "user", "How do I configure the kubernetes ingress controller?", timestamp=t + 1)
    db.append_message(s1, "assistant", "", timestamp=t + 2.5, tool_calls=[
        {"id": "call_1", "type": "function",
         "function": {"name": "terminal", "arguments": json.dumps({"command": "kubectl get pods -n 数据"})}}])
    db.append_message(s1, "tool", "3 pods running\n\tdone", tool_name="terminal", tool_call_id="call_1",
                      timestamp=t + 3.25)
    db.append_message(s1, "assistant", "Use an nginx ingress. \"quoted\" \\ back\u2028slash 🚀",
                      timestamp=t + 4, token_count=12, finish_reason="stop", reasoning="thinking…",
                      reasoning_details=[{"type": "summary", "text": "ok"}], platform_message_id="p-1",
                      observed=True, api_content="Use an nginx ingress (api).")
    db.update_token_counts(s1, input_tokens=120, output_tokens=40, model="anthropic/claude-sonnet-4",
                           estimated_cost_usd=0.00123, api_call_count=2)
    db.end_session(s1, "compression")

    db.create_session(s2, "cli", model="anthropic/claude-sonnet-4", parent_session_id=s1)
    db.set_session_title(s2, "Infra work #2")
    db.append_message(s2, "user", "广西桂林漓江旅游攻略", timestamp=t + 401)
    db.append_message(s2, "assistant", [{"type": "text", "text": "我们讨论了数据库的设计"},
                                        {"type": "image_url", "image_url": {"url": "data:x"}}],
                      timestamp=t + 402)
    db.archive_and_compact(s2, [{"role": "assistant", "content": "Summary: 广西 travel and a database.",
                                 "timestamp": t + 403}])
    db.append_message(s2, "user", "東京の天気は晴れです", timestamp=t + 404)
    target = db.append_message(s2, "user", "never mind that", timestamp=t + 405)
    db.append_message(s2, "assistant", "ok", timestamp=t + 406)
    db.rewind_to_message(s2, target)

    db.create_session(s3, "cron", model_config={"job": "daily"})
    db.append_message(s3, "user", "Run the daily summary for chat-send.", timestamp=t + 2801)
    db.append_message(s3, "assistant", "daily summary: 3 deploys. 한국어 검색 테스트입니다", timestamp=t + 2802)
    db.end_session(s3, "cron_complete")

    db.create_session(s4, "subagent", parent_session_id=s1, model_config={"_delegate_from": s1})
    db.append_message(s4, "user", "subtask: list pods", timestamp=t + 10)

    db.create_session(s5, "telegram", user_id="u1", chat_id="c1")
    db.append_message(s5, "user", "", timestamp=t + 50)
    db.append_message(s5, "user", None, timestamp=t + 51)
    db.set_session_archived(s5, True)
    db.close()
    return {"sessions": [s1, s2, s3, s4, s5]}


def cmd_export(args):
    hermes = pathlib.Path(sys.executable).with_name("hermes")
    out = subprocess.run([str(hermes), "sessions", "export", "-", *args], capture_output=True,
                         env=dict(os.environ), check=True)
    # split("\n"), not splitlines(): content may hold U+2028, which is not a line end here.
    return {"lines": out.stdout.decode("utf-8").split("\n")[:-1]}


def cmd_import_corpus(args):
    import hermes_state

    sessions = [json.loads(line) for line in open(args[0], encoding="utf-8")]
    db = hermes_state.SessionDB()
    chunk, msgs = [], 0
    imported = 0

    def flush(chunk):
        result = db.import_sessions(chunk)
        assert result["ok"], result["errors"][:3]
        return result["imported"]

    for s in sessions:
        if chunk and (len(chunk) >= 500 or msgs + len(s["messages"]) > 50000):
            imported += flush(chunk)
            chunk, msgs = [], 0
        chunk.append(s)
        msgs += len(s["messages"])
    if chunk:
        imported += flush(chunk)
    conn = db._conn
    conn.execute("BEGIN IMMEDIATE")
    for s in sessions:
        for i, m in enumerate(s["messages"]):
            if m.get("active", 1) != 1 or m.get("compacted", 0) != 0:
                conn.execute(
                    "UPDATE messages SET active = ?, compacted = ? WHERE id = "
                    "(SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT 1 OFFSET ?)",
                    (m.get("active", 1), m.get("compacted", 0), s["id"], i))
    conn.execute("COMMIT")
    db.close()
    return {"imported": imported}


def cmd_search(args):
    import hermes_state
    from tools.session_search_tool import session_search

    queries = json.load(sys.stdin)
    db = hermes_state.SessionDB()
    answers = []
    for q in queries:
        roles = q.get("role_filter")
        rows = db.search_messages(
            q["query"], role_filter=roles.split(",") if roles else None, limit=q.get("limit", 20),
            sort=q.get("sort"))
        tool = json.loads(session_search(query=q["query"], role_filter=roles, limit=q.get("limit", 3),
                                         sort=q.get("sort"), db=db))
        answers.append({"search_messages": rows, "session_search": tool})
    db.close()
    return answers


def cmd_append(args):
    import hermes_state

    db = hermes_state.SessionDB()
    first, second = args[0], args[1]
    t = 1800000000.0
    appended = [
        db.append_message(first, "user", "新的问题：广西的天气怎么样", timestamp=t + 1),
        db.append_message(first, "assistant", "plain English answer", timestamp=t + 2),
        db.append_message(first, "assistant", "", timestamp=t + 3, tool_calls=[
            {"id": "c", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]),
        db.append_message(first, "tool", "検索結果：東京", tool_name="web_search", tool_call_id="c",
                          timestamp=t + 4),
    ]
    # A rewrite (delete + insert), a compaction (flags only) and a deletion.
    db.replace_messages(second, [{"role": "user", "content": "重写的对话 about 桂林", "timestamp": t + 10},
                                 {"role": "assistant", "content": "rewritten", "timestamp": t + 11}])
    db.archive_and_compact(first, [{"role": "assistant", "content": "总结：广西", "timestamp": t + 20}])
    victims = args[2:]
    for sid in victims:
        db.delete_session(sid)
    db.close()
    return {"appended": appended}


COMMANDS = {
    "sessions-master": cmd_master,
    "sessions-open": cmd_open,
    "sessions-write": cmd_write,
    "sessions-export": cmd_export,
    "sessions-import-corpus": cmd_import_corpus,
    "sessions-search": cmd_search,
    "sessions-append": cmd_append,
}
