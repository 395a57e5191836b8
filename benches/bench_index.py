#!/usr/bin/env python3
"""hermes-index side by side with Python Hermes 0.19.0 on the same corpus.

    HERMES_LOOP_BIN=target/release .venv-peer/bin/python benches/bench_index.py [--sessions 2000 --messages 50 --reps 3]

Run by `make bench` (benches/run.sh). Measures, on one generated corpus (benches/corpus.py):
- upstream bulk import: `SessionDB.import_sessions` in chunks within its caps;
- upstream repopulate of both FTS tables from `messages` (`_rebuild_fts_indexes`);
- `hermes-index ingest` (all indexes maintained, CJK included), as a process;
- a bare FTS5 `rebuild` of both upstream tables on our database, in the same run: the
  physical limit the goals are stated against (ingest <= 1.5x, rebuild <= 1.2x of it),
  timed with Python's sqlite3 (as upstream runs it) and with our bundled, newer SQLite
  (benches/bare_fts5_rebuild.rs), which rebuilds faster;
- `hermes-index rebuild` (both upstream tables and the CJK index);
and checks that both databases hold the same rows. Timed steps alternate between the two
sides and report the median of --reps runs, so a busy machine weighs on both alike.
"""

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402


def ours(args_bin, home, *argv, stdin=None):
    started = time.perf_counter()
    out = subprocess.run(
        [str(args_bin / "hermes-index"), "--home", str(home), "--format", "json", *argv],
        check=True, capture_output=True, stdin=stdin,
    )
    return time.perf_counter() - started, json.loads(out.stdout or b"null")


def bare_rebuild_ours(example, db_path):
    """The same bare rebuild with the SQLite hermes-loop bundles (timed inside the process)."""
    out = subprocess.run([str(example), str(db_path)], check=True, capture_output=True)
    return float(out.stdout.decode().strip())


def build_example(binary):
    """target/release/examples/bare-fts5-rebuild, built on first use."""
    example = binary / "examples" / "bare-fts5-rebuild"
    if not example.exists():
        subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "bare-fts5-rebuild"],
                       check=True, cwd=HERE.parent)
    return example


def bare_rebuild(db_path):
    conn = sqlite3.connect(db_path, isolation_level=None)
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    for table in ("messages_fts", "messages_fts_trigram"):
        conn.execute(f"INSERT INTO {table}({table}) VALUES('rebuild')")
    conn.execute("COMMIT")
    took = time.perf_counter() - started
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return took


