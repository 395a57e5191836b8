"""Peer commands for the SKILL.md format layer: how Python Hermes parses frontmatter."""

import json
import sys
from pathlib import Path

from peer import jsonable


def cmd_frontmatter_many(args):
    """stdin: a JSON list of SKILL.md paths. For each: parse_frontmatter's fields and body,
    and _read_skill_name's identity name (directory name as the fallback)."""
    from agent.skill_utils import parse_frontmatter
    from tools.skill_usage import _read_skill_name

    answers = []
    for path in json.load(sys.stdin):
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            answers.append({"error": "not utf-8"})
            continue
        fields, body = parse_frontmatter(text)
        answers.append(
            {
                "fields": jsonable(fields),
                "body": body,
                "identity": _read_skill_name(p, fallback=p.parent.name),
            }
        )
    return answers


COMMANDS = {"frontmatter-many": cmd_frontmatter_many}
