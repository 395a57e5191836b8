#!/usr/bin/env python3
"""hermes-recall side by side with Python Hermes 0.19.0's session_search, same store, same queries.

    HERMES_LOOP_BIN=target/release .venv-peer/bin/python benches/bench_recall.py [--sessions 2000 --messages 50 --reps 3]

Run by `make bench` (benches/run.sh). One corpus (benches/corpus.py, 2,000 sessions x 50
messages = 100,000 messages by default) is ingested by `hermes-index`; Python and
hermes-recall each read a copy of that store. The 50 queries of the reference benchmark
(reference `recall` §9.1: English words, phrases, AND, operators, sanitiser cases, CJK of
2-5 characters, sorted) go through discover with limit 3, the tool's default:

- Python: `session_search(query=…, sort=…, limit=3, db=db)` in this process, one warm-up
  then --reps timed calls per query, as the reference harness times it;
- hermes-recall, per call: `hermes-recall --batch --timings` answers the same calls (one
  warm-up, then --reps) in one process and reports each call's time, the same boundary as
  Python's;
- hermes-recall, per process: `hermes-recall QUERY` run --reps times per query, start-up,
  opening the store and checking the CJK index included.

Every answer is compared: identical to Python's JSON, or identical to what Python answers
with our documented differences applied (docs/decisions.md, "Recall": the CJK bigram index,
no rewound rows), via tests/interop/peer_recall.py's model. Then browse, scroll and read.
"""

import argparse
import json
import math
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "interop"))
import corpus  # noqa: E402

QUERIES = [
    "kubernetes", "terraform", "postgres", "webhook", "oauth", "nginx", "the", "deadlock", "quasar",
    "xylophone", "zeppelin", "qwertyuiop",
    '"reverse proxy"', '"connection refused"', '"borrow checker"', '"prompt caching"',
    '"daily summary"', '"step-by-step plan"',
    "kubernetes ingress", "terraform state drift", "python asyncio", "git rebase", "redis cache pool",
    "docker OR podman", "postgres OR mysql OR sqlite", "python NOT java", "deploy*", "webhook* retr*",
    "(redis OR memcached) cache",
    "chat-send", "my-app.config.ts", "node.js", "TODO: fix", "P2.2", "read_file",
    "数据", "部署", "天気", "검색", "数据库", "大别山项", "机器学习", "数据库 设计", "广西 OR 桂林",
    "東京の天気", "데이터베이스", "kubernetes 部署",
]
CALLS = [{"query": q} for q in QUERIES] + [
    {"query": "kubernetes", "sort": "newest"},
    {"query": "terraform", "sort": "oldest"},
    {"query": "数据库", "sort": "newest"},
]


def pct(values, p):
    """numpy's default (linear) percentile."""
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def python_route(db, query):
    """Which back end upstream uses for a query (reference `recall` §3.4)."""
    q = db._sanitize_fts5_query(query)
    if not db._contains_cjk(q):
        return "fts"
    raw = q.strip('"').strip()
    toks = [t for t in raw.split() if t.upper() not in {"AND", "OR", "NOT"} and db._contains_cjk(t)]
    if db._count_cjk(raw) >= 3 and all(db._count_cjk(t) >= 3 for t in toks):
        return "trigram"
    return "like"


def our_route(query):
    """Which back end hermes-recall uses (docs/decisions.md)."""
    import hermes_state
    import peer_recall

    q = hermes_state.SessionDB._sanitize_fts5_query(query)
    if not hermes_state.SessionDB._contains_cjk(q):
        return "fts"
    tokens = q.strip('"').strip().split()
    return "bigram" if peer_recall._bigram(tokens) is not None else "upstream"


def time_python(home, calls, reps, limit=3):
    os.environ["HERMES_HOME"] = str(home)
    import hermes_state
    from tools.session_search_tool import session_search

    db = hermes_state.SessionDB(db_path=home / "state.db")
    times, answers = [], []
    for call in calls:
        call = dict({"limit": limit}, **call)
        session_search(db=db, **call)
        samples = []
        for _ in range(reps):
            started = time.perf_counter()
            answer = session_search(db=db, **call)
            samples.append((time.perf_counter() - started) * 1000)
        times.append(samples)
        answers.append(answer)
    routes = [python_route(db, c["query"]) if c.get("query") else "-" for c in calls]
    db.close()
    return times, answers, routes