def python_import(home, sessions):
    """Upstream's bulk import: import_sessions in chunks within its caps (500 sessions,
    50,000 messages, 25 MiB per call), then the flags import resets (active/compacted)."""
    os.environ["HERMES_HOME"] = str(home)
    code = r'''
import json, sys, time
import hermes_state
sessions = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
db = hermes_state.SessionDB()
chunks, chunk, msgs, size = [], [], 0, 0
for s in sessions:
    n = len(s["messages"]); b = len(json.dumps(s, ensure_ascii=False, separators=(",", ":")).encode())
    if chunk and (len(chunk) >= 500 or msgs + n > 50000 or size + b > 25 * 1024 * 1024 - 1024):
        chunks.append(chunk); chunk, msgs, size = [], 0, 0
    chunk.append(s); msgs += n; size += b
if chunk:
    chunks.append(chunk)
started = time.perf_counter()
for c in chunks:
    r = db.import_sessions(c)
    assert r["ok"], r["errors"][:3]
took = time.perf_counter() - started
# import_sessions stores every row active; restore the corpus's compacted/rewound flags.
flags = [(m["active"], m["compacted"], s["id"], i) for s in sessions for i, m in enumerate(s["messages"]) if m["active"] != 1 or m["compacted"] != 0]
conn = db._conn
conn.execute("BEGIN IMMEDIATE")
for active, compacted, sid, i in flags:
    conn.execute("UPDATE messages SET active = ?, compacted = ? WHERE id = (SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT 1 OFFSET ?)", (active, compacted, sid, i))
conn.execute("COMMIT")
started2 = time.perf_counter()
conn.execute("BEGIN IMMEDIATE")
hermes_state.SessionDB._rebuild_fts_indexes(conn.cursor())
conn.execute("COMMIT")
repopulate = time.perf_counter() - started2
db.close()
print(json.dumps({"import": took, "repopulate": repopulate}))
'''
    out = subprocess.run([sys.executable, "-c", code, str(home / "corpus.jsonl")],
                         check=True, capture_output=True, env=dict(os.environ))
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def row_digest(db_path):
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    h = hashlib.sha256()
    for row in conn.execute(
        "SELECT session_id, role, content, tool_calls, tool_name, tool_call_id, timestamp, active, compacted "
        "FROM messages ORDER BY id"
    ):
        h.update(repr(row).encode())
    for row in conn.execute(
        "SELECT id, source, parent_session_id, model, model_config, title, started_at, ended_at, end_reason, "
        "message_count, tool_call_count FROM sessions ORDER BY id"
    ):
        h.update(repr(row).encode())
    n = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    conn.close()
    return n, h.hexdigest()


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--messages", type=int, default=50)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="bench-out/bench_index.json")
    args = ap.parse_args()
    binary = pathlib.Path(os.environ.get("HERMES_LOOP_BIN", "target/release")).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        corpus_path = work / "corpus.jsonl"
        with open(corpus_path, "w", encoding="utf-8") as f:
            corpus.write(f, args.sessions, args.messages, 42)
        total = args.sessions * args.messages
        print(f"corpus: {args.sessions} sessions x {args.messages} messages = {total} messages, "
              f"{corpus_path.stat().st_size / 1e6:.1f} MB; SQLite: Python {sqlite3.sqlite_version}")

        example = build_example(binary)
        py_import, py_repop, ingest, bare, bare_ours, rebuild = [], [], [], [], [], []
        digests = {}
        for rep in range(args.reps):
            py_home = work / f"py{rep}"
            py_home.mkdir()
            shutil.copy(corpus_path, py_home / "corpus.jsonl")
            r = python_import(py_home, None)
            py_import.append(r["import"])
            py_repop.append(r["repopulate"])
            digests["python"] = row_digest(py_home / "state.db")

            home = work / f"rs{rep}"
            took, summary = ours(binary, home, "ingest", str(corpus_path))
            assert summary["messages"] == total, summary
            ingest.append(took)
            digests["ours"] = row_digest(home / "state.db")
            bare.append(bare_rebuild(home / "state.db"))
            bare_ours.append(bare_rebuild_ours(example, home / "state.db"))
            took, _ = ours(binary, home, "rebuild")
            rebuild.append(took)
            shutil.rmtree(py_home)
            if rep < args.reps - 1:
                shutil.rmtree(home)

        same = digests["python"] == digests["ours"]
        m = {
            "messages": total,
            "python_import_s": median(py_import),
            "python_repopulate_fts_s": median(py_repop),
            "ingest_s": median(ingest),
            "bare_fts5_rebuild_s": median(bare),
            "bare_fts5_rebuild_bundled_s": median(bare_ours),
            "rebuild_s": median(rebuild),
            "same_rows": same,
            "runs": {"python_import": py_import, "python_repopulate": py_repop, "ingest": ingest,
                     "bare": bare, "bare_bundled": bare_ours, "rebuild": rebuild},
        }
        m["python_import_msg_per_s"] = total / m["python_import_s"]
        m["ingest_msg_per_s"] = total / m["ingest_s"]
        m["ingest_speedup_vs_python_import"] = m["python_import_s"] / m["ingest_s"]
        m["ingest_over_bare_rebuild"] = m["ingest_s"] / m["bare_fts5_rebuild_s"]
        m["rebuild_over_bare_rebuild"] = m["rebuild_s"] / m["bare_fts5_rebuild_s"]
        m["ingest_over_bare_rebuild_bundled"] = m["ingest_s"] / m["bare_fts5_rebuild_bundled_s"]
        m["rebuild_over_bare_rebuild_bundled"] = m["rebuild_s"] / m["bare_fts5_rebuild_bundled_s"]
        m["rebuild_speedup_vs_python_repopulate"] = m["python_repopulate_fts_s"] / m["rebuild_s"]

        def row(name, value, note=""):
            print(f"  {name:<44} {value:>12}  {note}")

        print(f"medians of {args.reps} runs:")
        row("Python import_sessions (bulk import)", f"{m['python_import_s']:.2f} s", f"{m['python_import_msg_per_s']:,.0f} msg/s")
        row("hermes-index ingest (all indexes, CJK too)", f"{m['ingest_s']:.2f} s", f"{m['ingest_msg_per_s']:,.0f} msg/s")
        row("  speed-up over Python's bulk import", f"{m['ingest_speedup_vs_python_import']:.1f}x", "goal >= 7x")
        row(f"bare FTS5 'rebuild', Python's SQLite {sqlite3.sqlite_version}", f"{m['bare_fts5_rebuild_s']:.2f} s",
            "the physical limit, as upstream runs it")
        row("bare FTS5 'rebuild', our bundled SQLite", f"{m['bare_fts5_rebuild_bundled_s']:.2f} s")
        row("  ingest / bare rebuild (Python's, bundled)",
            f"{m['ingest_over_bare_rebuild']:.2f}x {m['ingest_over_bare_rebuild_bundled']:.2f}x", "goal <= 1.5x")
        row("Python _rebuild_fts_indexes (from messages)", f"{m['python_repopulate_fts_s']:.2f} s")
        row("hermes-index rebuild (both + CJK)", f"{m['rebuild_s']:.2f} s",
            f"{m['rebuild_speedup_vs_python_repopulate']:.1f}x faster than Python's")
        row("  rebuild / bare rebuild (Python's, bundled)",
            f"{m['rebuild_over_bare_rebuild']:.2f}x {m['rebuild_over_bare_rebuild_bundled']:.2f}x", "goal <= 1.2x")
        row("same rows in both databases", "yes" if same else "NO", f"{digests['ours'][0]} messages")
        out = pathlib.Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(m, indent=2) + "\n")
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
