#!/usr/bin/env python3
"""A sample external memory provider for hermes-chat: notes kept in a JSONL file.

Protocol: docs/memory-providers.md (JSONL on stdin/stdout; requests carry an "id" and get one
answer, notifications do not). Configure it in $HERMES_HOME/config.yaml:

    memory:
      provider: notes
      providers:
        notes:
          command: [python3, /path/to/pipelines/memory-provider-notes.py, --file, ~/.hermes/notes.jsonl]

What it does: every finished turn is kept as a note (sync_turn), every write of the built-in
memory tool is mirrored (on_memory_write), and before each turn the notes sharing words with
the user's message are recalled (prefetch). The model gets two tools, notes_search and
notes_add. Stdlib only.
"""

import argparse
import json
import os
import re
import sys
import time

WORD = re.compile(r"[a-z0-9]{3,}")


def words(text):
    return set(WORD.findall(text.lower()))


class Notes:
    def __init__(self, path):
        self.path = path

    def all(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def add(self, kind, text, **extra):
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        note = {"kind": kind, "text": text, "at": time.time(), **extra}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(note, ensure_ascii=False) + "\n")
        return note

    def search(self, query, limit=5):
        wanted = words(query)
        scored = []
        for note in self.all():
            overlap = len(wanted & words(note.get("text", "")))
            if overlap:
                scored.append((overlap, note.get("at", 0), note["text"]))
        scored.sort(reverse=True)
        return [text for _, _, text in scored[:limit]]


TOOLS = [
    {"type": "function", "function": {
        "name": "notes_search",
        "description": "Search the long-term notes kept by the notes provider.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "notes_add",
        "description": "Keep a note for later sessions.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}},
]


def handle(notes, method, params):
    if method == "initialize":
        return {"name": "notes"}
    if method == "system_prompt_block":
        return {"block": "## Notes\nLong-term notes are recalled for you before each turn; "
                         "use notes_search to look further and notes_add to keep something."}
    if method == "get_tool_schemas":
        return {"tools": TOOLS}
    if method == "prefetch":
        found = notes.search(params.get("query", ""))
        return {"context": "\n".join(f"- {t}" for t in found)}
    if method == "handle_tool_call":
        args = params.get("arguments") or {}
        if params.get("name") == "notes_search":
            return {"result": json.dumps({"notes": notes.search(args.get("query", ""))})}
        if params.get("name") == "notes_add":
            notes.add("tool", args.get("text", ""))
            return {"result": json.dumps({"success": True})}
        return {"result": json.dumps({"error": f"unknown tool {params.get('name')}"})}
    if method == "on_pre_compress":
        return {"text": ""}
    if method == "shutdown":
        return {}
    raise ValueError(f"unknown method {method}")


def notify(notes, method, params):
    if method == "sync_turn":
        notes.add("turn", f"User: {params.get('user', '')}\nAssistant: {params.get('assistant', '')}",
                  session_id=params.get("session_id", ""))
    elif method == "on_memory_write":
        meta = params.get("metadata") or {}
        notes.add("memory_write", params.get("content", ""), action=params.get("action"),
                  target=params.get("target"), origin=meta.get("write_origin"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=os.path.join(os.environ.get("HERMES_HOME", "."), "notes.jsonl"))
    notes = Notes(os.path.expanduser(ap.parse_args().file))
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        method, params = message.get("method", ""), message.get("params") or {}
        if "id" not in message:
            notify(notes, method, params)
            continue
        try:
            reply = {"id": message["id"], "result": handle(notes, method, params)}
        except Exception as e:  # a provider answers errors, it does not die of them
            reply = {"id": message["id"], "error": {"message": str(e)}}
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        if method == "shutdown":
            break


if __name__ == "__main__":
    main()
