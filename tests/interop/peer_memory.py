"""peer.py commands for the memory area: what Python Hermes's MemoryStore, memory tool and
threat scanner answer on a HERMES_HOME. Our own driver; it calls the library and prints
what it returns."""

import json
import os
import re
import sys
import time
import unicodedata


def _store():
    from tools.memory_tool import load_on_disk_store

    return load_on_disk_store()


def _call(store, args):
    """One tool call as the agent's tool executor makes it, exceptions as the registry
    reports them."""
    from tools.memory_tool import memory_tool

    try:
        return memory_tool(
            action=args.get("action"),
            target=args.get("target", "memory"),
            content=args.get("content"),
            old_text=args.get("old_text"),
            operations=args.get("operations"),
            store=store,
        )
    except Exception as e:  # the registry's wording
        return json.dumps({"error": f"Tool execution failed: {type(e).__name__}: {e}"})


def _raw(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except FileNotFoundError:
        return None


def _files():
    from tools.memory_tool import get_memory_dir

    d = get_memory_dir()
    return {"memory": _raw(d / "MEMORY.md"), "user": _raw(d / "USER.md")}


def cmd_apply(args):
    """stdin: JSONL of memory tool arguments, applied in one turn on one store.
    Answer: the result strings and the files afterwards."""
    store = _store()
    store.reset_consolidation_failures()
    results = []
    for line in sys.stdin.read().splitlines():
        if line.strip():
            results.append(_call(store, json.loads(line)))
    return {"results": results, "files": _files()}


def cmd_load(args):
    """The live entries and the frozen snapshot blocks of a fresh store."""
    store = _store()
    return {
        "memory": store.memory_entries,
        "user": store.user_entries,
        "snapshot": {
            "memory": store.format_for_system_prompt("memory"),
            "user": store.format_for_system_prompt("user"),
        },
    }


def _sorted_findings(findings):
    invisible = sorted(f for f in findings if f.startswith("invisible_unicode_"))
    return invisible + [f for f in findings if not f.startswith("invisible_unicode_")]


def cmd_scan(args):
    """stdin: a JSON list of texts. Answer: the strict-scope findings of each, invisible
    characters sorted by code point (upstream's order is that of a hash set)."""
    from tools.threat_patterns import scan_for_threats

    scope = args[0] if args else "strict"
    return [_sorted_findings(scan_for_threats(t, scope=scope)) for t in json.load(sys.stdin)]


def _ranges(predicate):
    out = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if predicate(chr(cp)):
            if out and out[-1][1] == cp - 1:
                out[-1][1] = cp
            else:
                out.append([cp, cp])
    return out


def cmd_char_classes(args):
    """Code-point ranges of Python's `\\w` and `str.isspace`, and of the code points this
    Python's Unicode database has assigned (so newer characters can be left out)."""
    word = re.compile(r"\w")
    return {
        "unicode": unicodedata.unidata_version,
        "word": _ranges(lambda c: word.match(c) is not None),
        "space": _ranges(str.isspace),
        "assigned": _ranges(lambda c: unicodedata.category(c) != "Cn"),
    }


def cmd_concurrent_add(args):
    """args: TARGET PREFIX COUNT READY_FILE GO_FILE. Says it is ready, waits for the go, then
    adds COUNT entries `<PREFIX> <n>` one tool call at a time on one store."""
    target, prefix, count, ready, go = args[0], args[1], int(args[2]), args[3], args[4]
    store = _store()
    open(ready, "w").close()
    deadline = time.time() + 60
    while not os.path.exists(go):
        if time.time() > deadline:
            raise SystemExit("no go signal")
        time.sleep(0.001)
    failures = []
    for n in range(count):
        store.reset_consolidation_failures()
        result = json.loads(_call(store, {"action": "add", "target": target, "content": f"{prefix} {n:03d}"}))
        if not result.get("success"):
            failures.append(result)
    return {"failures": failures}


COMMANDS = {
    "memory-apply": cmd_apply,
    "memory-load": cmd_load,
    "memory-scan": cmd_scan,
    "memory-char-classes": cmd_char_classes,
    "memory-concurrent-add": cmd_concurrent_add,
}
