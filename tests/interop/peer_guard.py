"""Peer commands for the skills guard: how Python Hermes's Skills Guard decides."""

import json
import sys
from pathlib import Path


def cmd_guard_ignore(args):
    """stdin: {"ignore": <.skillignore text>, "paths": [...]}. For each path, whether
    Hermes's matcher ignores it."""
    import tempfile

    from tools.skills_guard import _load_skill_ignore

    request = json.load(sys.stdin)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".skillignore").write_text(request["ignore"], encoding="utf-8")
        ignore = _load_skill_ignore(Path(tmp))
        return [bool(ignore(p)) for p in request["paths"]]


def cmd_guard_trust(args):
    """stdin: a JSON list of source identifiers; their trust levels."""
    from tools.skills_guard import _resolve_trust_level

    return [_resolve_trust_level(s) for s in json.load(sys.stdin)]


def cmd_guard_decide(args):
    """Every trust x verdict x force combination through should_allow_install."""
    from tools.skills_guard import Finding, ScanResult, should_allow_install

    out = []
    for trust in ["builtin", "trusted", "community", "agent-created"]:
        for verdict in ["safe", "caution", "dangerous"]:
            for force in [False, True]:
                findings = [
                    Finding("x", "high", "injection", "SKILL.md", 1, "m", "d"),
                    Finding("y", "low", "injection", "SKILL.md", 2, "m", "d"),
                ]
                result = ScanResult("s", "src", trust, verdict, findings)
                allowed, reason = should_allow_install(result, force=force)
                out.append(
                    {"trust": trust, "verdict": verdict, "force": force, "allowed": allowed, "reason": reason}
                )
    return out


def cmd_guard_scan(args):
    """args: skill folders. Hermes's scan_skill verdict and findings for each, or the
    exception it raised."""
    from tools.skills_guard import scan_skill

    out = []
    for path in args:
        try:
            result = scan_skill(Path(path), source="community")
        except Exception as e:  # the symlink-loop crash is one of the answers
            out.append({"error": type(e).__name__})
            continue
        out.append(
            {
                "verdict": result.verdict,
                "findings": [
                    {"id": f.pattern_id, "severity": f.severity, "category": f.category, "file": f.file, "line": f.line}
                    for f in result.findings
                ],
            }
        )
    return out


def cmd_skills_listed(args):
    """What Hermes's skills_list sees in HERMES_HOME/skills: name and description per
    listed skill."""
    from tools.skills_tool import _find_all_skills

    return [
        {"name": str(s["name"]), "description": str(s["description"])}
        for s in _find_all_skills(skip_disabled=True)
    ]


COMMANDS = {
    "skills-listed": cmd_skills_listed,
    "guard-ignore": cmd_guard_ignore,
    "guard-trust": cmd_guard_trust,
    "guard-decide": cmd_guard_decide,
    "guard-scan": cmd_guard_scan,
}
