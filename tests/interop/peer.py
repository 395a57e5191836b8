#!/usr/bin/env python3
"""Asks the real Python Hermes (hermes-agent 0.19.0) what it sees in a HERMES_HOME.

Usage: peer.py COMMAND [ARGS...]   (HERMES_HOME must be set by the caller)

Each command prints one JSON value on stdout. Commands live in this file and in sibling
modules named peer_<area>.py, each exporting COMMANDS = {"name": function(args) -> value},
so every area adds its questions without touching the others.

This is our own test driver: it calls the upstream library's public functions and prints
what they return; it contains no upstream code.
"""

import importlib
import json
import math
import os
import pathlib
import sys


def jsonable(value):
    """Python values as JSON the way hermes_loop::yaml::Value::to_json renders them."""
    import datetime

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        return str(value)
    if isinstance(value, bytes):
        return repr(value)
    if isinstance(value, (set, frozenset)):
        return [jsonable(v) for v in sorted(value, key=repr)]
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k is None or isinstance(k, (bool, int, float, str)):
                key = json.loads(json.dumps({k: 0})).popitem()[0]
            else:
                key = str(k)
            out[key] = jsonable(v)
        return out
    return value


def cmd_yaml(args):
    """Loads stdin as yaml.load(..., CSafeLoader) does; {"ok": value} or {"error": text}."""
    import yaml

    text = sys.stdin.read()
    try:
        return {"ok": jsonable(yaml.load(text, Loader=yaml.CSafeLoader))}
    except yaml.YAMLError as e:
        return {"error": str(e)}
    except Exception as e:  # ValueError from a bad !!int and the like
        return {"error": f"{type(e).__name__}: {e}"}


def cmd_yaml_many(args):
    """Like `yaml`, for a JSON list of documents on stdin; one answer per document."""
    import yaml

    answers = []
    for text in json.load(sys.stdin):
        try:
            answers.append({"ok": jsonable(yaml.load(text, Loader=yaml.CSafeLoader))})
        except yaml.YAMLError as e:
            answers.append({"error": str(e)})
        except Exception as e:
            answers.append({"error": f"{type(e).__name__}: {e}"})
    return answers


def hermes_skill_preprocessing():
    """template_vars, inline_shell and inline_shell_timeout as Hermes's own
    preprocess_skill_content decides them from config.yaml: it is run on a one-line skill with
    its two steps replaced by recorders (no shell is run)."""
    from agent import skill_preprocessing as sp

    seen = {"template_vars": False, "inline_shell": False, "inline_shell_timeout": None}

    def substitute(content, skill_dir, session_id):
        seen["template_vars"] = True
        return content

    def expand(content, skill_dir, timeout):
        seen["inline_shell"] = True
        seen["inline_shell_timeout"] = timeout
        return content

    real = (sp.substitute_template_vars, sp.expand_inline_shell)
    sp.substitute_template_vars, sp.expand_inline_shell = substitute, expand
    try:
        sp.preprocess_skill_content("x", None)
    finally:
        sp.substitute_template_vars, sp.expand_inline_shell = real
    return seen


def model_slot(section, default_timeout, task=None):
    """OUR reading of an auxiliary slot (Hermes reads these keys inline where it builds a
    client); the timeout alone is Hermes's own `_get_task_timeout` when the slot is a task."""
    section = section if isinstance(section, dict) else {}

    def text(key, default=""):
        value = section.get(key, default)
        return "" if value is None else str(value)

    if task is not None:
        from agent.auxiliary_client import _get_task_timeout

        timeout = float(_get_task_timeout(task, float(default_timeout)))
    else:
        try:
            timeout = float(section.get("timeout", default_timeout))
        except (TypeError, ValueError):
            timeout = float(default_timeout)
    extra = section.get("extra_body", {})
    return {
        "provider": text("provider", "auto"),
        "model": text("model"),
        "base_url": text("base_url"),
        "api_key": text("api_key"),
        "timeout": timeout,
        "extra_body": jsonable(extra if extra is not None else None),
        "reasoning_effort": text("reasoning_effort"),
    }


