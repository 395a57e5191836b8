#!/usr/bin/env python3
"""A deterministic corpus of Hermes sessions, for benchmarks and interop tests.

    python3 benches/corpus.py --sessions 2000 --messages 50 [--seed 42] [--shape export|messages] > corpus.jsonl

Every run with the same arguments writes the same bytes (stdlib only; `random.Random(seed)`
is stable across Python 3 versions). Lines are in the shape `hermes sessions export` writes
(one session object with its `messages`, parents before children), which both
`hermes-index ingest` and Python's `SessionDB.import_sessions` read; `--shape messages`
writes one message per line instead, with `session_*` fields (the reference benchmark's
dump shape).

What it holds (reference `recall` §9.1, at 2,000 × 50):
- sources: ~19% cron, ~2.5% subagent (`_delegate_from` a recent interactive root), ~1.3%
  tool, the rest interactive (cli 6 : telegram 2 : discord 1 : tui 1);
- compression lineages: ~8% of interactive conversations span 2-3 sessions (parent
  `end_reason='compression'`, titled chains `"T #2"`, `"T #3"`); ~30% of roots titled;
- each session exactly `--messages` rows with increasing timestamps from 2023-11-14;
- content: English prose over 20 tech topics and 10 projects (with `chat-send`,
  `my-app.config.ts`, `node.js backend`, `P2.2 milestone`), code blocks in ~15% of assistant
  replies, ~10% CJK rows (zh 60%, ja 20%, ko 20%), ~20% tool rows (assistant `tool_calls` +
  `tool` output), marker words quasar (1%), xylophone (0.1%), zeppelin (0.01%);
- row states: ~3% of sessions have their first 2/3 compacted (`active=0, compacted=1`),
  ~2% are rewound at a late user turn (`active=0` from there on).

Importable: `generate(sessions, messages, seed)` yields the session dicts, `write(...)`
writes them; the hermes-recall benchmark reuses both.
"""

import argparse
import datetime
import json
import random
import sys

BASE_TS = 1699920000.0  # 2023-11-14T00:00:00Z

TOPICS = [
    ("kubernetes", "How do I configure the kubernetes ingress controller for {p}?",
     "The kubernetes deployment for {p} needs a readiness probe and a rolling update strategy."),
    ("terraform", "Our terraform state drifted again after the {p} change.",
     "Run terraform plan first; the state lock shows who touched {p} last."),
    ("postgres", "The postgres connection pool for {p} keeps timing out.",
     "Raise max_connections carefully and put pgbouncer in front of postgres for {p}."),
    ("webhook", "The webhook from the payment provider is not reaching {p}.",
     "Log the raw webhook body and verify the signature before {p} retries it."),
    ("oauth", "Users of {p} get logged out when the oauth token expires.",
     "Refresh the oauth token before expiry and store the refresh token securely for {p}."),
    ("nginx", "nginx returns 502 for {p} behind the reverse proxy.",
     "Check the upstream in nginx; the reverse proxy for {p} points at the wrong port."),
    ("deadlock", "We hit a deadlock in the job queue of {p}.",
     "Take the locks in a fixed order; the deadlock in {p} comes from two workers."),
    ("redis", "Should {p} use redis as a cache pool?",
     "A redis cache pool in front of the database makes {p} much faster."),
    ("docker", "The docker image for {p} is 2 GB.",
     "Use a multi-stage docker build; podman works the same way for {p}."),
    ("python", "Is python asyncio a good fit for {p}?",
     "python asyncio suits the IO-bound parts of {p}; keep CPU work in a process pool."),
    ("rust", "The borrow checker rejects my refactor of {p}.",
     "The borrow checker wants the mutable borrow to end before {p} reads the map again."),
    ("git", "How do I git rebase the {p} branch onto main?",
     "git rebase main, fix the conflicts, then force-push the {p} branch with lease."),
    ("caching", "Can we use prompt caching to cut the cost of {p}?",
     "prompt caching keeps the system prompt stable, which saves about half the tokens of {p}."),
    ("connection", "connection refused when {p} talks to the database.",
     "connection refused means nothing listens on that port; start the service for {p} first."),
    ("planning", "Give me a step-by-step plan for the {p} migration.",
     "Here is a step-by-step plan: freeze writes, copy data, switch {p}, verify, unfreeze."),
    ("deploy", "The deploy of {p} failed on the staging cluster.",
     "The deployment of {p} failed because the secret was missing; deploying again now."),
    ("retry", "Webhook retries hammer {p} after an outage.",
     "Add exponential backoff to the retries and make {p} idempotent."),
    ("memcached", "Compare memcached and redis for {p}.",
     "memcached is simpler, redis has persistence; {p} needs the cache to survive restarts."),
    ("mysql", "Should {p} move from mysql to postgres or sqlite?",
     "sqlite is enough for {p} on one machine; postgres if many writers share it."),
    ("java", "Rewrite the {p} service in java or keep python?",
     "Keep python for {p}; java brings nothing the team needs right now."),
]

