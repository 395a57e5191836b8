"""hermes-memory next to Python Hermes's MemoryStore on the same homes.

Run by benches/run.sh with the peer's Python; our release binaries are in $HERMES_LOOP_BIN.
Python is timed inside one warm interpreter (imports excluded, which flatters it); ours as
whole processes, start-up included. Each figure is the median of several runs.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.path.join(os.environ.get("HERMES_LOOP_BIN", "target/release"), "hermes-memory")
HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "testdata", "memory")


def median_time(fn, runs=7):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def full_home(root):
    """A home at its budgets: 2,200 and 1,375 characters of realistic entries."""
    mem = os.path.join(root, "memories")
    os.makedirs(mem, exist_ok=True)

    def fill(limit, prefix):
        entries, size = [], 0
        n = 0
        while True:
            entry = f"{prefix} fact {n}: the build uses uv, tests run with pytest -q"
            grow = len(entry) + (3 if entries else 0)
            if size + grow > limit:
                return "\n§\n".join(entries)
            entries.append(entry)
            size += grow
            n += 1

    with open(os.path.join(mem, "MEMORY.md"), "w") as f:
        f.write(fill(2200, "Env"))
    with open(os.path.join(mem, "USER.md"), "w") as f:
        f.write(fill(1375, "User"))


def ours(home, *args, stdin=None):
    subprocess.run(
        [BIN, *args],
        input=stdin,
        env={**os.environ, "HERMES_HOME": home},
        stdout=subprocess.DEVNULL,
        check=False,
    )


def report(name, python_s, rust_s):
    print(f"{name:<44} python {python_s * 1000:9.2f} ms   rust {rust_s * 1000:8.2f} ms   "
          f"{python_s / rust_s:6.1f}x")


def main():
    work = tempfile.mkdtemp(prefix="bench-memory-")
    os.environ["HERMES_HOME"] = work
    from tools.memory_tool import MemoryStore, memory_tool

    try:
        # 1. Session start: load both files, scan every entry, render the frozen snapshot.
        full_home(work)

        def py_load():
            store = MemoryStore()
            store.load_from_disk()
            store.format_for_system_prompt("memory")

        report("session start (load + scan + snapshot)", median_time(py_load),
               median_time(lambda: ours(work, "show", "--snapshot", "--format", "text")))

        # 2. 200 adds, one tool call each (lock, re-read, write, fsync), on a large budget.
        with open(os.path.join(work, "config.yaml"), "w") as f:
            f.write("memory:\n  memory_char_limit: 100000\n")
        adds = [{"action": "add", "target": "memory", "content": f"fact number {n}"} for n in range(200)]
        jsonl = "".join(json.dumps(a) + "\n" for a in adds).encode()

        def reset():
            shutil.rmtree(os.path.join(work, "memories"), ignore_errors=True)

        def py_adds():
            reset()
            store = MemoryStore(memory_char_limit=100000)
            store.load_from_disk()
            for a in adds:
                memory_tool(action=a["action"], target=a["target"], content=a["content"], store=store)

        def rust_adds():
            reset()
            ours(work, "apply", "--format", "jsonl", stdin=jsonl)

        report("200 adds, one call each", median_time(py_adds, 5), median_time(rust_adds, 5))

        # 3. Threat scan: every test input, ten times over, each refused or accepted by the
        #    scan in front of `add` (no budget left, so nothing is written).
        texts = []
        for name in ("poisoned.jsonl", "benign.jsonl"):
            with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
                texts += [json.loads(line)["text"] for line in f if line.strip()]
        texts = texts * 10
        with open(os.path.join(work, "config.yaml"), "w") as f:
            f.write("memory:\n  memory_char_limit: 0\n")
        reset()
        scan_calls = [{"action": "add", "target": "memory", "content": t} for t in texts]
        scan_jsonl = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in scan_calls).encode()

        def py_scan():
            store = MemoryStore(memory_char_limit=0)
            store.load_from_disk()
            for c in scan_calls:
                store.reset_consolidation_failures()
                memory_tool(action="add", target="memory", content=c["content"], store=store)

        report(f"{len(texts)} adds through the threat scan", median_time(py_scan, 5),
               median_time(lambda: ours(work, "apply", "--format", "jsonl", stdin=scan_jsonl), 5))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
