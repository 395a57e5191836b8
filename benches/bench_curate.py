#!/usr/bin/env python3
"""hermes-curate against Python Hermes 0.19.0's curator on the same synthetic homes.

The homes follow the reference's benchmark (loop.md §6): agent-created skills spread over
the buckets (used recently / 31–89 d / ≥ 91 d ago, never used young / old, stale ones
viewed again, pinned ones), bundled built-ins without records, hub-installed and manual
skills, and cron jobs (a third disabled) naming otherwise archive-bound skills; half flat,
half under 20 categories, 20 % with a references/ file. The clock is fixed
(2026-06-01T12:00:00Z).

For 200 and 2,000 skills both sides curate their own copy: Python's
`apply_automatic_transitions(now)` timed in-process (imports done), ours as whole
processes — `hermes-curate run` (backup, transitions, report, state) and the same with
`curator.backup.enabled: false`. The counters must agree. For 20,000 and 100,000 skills
ours runs alone. Set CURATE_BENCH_SIZES (e.g. "200,2000") to choose.

Run by benches/run.sh with the peer's python; HERMES_LOOP_BIN points at our release build.
"""

import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

REPO = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(os.environ.get("HERMES_LOOP_BIN", REPO / "target" / "release")) / "hermes-curate"
NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=timezone.utc)
SIZES = [int(s) for s in os.environ.get("CURATE_BENCH_SIZES", "200,2000,20000,100000").split(",")]
PYTHON_UP_TO = int(os.environ.get("CURATE_BENCH_PYTHON_UP_TO", "2000"))
SCRATCH = pathlib.Path(tempfile.mkdtemp(prefix="bench-curate-", dir=os.environ.get("TMPDIR", "/tmp")))


def iso(days, hours=0):
    return (NOW - timedelta(days=days, hours=hours)).isoformat()