PROJECTS = [
    "chat-send", "my-app.config.ts", "the node.js backend", "the P2.2 milestone",
    "hermes-loop", "billing-api", "infra-terraform", "the mobile app", "data-pipeline",
    "search-service",
]

FILLER = [
    "Let me know if anything is unclear.", "I checked the logs again.",
    "This is blocking the release.", "The tests pass locally.", "I read the docs twice.",
    "It worked yesterday.", "We should write this down.", "See the ticket for details.",
]

CODE = [
    ("python", "import asyncio\n\nasync def main():\n    await asyncio.sleep(1)\n\nasyncio.run(main())"),
    ("bash", "kubectl rollout status deploy/web\nterraform plan -out plan.bin"),
    ("rust", "fn main() {\n    let v: Vec<u32> = (1..10).collect();\n    println!(\"{:?}\", v);\n}"),
    ("ts", "export const config = { retries: 3, backoffMs: 250 };"),
]

ZH = [
    "我们讨论了数据库的设计和索引优化", "大别山项目的进度很好", "广西桂林漓江旅游攻略",
    "部署到生产环境之前先测试", "机器学习模型的训练数据不够", "数据分析的结果很有意思",
    "服务器的性能问题已经解决", "这个方案需要重新设计", "缓存和数据库的一致性问题",
    "下周在桂林开会讨论部署计划",
]
JA = [
    "東京の天気は晴れです", "データベースの設定を確認しました", "検索の結果が正しくない",
    "明日の天気はどうですか", "デプロイは成功しました",
]
KO = [
    "한국어 검색 테스트입니다", "데이터베이스 설계를 다시 검토합니다", "검색 엔진 성능이 좋아졌어요",
    "배포가 끝났습니다", "데이터 분석 결과를 공유합니다",
]

TOOLS = [
    ("terminal", lambda r, p: {"command": r.choice(["ls -la", "git status", "kubectl get pods", "make test"])},
     lambda r, p: r.choice(["ok", "3 pods running", "On branch main\nnothing to commit", "PASS 42 tests"])),
    ("read_file", lambda r, p: {"path": r.choice(["README.md", "src/main.rs", "config/app.yaml"])},
     lambda r, p: f"# {p}\nversion: 2\nretries: 3"),
    ("web_search", lambda r, p: {"query": f"{p} best practices"},
     lambda r, p: f"1. {p}: best practices for production\n2. A guide to {p}"),
    ("write_file", lambda r, p: {"path": "notes.md", "content": f"notes about {p}"},
     lambda r, p: "wrote 1 file"),
]

PLATFORMS = ["cli"] * 6 + ["telegram"] * 2 + ["discord", "tui"]
MODELS = ["anthropic/claude-sonnet-4", "openai/gpt-5", "qwen/qwen3-coder", "google/gemini-2.5-pro"]
CLOSE_REASONS = {"cli": "cli_close", "tui": "tui_close", "telegram": "session_reset",
                 "discord": "idle_timeout", "cron": "cron_complete", "subagent": "agent_close",
                 "tool": "agent_close"}


