#!/usr/bin/env python3
"""The team store (PostgreSQL) side by side with the local store (state.db), same corpus.

    HERMES_LOOP_BIN=target/release python3 benches/bench_store.py [--sessions 2000 --messages 50 --reps 3 --homes 1]

Run by `make bench` (benches/run.sh). One corpus (benches/corpus.py, 2,000 sessions x 50
messages = 100,000 messages by default) is ingested by `hermes-index`; a throwaway
PostgreSQL cluster (initdb in a temp directory, a Unix socket, stopped at the end; as root
the server runs as the `postgres` user) gets the schema (`hermes-index --store URL init`),
then:

- push: the first push of the home (messages/s), an unchanged re-push (seconds), a push
  after one session was compacted in state.db (seconds);
- discover: the reference benchmark's 53 calls (benches/bench_recall.py) through
  `hermes-recall --batch --timings`, local store and team store, one warm-up then --reps
  timed calls each: p50 / p95 per call;
- agreement: per query, the share of the local store's top-10 sessions that the team store
  also returns in its top 10 (limit 10, both ranked), averaged;
- with --homes N: N-1 more copies of the home pushed under other roles' owners, then one
  owner's search timed again (the GIN index on (owner, fts) keeps it to that owner's rows).

Needs the PostgreSQL server binaries (`make pg`).
"""

import argparse
import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

from bench_recall import CALLS, pct  # noqa: E402


def pg_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]))
    if not found:
        sys.exit("bench_store: no PostgreSQL server binaries (run `make pg`)")
    return pathlib.Path(found[-1]).parent


class Cluster:
    def __init__(self, work):
        self.bin = pg_bin()
        self.dir = work / "pg"
        self.data, self.sock, self.log = self.dir / "data", self.dir / "sock", self.dir / "log"
        for d in (self.data, self.sock):
            d.mkdir(parents=True)
        self.log.write_text("")
        self.root = os.geteuid() == 0
        if self.root:
            os.chmod(work, 0o755)
            os.chmod(self.dir, 0o755)
            for p in (self.data, self.sock, self.log):
                shutil.chown(p, "postgres")
        self.run("initdb", "-D", self.data, "-U", "admin", "-A", "trust", "-E", "UTF8",
                 "--locale=C.UTF-8", "-N")
        self.run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-o",
                 f"-k {self.sock} -c listen_addresses= -c shared_buffers=256MB "
                 f"-c max_wal_size=4GB -c checkpoint_timeout=30min", "start")

    def run(self, tool, *args):
        argv = [str(self.bin / tool)] + [str(a) for a in args]
        if self.root:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        subprocess.run(argv, check=True, capture_output=True)

    def url(self, user="admin"):
        return f"host={self.sock} port=5432 user={user} dbname=postgres"

    def sql(self, statement):
        subprocess.run(["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", self.url(), "-c", statement],
                       check=True, capture_output=True)

    def stop(self):
        try:
            self.run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        except subprocess.CalledProcessError:
            pass


def index(binary_dir, home, *args):
    out = subprocess.run([str(binary_dir / "hermes-index"), "--home", str(home),
                          "--format", "json"] + list(args),
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout) if out.stdout.strip() else None


def timed_batch(binary_dir, home, calls, reps, store=None, limit=3):
    lines = []
    for call in calls:
        lines += [dict({"limit": limit}, **call)] * (reps + 1)
    argv = [str(binary_dir / "hermes-recall"), "--home", str(home), "--batch", "--timings",
            "--format", "jsonl"]
    if store:
        argv += ["--store", store]
    out = subprocess.run(argv, input="".join(json.dumps(c, ensure_ascii=False) + "\n" for c in lines),
                         capture_output=True, text=True, check=True)
    seconds = [json.loads(l)["seconds"] * 1000 for l in out.stderr.splitlines()]
    answers = out.stdout.split("\n")
    times = [x for i in range(len(calls)) for x in seconds[i * (reps + 1) + 1:(i + 1) * (reps + 1)]]
    return times, [json.loads(answers[i * (reps + 1)]) for i in range(len(calls))]


