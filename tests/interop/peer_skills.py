"""Peer commands for the skill library: what Python Hermes's skill tools answer in a home.

Each command calls the upstream tool functions and returns their answers as JSON.
"""

import json
import sys


def _view_with_bump(name, file_path=None):
    """The skill_view tool as the registry runs it: the answer, then view + use bumps."""
    from tools.skills_tool import _skill_view_with_bump

    args = {"name": name}
    if file_path is not None:
        args["file_path"] = file_path
    return json.loads(_skill_view_with_bump(args))


def cmd_skills_list(args):
    from tools.skills_tool import skills_list

    return json.loads(skills_list(category=args[0] if args else None))


def cmd_skill_view(args):
    """skill_view NAME [FILE]; no telemetry."""
    from tools.skills_tool import skill_view

    return json.loads(skill_view(args[0], file_path=args[1] if len(args) > 1 else None))


def cmd_skill_view_many(args):
    """stdin: JSON list of [name, file_path|null]; the skill_view answers (no telemetry)."""
    from tools.skills_tool import skill_view

    return [json.loads(skill_view(name, file_path=fp)) for name, fp in json.load(sys.stdin)]


def cmd_skill_view_tool(args):
    """The skill_view tool call with its view + use bumps."""
    return _view_with_bump(args[0], args[1] if len(args) > 1 else None)


def cmd_skill_manage(args):
    """stdin: JSON list of calls; args[0] = write origin. A call with "tool": "skill_view"
    views (marking the read, bumping); others go to skill_manage. One answer per call."""
    from tools.skill_manager_tool import skill_manage
    from tools.skill_provenance import reset_current_write_origin, set_current_write_origin

    token = set_current_write_origin(args[0] if args else "foreground")
    answers = []
    try:
        for call in json.load(sys.stdin):
            call = dict(call)
            if call.pop("tool", "skill_manage") == "skill_view":
                answers.append(_view_with_bump(call["name"], call.get("file_path")))
                continue
            answers.append(
                json.loads(
                    skill_manage(
                        action=call.get("action", ""),
                        name=call.get("name", ""),
                        content=call.get("content"),
                        category=call.get("category"),
                        file_path=call.get("file_path"),
                        file_content=call.get("file_content"),
                        old_string=call.get("old_string"),
                        new_string=call.get("new_string"),
                        replace_all=call.get("replace_all", False),
                        absorbed_into=call.get("absorbed_into"),
                    )
                )
            )
    finally:
        reset_current_write_origin(token)
    return answers


def cmd_prompt_index(args):
    from agent.prompt_builder import build_skills_system_prompt

    return {"text": build_skills_system_prompt()}


def cmd_bump_many(args):
    """bump-many NAME[,NAME...] COUNT: COUNT skill_view-style bumps (view then use, each its
    own locked read-modify-write), cycling through the names."""
    from tools.skill_usage import bump_use, bump_view

    names = args[0].split(",")
    for i in range(int(args[1])):
        name = names[i % len(names)]
        bump_view(name)
        bump_use(name)
    return {"done": int(args[1])}


def cmd_usage(args):
    """load_usage() and the bytes save_usage() would write for it."""
    import io

    from tools.skill_usage import load_usage

    data = load_usage()
    buf = io.StringIO()
    json.dump(data, buf, indent=2, sort_keys=True, ensure_ascii=False)
    return {"records": data, "redump": buf.getvalue()}


def cmd_usage_calls(args):
    """stdin: JSON list of [function, name, *args] on tools.skill_usage (bump_patch,
    mark_agent_created, set_state, set_pinned, forget, archive_skill, restore_skill)."""
    from tools import skill_usage

    out = []
    for fn, *rest in json.load(sys.stdin):
        out.append(getattr(skill_usage, fn)(*rest))
    return out


def cmd_fuzzy_many(args):
    """stdin: JSON list of [content, old, new, replace_all]; fuzzy_find_and_replace answers
    plus the no-match hint."""
    from tools.fuzzy_match import format_no_match_hint, fuzzy_find_and_replace

    out = []
    for content, old, new, replace_all in json.load(sys.stdin):
        new_content, count, strategy, error = fuzzy_find_and_replace(content, old, new, replace_all)
        hint = format_no_match_hint(error, count, old, content) if error else ""
        out.append(
            {"content": new_content, "count": count, "strategy": strategy, "error": error, "hint": hint}
        )
    return out


COMMANDS = {
    "skills-list": cmd_skills_list,
    "skill-view": cmd_skill_view,
    "skill-view-many": cmd_skill_view_many,
    "skill-view-tool": cmd_skill_view_tool,
    "skill-manage": cmd_skill_manage,
    "prompt-index": cmd_prompt_index,
    "bump-many": cmd_bump_many,
    "usage": cmd_usage,
    "usage-calls": cmd_usage_calls,
    "fuzzy-many": cmd_fuzzy_many,
}