def other_modes(home):
    """10 browse calls, 20 scrolls (window 10) and 20 reads over the first 20 sessions."""
    import sqlite3

    conn = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    sessions = conn.execute(
        "SELECT session_id, CAST(avg(id) AS INTEGER) FROM messages GROUP BY session_id "
        "ORDER BY session_id LIMIT 20").fetchall()
    conn.close()
    browse = [{"limit": 10} for _ in range(10)]
    scroll = [{"session_id": s, "around_message_id": m, "window": 10} for s, m in sessions]
    read = [{"session_id": s} for s, _ in sessions]
    return {"browse": browse, "scroll": scroll, "read": read}


def python_model(home, calls):
    """Python's answers with our documented differences applied (not timed)."""
    import hermes_state
    import peer_recall
    from tools.session_search_tool import session_search

    saved = hermes_state.SessionDB.search_messages
    peer_recall._apply_model()
    db = hermes_state.SessionDB(db_path=home / "state.db")
    answers = [session_search(db=db, limit=3, **call) for call in calls]
    db.close()
    hermes_state.SessionDB.search_messages = saved
    return answers


def time_ours_batch(binary, home, calls, reps, limit=3):
    lines = []
    for call in calls:
        lines += [dict({"limit": limit}, **call)] * (reps + 1)
    out = subprocess.run(
        [str(binary), "--home", str(home), "--batch", "--timings", "--format", "jsonl"],
        input="".join(json.dumps(c, ensure_ascii=False) + "\n" for c in lines),
        capture_output=True, text=True, check=True)
    seconds = [json.loads(l)["seconds"] * 1000 for l in out.stderr.splitlines()]
    answers = out.stdout.split("\n")
    times = [seconds[i * (reps + 1) + 1:(i + 1) * (reps + 1)] for i in range(len(calls))]
    return times, [answers[i * (reps + 1)] for i in range(len(calls))]


def argv_for(call):
    argv = []
    for key, flag in (("session_id", "--session"), ("around_message_id", "--around"),
                      ("window", "--window"), ("sort", "--sort"), ("limit", "--limit")):
        if key in call:
            argv += [flag, str(call[key])]
    if call.get("query"):
        argv += ["--", call["query"]]
    return argv


def time_ours_process(binary, home, calls, reps):
    times = []
    for call in calls:
        argv = [str(binary), "--home", str(home), "--format", "jsonl"] + argv_for(call)
        subprocess.run(argv, capture_output=True)
        samples = []
        for _ in range(reps):
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True)
            samples.append((time.perf_counter() - started) * 1000)
        times.append(samples)
    return times