def sessions_of(answer):
    return [r["session_id"] for r in answer.get("results", []) if r.get("matched_role") != "session_title"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--messages", type=int, default=50)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--homes", type=int, default=1)
    ap.add_argument("--out", default="bench-out/bench_store.json")
    args = ap.parse_args()
    binary_dir = pathlib.Path(os.environ.get("HERMES_LOOP_BIN", "target/release")).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-store-"))
    cluster = None
    try:
        corpus_path = work / "corpus.jsonl"
        with open(corpus_path, "w", encoding="utf-8") as f:
            corpus.write(f, args.sessions, args.messages, 42)
        home = work / "home"
        home.mkdir()
        subprocess.run([str(binary_dir / "hermes-index"), "--home", str(home), "-q", "ingest",
                        str(corpus_path)], check=True, capture_output=True)
        n = args.sessions * args.messages
        print(f"corpus: {args.sessions} sessions x {args.messages} messages = {n:,} messages")

        cluster = Cluster(work)
        url = cluster.url()
        index(binary_dir, home, "--store", url, "init")

        started = time.perf_counter()
        first = index(binary_dir, home, "--store", url, "push")
        push_s = time.perf_counter() - started
        started = time.perf_counter()
        again = index(binary_dir, home, "--store", url, "push")
        repush_s = time.perf_counter() - started
        import sqlite3
        db = sqlite3.connect(home / "state.db")
        sid = db.execute("SELECT session_id FROM messages WHERE active = 1 GROUP BY session_id "
                         "ORDER BY session_id LIMIT 1").fetchone()[0]
        db.execute("UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND active = 1", (sid,))
        db.execute("UPDATE sessions SET message_count = 0 WHERE id = ?", (sid,))
        db.commit()
        db.close()
        started = time.perf_counter()
        changed = index(binary_dir, home, "--store", url, "push")
        change_s = time.perf_counter() - started
        print(f"push (first):     {first['messages']:,} messages in {push_s:.2f} s = "
              f"{first['messages'] / push_s:,.0f} messages/s (the tool's own timer: {first['seconds']:.2f} s)")
        print(f"push (unchanged): {again['messages']} new, {repush_s:.3f} s")
        print(f"push (after one compaction): {changed['messages_changed']} changed, {change_s:.3f} s")

        local_t, local_a = timed_batch(binary_dir, home, CALLS, args.reps)
        store_t, store_a = timed_batch(binary_dir, home, CALLS, args.reps, store=url)
        print(f"discover, local store:  p50 {pct(local_t, .5):.2f} ms, p95 {pct(local_t, .95):.2f} ms")
        print(f"discover, team store:   p50 {pct(store_t, .5):.2f} ms, p95 {pct(store_t, .95):.2f} ms")

        _, local10 = timed_batch(binary_dir, home, CALLS, 0, limit=10)
        _, store10 = timed_batch(binary_dir, home, CALLS, 0, store=url, limit=10)
        shares = []
        for call, a, b in zip(CALLS, local10, store10):
            mine = sessions_of(a)
            if not mine:
                continue
            theirs = set(sessions_of(b))
            shares.append(sum(s in theirs for s in mine) / len(mine))
        agreement = sum(shares) / len(shares) if shares else 0.0
        print(f"top-10 session agreement with the local store: {agreement:.2f} over {len(shares)} queries")

        many = None
        if args.homes > 1:
            for i in range(1, args.homes):
                role = f"user{i}"
                cluster.sql(f"CREATE ROLE {role} LOGIN")
                if i == 1:
                    cluster.sql("GRANT USAGE ON SCHEMA hermes TO PUBLIC; "
                                "GRANT SELECT ON hermes.schema_version TO PUBLIC; "
                                "GRANT SELECT, INSERT, UPDATE ON hermes.homes TO PUBLIC; "
                                "GRANT SELECT, INSERT, UPDATE, DELETE ON hermes.sessions, hermes.messages TO PUBLIC; "
                                "GRANT EXECUTE ON FUNCTION hermes.search(text, text, text, text, text[], text[], text, integer) TO PUBLIC; "
                                "GRANT EXECUTE ON FUNCTION hermes.title_match(text, text, text, text) TO PUBLIC")
                copy = work / f"home{i}"
                copy.mkdir()
                shutil.copy(home / "state.db", copy / "state.db")
                index(binary_dir, copy, "--store", cluster.url(role), "push")
            cluster.sql("VACUUM ANALYZE hermes.messages")
            one_t, _ = timed_batch(binary_dir, home / ".." / "home1", CALLS, args.reps,
                                   store=cluster.url("user1"))
            many = {"homes": args.homes, "messages": n * args.homes,
                    "p50": pct(one_t, .5), "p95": pct(one_t, .95)}
            print(f"one user's search, {args.homes} homes ({n * args.homes:,} messages): "
                  f"p50 {many['p50']:.2f} ms, p95 {many['p95']:.2f} ms")

        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({"sessions": args.sessions, "messages": args.messages, "reps": args.reps,
                       "push_messages_per_s": first["messages"] / push_s,
                       "push_seconds": push_s, "repush_seconds": repush_s,
                       "change_push_seconds": change_s,
                       "local": {"p50": pct(local_t, .5), "p95": pct(local_t, .95)},
                       "store": {"p50": pct(store_t, .5), "p95": pct(store_t, .95)},
                       "agreement_top10": agreement, "many_homes": many}, f, indent=2)
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
