"""Peer commands for the skills hub: what Python Hermes makes of a hub lock.json, and a
lock.json written by Python Hermes itself (an in-memory bundle installed through its
quarantine, scan and install functions; no network).
"""

import io
import json
import sys


def cmd_hub_list(args):
    """`hermes skills list --source hub` as text (rich, no colour), plus the lock entries."""
    from rich.console import Console

    from hermes_cli.skills_hub import do_list
    from tools.skills_hub import HubLockFile

    buf = io.StringIO()
    console = Console(file=buf, width=200, color_system=None, force_terminal=False)
    do_list(source_filter=args[0] if args else "all", console=console)
    return {"text": buf.getvalue(), "installed": HubLockFile().list_installed()}


def cmd_hub_content_hash(args):
    """Python's content_hash of a folder."""
    from pathlib import Path

    from tools.skills_guard import content_hash

    return content_hash(Path(args[0]))


def cmd_hub_install_bundle(args):
    """stdin: {"name","files":{rel: text},"source","identifier","trust_level","category",
    "metadata"}; installs it as do_install does after the fetch. Returns the install path."""
    from tools.skills_guard import scan_skill_cached, should_allow_install
    from tools.skills_hub import (
        SkillBundle,
        _hub_dir,
        install_from_quarantine,
        quarantine_bundle,
        source_url_for_bundle,
    )

    spec = json.load(sys.stdin)
    bundle = SkillBundle(
        name=spec["name"],
        files=spec["files"],
        source=spec["source"],
        identifier=spec["identifier"],
        trust_level=spec["trust_level"],
        metadata=spec.get("metadata", {}),
    )
    q = quarantine_bundle(bundle)
    result, provenance = scan_skill_cached(
        q,
        source=bundle.identifier,
        source_url=source_url_for_bundle(bundle),
        cache_dir=_hub_dir() / "scan-cache",
    )
    allowed, reason = should_allow_install(result)
    if not allowed:
        return {"installed": False, "reason": reason}
    path = install_from_quarantine(q, bundle.name, spec.get("category", ""), bundle, result, provenance)
    return {"installed": True, "path": str(path)}


def cmd_hub_uninstall(args):
    from tools.skills_hub import uninstall_skill

    ok, message = uninstall_skill(args[0])
    return {"ok": ok, "message": message}


COMMANDS = {
    "hub_list": cmd_hub_list,
    "hub_content_hash": cmd_hub_content_hash,
    "hub_install_bundle": cmd_hub_install_bundle,
    "hub_uninstall": cmd_hub_uninstall,
}
