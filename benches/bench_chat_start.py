#!/usr/bin/env python3
"""Start of the terminal session: from spawning the agent in a pseudo-terminal to its prompt
being ready for typing, on a home with 1,000 skills and a 100,000-message state.db (the
benchmark corpus), hermes-chat beside Python Hermes 0.19.0's `hermes chat`.

Ready means: hermes-chat has printed its `›` prompt; Python's prompt_toolkit has shown the
cursor after its welcome banner. Median of --runs.

Usage: benches/bench_chat_start.py [--runs N]
"""

import argparse
import os
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import corpus  # noqa: E402


def build_home(root, ours_bin):
    home = os.path.join(root, "home")
    os.makedirs(home)
    with open(os.path.join(home, "config.yaml"), "w") as f:
        f.write("model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: fake-model\n"
                "security:\n  tirith_enabled: false\n")
    for i in range(1000):
        d = os.path.join(home, "skills", f"category-{i % 20:02d}", f"skill-{i:04d}")
        os.makedirs(d)
        with open(os.path.join(d, "SKILL.md"), "w") as f:
            f.write(f"---\nname: skill-{i:04d}\ndescription: Procedure number {i} for the benchmark.\n---\n"
                    f"# Skill {i}\n\nSteps for task {i}.\n")
    corpus_file = os.path.join(root, "corpus.jsonl")
    with open(corpus_file, "w") as out:
        corpus.write(out, sessions=2000, messages=50, seed=42)
    subprocess.run([os.path.join(ours_bin, "hermes-index"), "--home", home, "ingest", corpus_file],
                   check=True, stdout=subprocess.DEVNULL)
    return home


def time_to_ready(argv, home, ready):
    master, slave = pty.openpty()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
           "HERMES_HOME": home, "TERM": "xterm-256color", "TZ": "UTC"}
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=home,
                            start_new_session=True)
    os.close(slave)
    seen = b""
    try:
        while time.monotonic() - start < 60:
            readable, _, _ = select.select([master], [], [], 0.05)
            if not readable:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            if ready(seen):
                return (time.monotonic() - start) * 1000.0
        raise SystemExit(f"{argv[0]} never became ready; it printed:\n{seen[-500:]!r}")
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default=os.environ.get("HERMES_LOOP_BIN", os.path.join(REPO, "target/release")))
    ap.add_argument("--python", default=os.path.join(REPO, ".venv-peer/bin/hermes"))
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="chat-start-")
    try:
        home = build_home(root, args.bin)
        ours = statistics.median(
            time_to_ready([os.path.join(args.bin, "hermes-chat")], home, lambda b: "›".encode() in b)
            for _ in range(args.runs))
        print(f"hermes-chat        start → prompt ready {ours:8.1f} ms (median of {args.runs}; 1,000 skills, 100,000 messages)")
        if os.path.exists(args.python):
            def python_ready(b):
                at = b.find(b"Welcome to Hermes Agent")
                return at >= 0 and b"\x1b[?25h" in b[at:]
            theirs = statistics.median(
                time_to_ready([args.python, "chat"], home, python_ready) for _ in range(max(1, args.runs // 2)))
            print(f"python hermes chat start → prompt ready {theirs:8.1f} ms  ({theirs / ours:.0f}×)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
