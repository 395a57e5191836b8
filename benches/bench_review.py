#!/usr/bin/env python3
"""Requests and bytes one review sends: hermes-review beside Python Hermes 0.19.0's background
review fork, on the same conversation, against the scripted loopback server (the same three
scripted answers for both: skill_view, a patch, a final line).

For each side: model requests, request-body bytes in total, and the bytes of the `tools`
array alone. Python's fork is run as the agent runs it (`_run_review_in_thread` with a parent
`AIAgent` built on the same home and endpoint, combined memory+skills prompt); ours is
`hermes-review` (own prompt, four tools) and `hermes-review` given the chat's system prompt
(the prefix-reuse path, ten tools). Conversations: 8 messages, and 60 (the digest only
applies to a routed review).

Usage: benches/bench_review.py [--ours target/release/hermes-review] [--python .venv-peer/bin/python]
"""

import argparse
import json
import os
import subprocess
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKILL = "---\nname: git-workflow\ndescription: Updating and pushing branches\n---\n\n1. Rebase on main.\n2. git push --force\n"
SCRIPT = [
    {"tool_calls": [{"id": "r1", "name": "skill_view", "arguments": "{\"name\": \"git-workflow\"}"}]},
    {"tool_calls": [{"id": "r2", "name": "skill_manage", "arguments": json.dumps(
        {"action": "patch", "name": "git-workflow", "old_string": "git push --force\n",
         "new_string": "git push --force-with-lease\n"})}]},
    "Patched the git-workflow skill.",
]


def conversation(pairs):
    msgs = []
    for i in range(pairs - 1):
        msgs.append({"role": "user", "content": f"Step {i}: what does `git status` say about branch feature-{i}? " + "context " * 30})
        msgs.append({"role": "assistant", "content": f"Branch feature-{i} is ahead of origin by {i} commits. " + "detail " * 40})
    msgs.append({"role": "user", "content": "Never plain --force on shared branches, always --force-with-lease."})
    msgs.append({"role": "assistant", "content": "Understood."})
    return msgs


def home(base_url):
    h = tempfile.mkdtemp(prefix="bench-review-")
    os.makedirs(os.path.join(h, "skills/git-workflow"))
    with open(os.path.join(h, "skills/git-workflow/SKILL.md"), "w") as f:
        f.write(SKILL)
    with open(os.path.join(h, "skills/.usage.json"), "w") as f:
        json.dump({"git-workflow": {"created_by": "agent"}}, f)
    with open(os.path.join(h, "config.yaml"), "w") as f:
        f.write(f"model:\n  provider: custom\n  base_url: {base_url}\n  default: fake-model\n")
    return h


def serve(script_path, log_path):
    server = subprocess.Popen(
        [os.path.join(REPO, "target/release/examples/chat-server"), script_path, "0", "--log", log_path,
         "--linger", "1"], stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    return server, url


def measure(log_path):
    requests = [json.loads(l) for l in open(log_path) if l.strip()]
    chats = [r for r in requests if r["path"].endswith("/chat/completions")]
    total = tools = 0
    for r in chats:
        body = r["body"] if isinstance(r["body"], dict) else json.loads(r["body"])
        total += len(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())
        tools += len(json.dumps(body.get("tools", []), separators=(",", ":"), ensure_ascii=False).encode())
    return len(chats), total, tools


PY_DRIVER = r"""
import json, sys, logging
logging.disable(logging.CRITICAL)
from run_agent import AIAgent
from agent import background_review as br
base_url, path = sys.argv[1], sys.argv[2]
msgs = json.load(open(path))
parent = AIAgent(base_url=base_url, api_key="sk-bench", provider="custom", model="fake-model",
                 quiet_mode=True, skip_context_files=True)
br._run_review_in_thread(parent, msgs, br._COMBINED_REVIEW_PROMPT)
"""


def run_python(python, msgs, work):
    script = os.path.join(work, "script.json")
    log = os.path.join(work, "py.log")
    json.dump(SCRIPT, open(script, "w"))
    server, url = serve(script, log)
    h = home(url)
    conv = os.path.join(work, "conv.json")
    json.dump(msgs, open(conv, "w"))
    env = dict(os.environ, HERMES_HOME=h)
    t = time.time()
    subprocess.run([python, "-c", PY_DRIVER, url, conv], env=env, check=True, cwd=h,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.time() - t
    server.wait()
    ok = "force-with-lease" in open(os.path.join(h, "skills/git-workflow/SKILL.md")).read()
    return measure(log) + (seconds, ok)


def run_ours(ours, msgs, work, system_prompt=None, tag="ours"):
    script = os.path.join(work, "script.json")
    log = os.path.join(work, f"{tag}.log")
    json.dump(SCRIPT, open(script, "w"))
    server, url = serve(script, log)
    h = home(url)
    conv = os.path.join(work, f"{tag}.jsonl")
    with open(conv, "w") as f:
        if system_prompt:
            f.write(json.dumps({"role": "system", "content": system_prompt}) + "\n")
        for m in msgs:
            f.write(json.dumps(m) + "\n")
    t = time.time()
    subprocess.run([ours, "--home", h, conv], check=True, cwd=h, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    seconds = time.time() - t
    server.wait()
    ok = "force-with-lease" in open(os.path.join(h, "skills/git-workflow/SKILL.md")).read()
    return measure(log) + (seconds, ok)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(REPO, "target/release/hermes-review"))
    ap.add_argument("--python", default=os.path.join(REPO, ".venv-peer/bin/python"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench-review-")
    # A chat system prompt of the size hermes-chat sends with ten tools (about 9 KB).
    chat_prompt = "You are Hermes Agent. " + "guidance " * 1000
    print(f"{'conversation':>12}  {'who':<32} {'requests':>8} {'bytes sent':>11} {'tools bytes':>11} {'patched':>7} {'seconds':>7}")
    for pairs in (4, 30):
        msgs = conversation(pairs)
        rows = [
            ("Python 0.19.0 fork (same model)", run_python(a.python, msgs, work)),
            ("hermes-review (own prompt)", run_ours(a.ours, msgs, work)),
            ("hermes-review (chat prefix)", run_ours(a.ours, msgs, work, chat_prompt, "prefix")),
        ]
        for who, (n, total, tools, seconds, ok) in rows:
            print(f"{len(msgs):>9} msg  {who:<32} {n:>8} {total:>11,} {tools:>11,} {str(ok):>7} {seconds:>7.2f}")


if __name__ == "__main__":
    main()