def cmd_config(args):
    """Every config value hermes-loop reads, as the Python code paths that read it see it.

    Where Hermes has a function that reads a key (curator, write approval, disabled skills,
    external dirs, skill preprocessing, auxiliary timeouts) it answers. The rest Hermes reads
    inline, in AIAgent's constructor or the gateway; those are OUR expressions of that code,
    named model_*, and agree with Hermes only as far as we read it right."""
    from agent import curator, curator_backup
    from agent.skill_utils import get_disabled_skill_names, get_external_skills_dirs
    from hermes_cli.config import load_config
    from tools import write_approval
    from utils import is_truthy_value

    os.environ.pop("HERMES_PLATFORM", None)
    cfg = load_config()
    mem = cfg.get("memory", {}) or {}

    def model_int(value, default):
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):
            return default

    skills = cfg.get("skills", {}) or {}
    platform_disabled = {}
    raw_platforms = skills.get("platform_disabled") or {}
    if isinstance(raw_platforms, dict):
        for platform in raw_platforms:
            if raw_platforms[platform] is not None:
                # Python answers with the union of the global and the platform list.
                platform_disabled[str(platform)] = sorted(get_disabled_skill_names(platform=str(platform)))
    global_disabled = sorted(get_disabled_skill_names())

    def model_memory_notifications():
        display = cfg.get("display", {}) or {}
        notif = display.get("memory_notifications")
        if isinstance(notif, bool):
            notif = "on" if notif else "off"
        return str(notif).lower() if notif else "on"

    model = cfg.get("model")
    if not isinstance(model, dict):
        model = {"default": model} if model else {}

    def model_text(key):
        value = model.get(key)
        return str(value) if value else ""

    preprocessing = hermes_skill_preprocessing()
    inline_timeout = preprocessing["inline_shell_timeout"]
    if inline_timeout is None:
        # Hermes reads the timeout only once inline shell is on: what it would read then.
        timeout_raw = skills.get("inline_shell_timeout", 10)
        try:
            inline_timeout = int(timeout_raw or 10)
        except (TypeError, ValueError):
            inline_timeout = 10

    legacy = (cfg.get("curator") or {}).get("auxiliary") if isinstance(cfg.get("curator"), dict) else None
    return {
        "memory": {
            "memory_enabled": bool(mem.get("memory_enabled", False)),
            "user_profile_enabled": bool(mem.get("user_profile_enabled", False)),
            "write_approval": write_approval.write_approval_enabled("memory"),
            "memory_char_limit": model_int(mem.get("memory_char_limit", 2200), 2200),
            "user_char_limit": model_int(mem.get("user_char_limit", 1375), 1375),
            "nudge_interval": model_int(mem.get("nudge_interval", 10), 10),
            "provider": "" if mem.get("provider") is None else str(mem.get("provider")),
        },
        "skills": {
            "external_dirs": [str(p) for p in get_external_skills_dirs()],
            "disabled": global_disabled,
            "platform_disabled": platform_disabled,
            "template_vars": preprocessing["template_vars"],
            "inline_shell": preprocessing["inline_shell"],
            "inline_shell_timeout": inline_timeout,
            "guard_agent_created": is_truthy_value(skills.get("guard_agent_created"), default=False),
            "write_approval": write_approval.write_approval_enabled("skills"),
            "creation_nudge_interval": model_int(skills.get("creation_nudge_interval", 10), 10),
        },
        "curator": {
            "enabled": curator.is_enabled(),
            "interval_hours": curator.get_interval_hours(),
            "min_idle_hours": curator.get_min_idle_hours(),
            "stale_after_days": curator.get_stale_after_days(),
            "archive_after_days": curator.get_archive_after_days(),
            "consolidate": curator.get_consolidate(),
            "prune_builtins": curator.get_prune_builtins(),
            "backup_enabled": curator_backup.is_enabled(),
            "backup_keep": curator_backup.get_keep(),
        },
        "display": {"memory_notifications": model_memory_notifications()},
        "model": {
            "provider": model_text("provider"),
            "default": model_text("default"),
            "base_url": model_text("base_url"),
            "api_key": model_text("api_key"),
        },
        "auxiliary": {
            "background_review": model_slot(
                (cfg.get("auxiliary") or {}).get("background_review"), 120, "background_review"),
            "curator": model_slot((cfg.get("auxiliary") or {}).get("curator"), 600, "curator"),
            "legacy_curator": model_slot(legacy, 600) if isinstance(legacy, dict) else None,
        },
    }


COMMANDS = {
    "yaml": cmd_yaml,
    "yaml-many": cmd_yaml_many,
    "config": cmd_config,
}


def load_area_commands():
    here = pathlib.Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    for module_path in sorted(here.glob("peer_*.py")):
        module = importlib.import_module(module_path.stem)
        COMMANDS.update(getattr(module, "COMMANDS", {}))


def main(argv):
    if not os.environ.get("HERMES_HOME"):
        print("peer.py: HERMES_HOME must be set", file=sys.stderr)
        return 2
    load_area_commands()
    if len(argv) < 2 or argv[1] not in COMMANDS:
        print(f"peer.py: commands: {', '.join(sorted(COMMANDS))}", file=sys.stderr)
        return 2
    # Hermes logs to stderr and may print banners; keep stdout for the one JSON answer.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        answer = COMMANDS[argv[1]](argv[2:])
    finally:
        sys.stdout = real_stdout
    json.dump(answer, sys.stdout, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
