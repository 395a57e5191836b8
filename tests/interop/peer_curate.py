"""Peer commands for the curator: what Python Hermes's curator does to, and reads from, a
home. The first argument of most commands is the clock (an ISO timestamp): Hermes reads
wall-clock time in several places, so every module the curator uses gets a frozen
`datetime` for the call.
"""

import argparse
import contextlib
import io
import json
import sys


@contextlib.contextmanager
def frozen(now_text):
    """Replaces `datetime` in the curator's modules with one whose now() is `now_text`."""
    import datetime as real

    from agent import curator, curator_backup
    from hermes_cli import curator as cli
    from tools import skill_usage

    fixed = real.datetime.fromisoformat(now_text.replace("Z", "+00:00"))

    class Frozen(real.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed if tz is not None else fixed.replace(tzinfo=None)

    modules = [curator, curator_backup, cli, skill_usage]
    saved = [m.datetime for m in modules]
    for m in modules:
        m.datetime = Frozen
    try:
        yield fixed
    finally:
        for m, d in zip(modules, saved):
            m.datetime = d


def captured(fn, *args):
    """Runs a CLI handler, returning (exit code, stdout text)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = fn(*args)
    return code, buf.getvalue()


def cmd_curate_transitions(args):
    """apply_automatic_transitions(now) at a frozen clock; the counts."""
    from agent import curator

    with frozen(args[0]) as now:
        return curator.apply_automatic_transitions(now=now)


def cmd_curate_cli(args):
    """`hermes curator <sub> ...` at a frozen clock: {"code", "stdout"}.

    args: NOW SUB [flags]; flags as `hermes curator` takes them."""
    from hermes_cli import curator as cli

    now, sub, rest = args[0], args[1], args[2:]
    parser = argparse.ArgumentParser()
    parser.add_argument("skill", nargs="?")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--consolidate", action="store_true")
    parser.add_argument("--background", action="store_true")
    parser.add_argument("--sort", default="activity")
    parser.add_argument("--provenance", default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("-y", "--yes", action="store_true")
    parser.add_argument("--reason", default=None)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--id", dest="backup_id", default=None)
    ns = parser.parse_args(rest)
    ns.synchronous = not ns.background
    handler = getattr(cli, "_cmd_" + sub.replace("-", "_"))
    with frozen(now):
        code, out = captured(handler, ns)
    return {"code": code, "stdout": out}


def cmd_curate_read(args):
    """What Python reads from a home we curated: state, schedule, usage, report, backups."""
    from agent import curator, curator_backup
    from tools import skill_usage

    with frozen(args[0]) as now:
        state = curator.load_state()
        rows = skill_usage.agent_created_report()
        backups = curator_backup.list_backups()
        due = None
        if len(args) > 1:
            import datetime as real

            due = curator.should_run_now(real.datetime.fromisoformat(args[1].replace("Z", "+00:00")))
    return {
        "state": state,
        "usage": skill_usage.load_usage(),
        "report": rows,
        "archived": skill_usage.list_archived_skill_names(),
        "backups": [{k: v for k, v in b.items() if k != "path"} for b in backups],
        "due": due,
    }


def cmd_curate_rollback(args):
    """curator_backup.rollback(id) at a frozen clock: [ok, message]."""
    from agent import curator_backup

    with frozen(args[0]):
        ok, message, _ = curator_backup.rollback(backup_id=args[1] if len(args) > 1 else None)
    return [ok, message]


def cmd_curate_snapshot(args):
    """curator_backup.snapshot_skills(reason) at a frozen clock: the id."""
    from agent import curator_backup

    with frozen(args[0]):
        snap = curator_backup.snapshot_skills(reason=args[1] if len(args) > 1 else "manual")
    return snap.name if snap else None


def cmd_curate_cron_refs(args):
    from cron.jobs import referenced_skill_names

    return sorted(referenced_skill_names())


COMMANDS = {
    "curate_transitions": cmd_curate_transitions,
    "curate_cli": cmd_curate_cli,
    "curate_read": cmd_curate_read,
    "curate_rollback": cmd_curate_rollback,
    "curate_snapshot": cmd_curate_snapshot,
    "curate_cron_refs": cmd_curate_cron_refs,
}