def build(home, n, seed=42):
    """The synthetic home of the reference's benchmark, n skills."""
    rng = random.Random(seed)
    skills = home / "skills"
    skills.mkdir(parents=True)
    usage, bundled, hub, cron_refs = {}, [], {}, []
    n_bundled = max(3, n * 3 // 200)
    n_hub = max(2, n // 100)
    n_manual = max(2, n // 100)
    n_cron = max(3, n * 15 // 2000)
    for i in range(n):
        name = f"skill-{i:06d}"
        rel = name if i % 2 == 0 else f"cat-{i % 20:02d}/{name}"
        d = skills / rel
        (d).mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Synthetic skill {name} for the curator benchmark.\n---\n"
            f"# {name}\n\nStep one.\nStep two.\n"
        )
        if i % 5 == 0:
            (d / "references").mkdir()
            (d / "references" / "notes.md").write_text("notes\n")
        if i < n_bundled:
            bundled.append(name)
            continue
        if i < n_bundled + n_hub:
            hub[name] = {"install_path": rel}
            continue
        if i < n_bundled + n_hub + n_manual:
            usage[name] = {"created_by": None, "created_at": iso(400)}
            continue
        if i < n_bundled + n_hub + n_manual + n_cron:
            cron_refs.append(name)
            usage[name] = {"created_by": "agent", "use_count": 1, "last_used_at": iso(200 + rng.randint(0, 300))}
            continue
        r = rng.random()
        rec = {"created_by": "agent"}
        if r < 0.35:
            rec.update(use_count=rng.randint(1, 9), last_used_at=iso(rng.randint(0, 29), rng.randint(0, 23)))
        elif r < 0.50:
            rec.update(use_count=rng.randint(1, 9), last_used_at=iso(rng.randint(31, 89)))
        elif r < 0.65:
            rec.update(use_count=rng.randint(1, 9), last_used_at=iso(rng.randint(91, 600)))
        elif r < 0.75:
            rec.update(created_at=iso(rng.randint(0, 29)))
        elif r < 0.80:
            rec.update(created_at=iso(rng.randint(0, 29)), state="stale")
        elif r < 0.90:
            rec.update(created_at=iso(rng.randint(31, 89)))
        elif r < 0.95:
            rec.update(created_at=iso(rng.randint(91, 600)))
        elif r < 0.97:
            rec.update(pinned=True, created_at=iso(900))
        else:
            rec.update(use_count=2, state="stale", last_used_at=iso(100), last_viewed_at=iso(2))
        usage[name] = rec
    (skills / ".usage.json").write_text(json.dumps(usage, indent=2, sort_keys=True, ensure_ascii=False))
    (skills / ".bundled_manifest").write_text("".join(f"{b}:abc123\n" for b in bundled))
    (skills / ".hub").mkdir()
    (skills / ".hub" / "lock.json").write_text(json.dumps({"version": 1, "installed": hub}))
    jobs = []
    for k in range(0, len(cron_refs), 2):
        names = cron_refs[k : k + 2]
        jobs.append({"id": f"job{k}", "name": f"job {k}", "skills": names, "skill": names[0], "enabled": k % 3 != 0})
    (home / "cron").mkdir()
    (home / "cron" / "jobs.json").write_text(json.dumps({"jobs": jobs, "updated_at": iso(1)}, indent=2))


def ours(home, extra_config=""):
    (home / "config.yaml").write_text(extra_config)
    env = dict(os.environ, HERMES_HOME=str(home), HERMES_NOW=NOW.isoformat())
    # The copies were just written: flush them first, so the kernel's writeback of the
    # bench's own setup is not timed as part of the run.
    os.sync()
    start = time.perf_counter()
    out = subprocess.run([str(BIN), "run", "--format", "json"], env=env, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    record = json.loads(out.stdout)
    return seconds, {k: record[k] for k in ("marked_stale", "archived", "reactivated", "checked", "seeded")}


def python_side(home):
    """apply_automatic_transitions in a fresh interpreter (Hermes resolves HERMES_HOME at import)."""
    code = (
        "import json, time, sys\n"
        "from datetime import datetime\n"
        "from agent import curator\n"
        f"now = datetime.fromisoformat({NOW.isoformat()!r})\n"
        "t = time.perf_counter()\n"
        "counts = curator.apply_automatic_transitions(now=now)\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'counts': counts}))\n"
    )
    env = dict(os.environ, HERMES_HOME=str(home))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    return answer["seconds"], answer["counts"]


def main():
    rows = []
    for n in SIZES:
        base = SCRATCH / f"base-{n}"
        t = time.perf_counter()
        build(base, n)
        print(f"built {n} skills in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        a, b = SCRATCH / f"ours-{n}", SCRATCH / f"ours-nobackup-{n}"
        shutil.copytree(base, a, symlinks=True)
        shutil.copytree(base, b, symlinks=True)
        ours_s, ours_counts = ours(a)
        bare_s, bare_counts = ours(b, "curator:\n  backup:\n    enabled: false\n")
        assert ours_counts == bare_counts, (ours_counts, bare_counts)
        py_s, py_counts = None, None
        if n <= PYTHON_UP_TO:
            p = SCRATCH / f"python-{n}"
            shutil.copytree(base, p, symlinks=True)
            print(f"python: {n} skills (this takes minutes at 2,000)...", file=sys.stderr)
            py_s, py_counts = python_side(p)
            assert py_counts == ours_counts, (py_counts, ours_counts)
            shutil.rmtree(p)
        rows.append((n, ours_counts, ours_s, bare_s, py_s))
        for d in (a, b, base):
            shutil.rmtree(d)
        print(f"{n}: ours {ours_s:.3f}s (no backup {bare_s:.3f}s), python {py_s}", file=sys.stderr)
    print()
    print("| skills | changes (stale / archived / reactivated / seeded) | hermes-curate run | run, backup off | Python apply_automatic_transitions | ratio |")
    print("|---:|---|---:|---:|---:|---:|")
    for n, c, o, bare, p in rows:
        changes = f"{c['marked_stale']} / {c['archived']} / {c['reactivated']} / {c['seeded']}"
        py = f"{p:.2f} s" if p is not None else "—"
        ratio = f"{p / bare:,.0f}×" if p is not None else "—"
        print(f"| {n:,} | {changes} | {o:.3f} s | {bare:.3f} s | {py} | {ratio} |")
    shutil.rmtree(SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