def _stamp(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y%m%d_%H%M%S")


def _markers(r):
    words = []
    if r.random() < 0.01:
        words.append("quasar")
    if r.random() < 0.001:
        words.append("xylophone")
    if r.random() < 0.0001:
        words.append("zeppelin")
    return (" " + " ".join(words)) if words else ""


def _cjk(r):
    x = r.random()
    if x < 0.6:
        return r.choice(ZH) + ("，" + r.choice(ZH) if r.random() < 0.4 else "")
    if x < 0.8:
        return r.choice(JA) + ("。" + r.choice(JA) if r.random() < 0.4 else "")
    return r.choice(KO) + (" " + r.choice(KO) if r.random() < 0.4 else "")


def _text(r, topic, project, role, cron):
    if r.random() < 0.10:
        text = _cjk(r)
        if r.random() < 0.2:
            text = f"{topic[0]} {text}"
        return text + _markers(r)
    if cron:
        text = r.choice([f"Run the daily summary for {project}.",
                         f"daily summary: {project} had 3 deploys and 1 incident.",
                         f"Nightly check of {project}: {topic[0]} is healthy."])
    else:
        text = (topic[1] if role == "user" else topic[2]).format(p=project)
    if r.random() < 0.5:
        text += " " + r.choice(FILLER)
    if role == "assistant" and r.random() < 0.15:
        lang, code = r.choice(CODE)
        text += f"\n\n```{lang}\n{code}\n```"
    return text + _markers(r)


def _messages(r, count, start, cron, counter):
    """Exactly `count` rows of user/assistant turns, about a fifth of them tool rows."""
    rows = []
    ts = start
    topic = r.choice(TOPICS)
    project = r.choice(PROJECTS)
    tool_calls = 0

    def add(**row):
        nonlocal ts
        ts += r.uniform(5.0, 120.0)
        row["timestamp"] = round(ts, 6)
        rows.append(row)

    while len(rows) < count:
        if r.random() < 0.2:
            topic = r.choice(TOPICS)
        add(role="user", content=_text(r, topic, project, "user", cron))
        if len(rows) < count and r.random() < 0.25:
            name, args, output = r.choice(TOOLS)
            counter[0] += 1
            call_id = f"call_{counter[0]:08x}"
            add(role="assistant", content="", tool_calls=[{
                "id": call_id, "type": "function",
                "function": {"name": name, "arguments": json.dumps(args(r, project))},
            }])
            tool_calls += 1
            if len(rows) < count:
                add(role="tool", content=output(r, project), tool_name=name, tool_call_id=call_id)
        if len(rows) < count:
            add(role="assistant", content=_text(r, topic, project, "assistant", cron))
    for row in rows:
        row.setdefault("tool_calls", None)
        row.setdefault("tool_name", None)
        row.setdefault("tool_call_id", None)
        row["active"] = 1
        row["compacted"] = 0
    return rows, tool_calls, ts


def _states(r, rows):
    """Compacts the first two thirds (3%) or rewinds from a late user turn (2%)."""
    x = r.random()
    if x < 0.03:
        for row in rows[: (2 * len(rows)) // 3]:
            row["active"] = 0
            row["compacted"] = 1
    elif x < 0.05:
        users = [i for i, row in enumerate(rows) if row["role"] == "user" and i >= len(rows) // 2]
        if users:
            for row in rows[r.choice(users):]:
                row["active"] = 0


def generate(sessions=2000, messages=50, seed=42):
    """Yields `sessions` session dicts (export shape), parents before children."""
    r = random.Random(seed)
    counter = [0]
    titles = 0
    roots = []
    made = 0
    clock = BASE_TS
    while made < sessions:
        clock += r.uniform(600.0, 3000.0)
        x = r.random()
        if x < 0.19:
            kind = "cron"
        elif x < 0.215 and roots:
            kind = "subagent"
        elif x < 0.228:
            kind = "tool"
        else:
            kind = r.choice(PLATFORMS)
        chain = 1
        if kind in PLATFORMS and r.random() < 0.08:
            chain = min(r.choice([2, 2, 3]), sessions - made)
        title = None
        if kind in PLATFORMS and r.random() < 0.30:
            titles += 1
            title = f"{r.choice(TOPICS)[0].capitalize()} notes {titles}"
        parent = None
        model = r.choice(MODELS)
        for link in range(chain):
            start = clock
            if kind == "cron":
                sid = f"cron_{r.getrandbits(32):08x}_{_stamp(start)}"
            else:
                sid = f"{_stamp(start)}_{r.getrandbits(24):06x}"
            rows, calls, last = _messages(r, messages, start, kind == "cron", counter)
            _states(r, rows)
            model_config = None
            session_parent = parent
            if kind == "subagent":
                session_parent = r.choice(roots[-20:])
                model_config = json.dumps({"_delegate_from": session_parent})
            end_reason = "compression" if link < chain - 1 else CLOSE_REASONS.get(kind, "cli_close")
            yield {
                "id": sid,
                "source": kind,
                "model": model,
                "model_config": model_config,
                "parent_session_id": session_parent,
                "started_at": round(start, 6),
                "ended_at": round(last + 1.0, 6),
                "end_reason": end_reason,
                "title": (title if link == 0 else f"{title} #{link + 1}") if title else None,
                "message_count": len(rows),
                "tool_call_count": calls,
                "messages": rows,
            }
            made += 1
            if link == 0 and kind in PLATFORMS:
                roots.append(sid)
            parent = sid
            clock = last + r.uniform(5.0, 60.0)


def message_lines(session):
    """The session as one line per message (the reference dump shape)."""
    for seq, row in enumerate(session["messages"], 1):
        line = {f"session_{k}": session[k] for k in
                ("id", "source", "parent_session_id", "model", "model_config", "title",
                 "started_at", "ended_at", "end_reason")}
        line["session_id"] = line.pop("session_id")
        line["seq"] = seq
        line.update(row)
        yield line


def write(out, sessions=2000, messages=50, seed=42, shape="export"):
    for session in generate(sessions, messages, seed):
        lines = [session] if shape == "export" else message_lines(session)
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False))
            out.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--messages", type=int, default=50)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--shape", choices=["export", "messages"], default="export")
    ap.add_argument("--out", help="output file (default stdout)")
    args = ap.parse_args(argv)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            write(f, args.sessions, args.messages, args.seed, args.shape)
    else:
        write(sys.stdout, args.sessions, args.messages, args.seed, args.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
