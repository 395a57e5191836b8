#!/usr/bin/env python3
"""hermes-skills hub search across five loopback sources, side by side with Python Hermes.

Five HTTP servers on 127.0.0.1 each serve a well-known skills index
(`/.well-known/skills/index.json`, 200 skills). Two scenarios:

1. all five answer, after 40, 80, 120, 160 and 200 ms: how much searching all five adds
   over searching the slowest one alone (same command, `--source <that source>`), so the
   process start and the server's own latency cancel out;
2. one never answers, searched with a per-source timeout T: the search must return within
   T + 100 ms with the other four's results.

Ours is timed as a whole process (`hermes-skills hub search … --source well-known`, start-up
included). Python's `hermes skills search` cannot be pointed at these sources: its
well-known adapter only searches the one site named by a URL query, and its GitHub adapter
has api.github.com built in. So Python is timed on its own parallel search machinery
(`tools.skills_hub.parallel_search_sources`, the function `hermes skills search` runs) over
five `WellKnownSkillSource` adapters, each bound to one of the servers, in-process (imports
done, index cache cleared before each run). Median of several runs.

Run by benches/run.sh with the peer's python; HERMES_LOOP_BIN points at our release build.
"""

import http.server
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(os.environ.get("HERMES_LOOP_BIN", REPO / "target" / "release")) / "hermes-skills"
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
DELAY = 0.2
TIMEOUT = 1.0

HOME = pathlib.Path(tempfile.mkdtemp(prefix="bench-hub-"))
os.environ["HERMES_HOME"] = str(HOME)
os.environ["HERMES_ALLOW_PRIVATE_URLS"] = "true"  # Python's SSRF guard, for loopback

INDEX = json.dumps(
    {
        "skills": [
            {"name": f"skill-{i:03d}-{'table' if i % 10 == 0 else 'misc'}",
             "description": f"Skill number {i}.", "files": ["SKILL.md"]}
            for i in range(200)
        ]
    }
).encode()


class Server:
    """One loopback source: answers after `delay` seconds, or never when `hang`."""

    def __init__(self):
        self.delay = 0.0
        self.hang = False
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if outer.hang:
                    time.sleep(3600)
                    return
                if outer.delay:
                    time.sleep(outer.delay)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(INDEX)))
                self.end_headers()
                self.wfile.write(INDEX)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


SERVERS = [Server() for _ in range(5)]
(HOME / "config.yaml").write_text(
    "hub:\n  github: false\n  well_known:\n" + "".join(f"    - {s.url}\n" for s in SERVERS)
)

from tools import skills_hub  # noqa: E402  (after HERMES_HOME is set)


def python_sources():
    out = []
    for s in SERVERS:
        index_url = f"{s.url}/.well-known/skills/index.json"

        class Bound(skills_hub.WellKnownSkillSource):
            def _query_to_index_url(self, query, _url=index_url):
                return _url

        out.append(Bound())
    return out


PY_SOURCES = python_sources()


def median(fn):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ours(timeout, source="well-known"):
    env = dict(os.environ, HERMES_HUB_ALLOW_PRIVATE="1")
    out = subprocess.run(
        [str(BIN), "hub", "search", "table", "--source", source,
         "--timeout", str(timeout), "--limit", "500", "--format", "jsonl"],
        env=env, capture_output=True, check=False, text=True,
    )
    records = [json.loads(line) for line in out.stdout.splitlines()]
    return sum(r["type"] == "result" for r in records)


def python(timeout, sources=None):
    shutil.rmtree(HOME / "skills" / ".hub" / "index-cache", ignore_errors=True)
    results, _, _ = skills_hub.parallel_search_sources(
        sources or PY_SOURCES, "table", overall_timeout=timeout
    )
    return len(results)


def scenario(delays, hang):
    for s, d in zip(SERVERS, delays):
        s.delay = d
        s.hang = False
    SERVERS[-1].hang = hang
    timeout = TIMEOUT if hang else 10.0
    found = (ours(timeout), python(timeout))
    return found, median(lambda: ours(timeout)), median(lambda: python(timeout))


def main():
    print(f"hub search, 5 loopback well-known sources x 200 skills, median of {RUNS} runs")
    print(f"{'scenario':<44} {'ours':>10} {'python':>10}")
    (n_rs, n_py), rs, py = scenario([0.0] * 5, False)
    print(f"{'all answer at once (no delay)':<44} {rs*1000:>8.1f}ms {py*1000:>8.1f}ms")
    print(f"  results: ours {n_rs} (the 20 matches per source), python {n_py} "
          "(its adapter returns the first 50 entries of each index, unfiltered)")
    delays = [0.04, 0.08, 0.12, 0.16, DELAY]
    (n_rs, n_py), rs, py = scenario(delays, False)
    slowest = f"well-known:{SERVERS[-1].url}"
    rs1 = median(lambda: ours(10.0, slowest))
    py1 = median(lambda: python(10.0, [PY_SOURCES[-1]]))
    print(f"{'5 sources answering after 40..200 ms':<44} {rs*1000:>8.1f}ms {py*1000:>8.1f}ms")
    print(f"{'the slowest (200 ms) source alone':<44} {rs1*1000:>8.1f}ms {py1*1000:>8.1f}ms")
    print(f"  added by the other four: ours {(rs-rs1)*1000:+.1f} ms, python {(py-py1)*1000:+.1f} ms")
    (n_rs, n_py), rs, py = scenario([0.0] * 5, True)
    print(f"{f'one never answers, timeout {TIMEOUT:.1f} s':<44} {rs*1000:>8.1f}ms {py*1000:>8.1f}ms")
    print(f"  over the timeout: ours +{(rs-TIMEOUT)*1000:.1f} ms ({n_rs} results from 4 sources), "
          f"python +{(py-TIMEOUT)*1000:.1f} ms ({n_py} results)")


if __name__ == "__main__":
    main()
