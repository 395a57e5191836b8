#!/usr/bin/env python3
"""hermes-chat beside Python Hermes 0.19.0 (`hermes -z`) against a loopback chat-completions
server that answers at once. Prints, for each agent:

  * start → first chat request: from spawning the process to the server receiving the first
    POST …/chat/completions (median of --runs);
  * peak RSS of the process (max over runs, from wait4);
and for hermes-chat alone:
  * own time per model call with 200 messages of history: a resumed session of 200 stored
    messages makes 20 read_file calls; the gap between the server finishing answer i and
    receiving request i+1 is the agent's own work (build the request, run the tool, store the
    rows). Median and p95 over the 20 gaps of every run.

Usage: benches/bench_chat.py [--runs N] [--ours target/release/hermes-chat] [--python .venv-peer/bin/hermes]
"""

import argparse
import http.server
import json
import os
import shutil
import socketserver
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time


class Server:
    """Answers every chat call at once: a tool call while `tool_calls_left` > 0, else text."""

    def __init__(self):
        self.arrivals = []
        self.finished = []
        self.tool_calls_left = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: without this, Nagle holds the body
            # until the client's delayed ACK (40 ms) and the harness measures itself.
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                body = json.dumps({"object": "list", "data": [{"id": "fake-model"}]}).encode()
                if not self.path.rstrip("/").endswith("/models"):
                    self.send_response(404)
                    body = b'{"error":{"message":"not found"}}'
                else:
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                outer.arrivals.append(time.monotonic())
                if outer.tool_calls_left > 0 and request.get("tools"):
                    outer.tool_calls_left -= 1
                    n = outer.tool_calls_left
                    message = {"role": "assistant", "content": None, "tool_calls": [{
                        "id": f"call_{n}", "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"path": "note.txt"})}}]}
                    finish = "tool_calls"
                else:
                    message = {"role": "assistant", "content": "ok"}
                    finish = "stop"
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                if request.get("stream"):
                    delta = {"role": "assistant"}
                    if message.get("tool_calls"):
                        call = message["tool_calls"][0]
                        delta["tool_calls"] = [{"index": 0, **call}]
                    else:
                        delta["content"] = message["content"]
                    chunks = [
                        {"id": "c", "object": "chat.completion.chunk", "model": "fake-model",
                         "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                        {"id": "c", "object": "chat.completion.chunk", "model": "fake-model",
                         "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                        {"id": "c", "object": "chat.completion.chunk", "model": "fake-model",
                         "choices": [], "usage": usage},
                    ]
                    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                    data = body.encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                else:
                    data = json.dumps({"id": "c", "object": "chat.completion", "model": "fake-model",
                                       "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                       "usage": usage}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                outer.finished.append(time.monotonic())

        class Threaded(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.httpd = Threaded(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def home_for(server, root):
    home = tempfile.mkdtemp(prefix="chat-bench-home-", dir=root)
    with open(os.path.join(home, "config.yaml"), "w") as f:
        f.write(f"model:\n  provider: custom\n  base_url: {server.url}\n  default: fake-model\n"
                "  context_length: 256000\nsecurity:\n  tirith_enabled: false\n"
                "memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n")
    return home


def run_once(server, argv, home, cwd):
    server.arrivals.clear()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
           "HERMES_HOME": home, "TZ": "UTC"}
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if not server.arrivals:
        raise SystemExit(f"{argv[0]} sent no chat request (exit {proc.returncode})")
    return (server.arrivals[0] - start) * 1000.0, usage.ru_maxrss / 1024.0


def seed_history(ours, server, home, cwd):
    """A session with 200 stored messages, made by our own agent (100 one-line turns)."""
    db = os.path.join(home, "state.db")
    subprocess.run([ours, "-z", "seed"], env={"HERMES_HOME": home, "PATH": os.environ["PATH"]},
                   cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    conn = sqlite3.connect(db)
    sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    now = time.time()
    with conn:
        for i in range(99):
            conn.execute("INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?, 'user', ?, ?, 1)",
                         (sid, f"question {i}: " + "context " * 40, now))
            conn.execute("INSERT INTO messages (session_id, role, content, timestamp, active, finish_reason) VALUES (?, 'assistant', ?, ?, 1, 'stop')",
                         (sid, f"answer {i}: " + "detail " * 60, now))
        conn.execute("UPDATE sessions SET message_count = 200 WHERE id = ?", (sid,))
    conn.close()
    return sid


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--ours", default=os.path.join(repo, "target/release/hermes-chat"))
    ap.add_argument("--python", default=os.path.join(repo, ".venv-peer/bin/hermes"))
    args = ap.parse_args()

    server = Server()
    root = tempfile.mkdtemp(prefix="chat-bench-")
    try:
        cwd = tempfile.mkdtemp(prefix="work-", dir=root)
        with open(os.path.join(cwd, "note.txt"), "w") as f:
            f.write("a small file\n")
        results = {}
        agents = [("hermes-chat", [args.ours, "--no-review", "-z", "hi"])]
        if os.path.exists(args.python):
            agents.append(("python hermes -z", [args.python, "-z", "hi"]))
        for name, argv in agents:
            starts, rss = [], []
            for _ in range(args.runs):
                home = home_for(server, root)
                t, r = run_once(server, argv, home, cwd)
                starts.append(t)
                rss.append(r)
            results[name] = (statistics.median(starts), max(rss))
            print(f"{name:18s} start→first request {statistics.median(starts):8.1f} ms (median of {args.runs})"
                  f"   peak RSS {max(rss):6.1f} MB")
        if len(results) == 2:
            (a, ra), (b, rb) = results["hermes-chat"], results["python hermes -z"]
            print(f"{'ratio':18s} start {b / a:8.1f}×   RSS {rb / ra:6.1f}×")

        gaps = []
        for _ in range(max(1, args.runs // 2)):
            home = home_for(server, root)
            sid = seed_history(args.ours, server, home, cwd)
            server.tool_calls_left = 20
            server.arrivals.clear()
            server.finished.clear()
            subprocess.run([args.ours, "--no-review", "--resume", sid, "-z", "read it"],
                           env={"HERMES_HOME": home, "PATH": os.environ["PATH"]}, cwd=cwd, check=True,
                           stdout=subprocess.DEVNULL)
            # finished[i] is when answer i was written; arrivals[i+1] the next request.
            for i in range(1, len(server.arrivals)):
                gaps.append((server.arrivals[i] - server.finished[i - 1]) * 1000.0)
        gaps.sort()
        p95 = gaps[int(len(gaps) * 0.95) - 1]
        print(f"{'hermes-chat':18s} own time per model call, 200 messages of history: "
              f"median {statistics.median(gaps):.2f} ms, p95 {p95:.2f} ms ({len(gaps)} calls)")
    finally:
        server.httpd.shutdown()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