def summary(name, samples):
    return f"{name}: p50 {pct(samples, .5):.2f} ms, p95 {pct(samples, .95):.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--messages", type=int, default=50)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="bench-out/bench_recall.json")
    args = ap.parse_args()
    binary_dir = pathlib.Path(os.environ.get("HERMES_LOOP_BIN", "target/release")).resolve()
    recall = binary_dir / "hermes-recall"
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-recall-"))
    try:
        corpus_path = work / "corpus.jsonl"
        with open(corpus_path, "w", encoding="utf-8") as f:
            corpus.write(f, args.sessions, args.messages, 42)
        ours, theirs = work / "ours", work / "python"
        ours.mkdir()
        subprocess.run([str(binary_dir / "hermes-index"), "--home", str(ours), "-q", "ingest",
                        str(corpus_path)], check=True, capture_output=True)
        theirs.mkdir()
        shutil.copy(ours / "state.db", theirs / "state.db")
        n = args.sessions * args.messages
        print(f"corpus: {args.sessions} sessions x {args.messages} messages = {n:,} messages")

        py_times, py_answers, py_routes = time_python(theirs, CALLS, args.reps)
        model_answers = python_model(theirs, CALLS)
        batch_times, our_answers = time_ours_batch(recall, ours, CALLS, args.reps)
        proc_times = time_ours_process(recall, ours, CALLS, args.reps)

        rows, verdicts = [], []
        for i, call in enumerate(CALLS):
            if our_answers[i] == py_answers[i]:
                verdict = "same"
            elif our_answers[i] == model_answers[i]:
                verdict = "as documented"
            else:
                verdict = "DIFFERENT"
            verdicts.append(verdict)
            rows.append({
                "query": call["query"], "sort": call.get("sort", ""),
                "python_route": py_routes[i], "our_route": our_route(call["query"]),
                "python_ms": statistics.median(py_times[i]),
                "ours_call_ms": statistics.median(batch_times[i]),
                "ours_process_ms": statistics.median(proc_times[i]),
                "answer": verdict,
            })
        print(f"\n| # | query | sort | upstream route | our route | Python ms | hermes-recall ms (call) | (process) | answer |")
        print("|---|---|---|---|---|---|---|---|---|")
        for i, r in enumerate(rows, 1):
            print(f"| {i} | `{r['query']}` | {r['sort']} | {r['python_route']} | {r['our_route']} | "
                  f"{r['python_ms']:.1f} | {r['ours_call_ms']:.2f} | {r['ours_process_ms']:.1f} | {r['answer']} |")

        all_py = [x for t in py_times for x in t]
        all_call = [x for t in batch_times for x in t]
        all_proc = [x for t in proc_times for x in t]
        print()
        print(summary("Python session_search        ", all_py))
        print(summary("hermes-recall, per call      ", all_call))
        print(summary("hermes-recall, whole process ", all_proc))
        print(f"speed-up at p50: {pct(all_py, .5) / pct(all_call, .5):.1f}x per call, "
              f"{pct(all_py, .5) / pct(all_proc, .5):.1f}x per process; at p95: "
              f"{pct(all_py, .95) / pct(all_call, .95):.1f}x per call")
        for route in ("fts", "trigram", "like"):
            idx = [i for i, r in enumerate(py_routes) if r == route]
            if idx:
                print(f"  upstream route {route:8} ({len(idx)} queries): "
                      f"Python p50 {pct([x for i in idx for x in py_times[i]], .5):.1f} ms, "
                      f"ours p50 {pct([x for i in idx for x in batch_times[i]], .5):.2f} ms")
        same = verdicts.count("same")
        documented = verdicts.count("as documented")
        different = verdicts.count("DIFFERENT")
        print(f"answers: {same} identical to Python's, {documented} as documented, {different} different")

        print("\nother modes (Python in-process, hermes-recall per call; answers compared):")
        modes = {}
        for mode, calls in other_modes(ours).items():
            py_t, py_a, _ = time_python(theirs, calls, args.reps, limit=10)
            our_t, our_a = time_ours_batch(recall, ours, calls, args.reps, limit=10)
            same_mode = sum(a == b for a, b in zip(py_a, our_a))
            py_all = [x for t in py_t for x in t]
            our_all = [x for t in our_t for x in t]
            modes[mode] = {"python": {"p50": pct(py_all, .5), "p95": pct(py_all, .95)},
                           "ours_call": {"p50": pct(our_all, .5), "p95": pct(our_all, .95)},
                           "same": same_mode, "calls": len(calls)}
            print(f"  {mode:7} ({len(calls)} calls): Python p50 {pct(py_all, .5):.2f} / p95 "
                  f"{pct(py_all, .95):.2f} ms; hermes-recall p50 {pct(our_all, .5):.2f} / p95 "
                  f"{pct(our_all, .95):.2f} ms; {same_mode}/{len(calls)} answers identical")
            if same_mode != len(calls):
                different += 1

        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({"sessions": args.sessions, "messages": args.messages, "reps": args.reps,
                       "rows": rows,
                       "python": {"p50": pct(all_py, .5), "p95": pct(all_py, .95)},
                       "ours_call": {"p50": pct(all_call, .5), "p95": pct(all_call, .95)},
                       "ours_process": {"p50": pct(all_proc, .5), "p95": pct(all_proc, .95)},
                       "answers": {"same": same, "documented": documented, "different": different},
                       "modes": modes},
                      f, indent=2, ensure_ascii=False)
        if different:
            sys.exit(1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
