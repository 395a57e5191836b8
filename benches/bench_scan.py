#!/usr/bin/env python3
"""hermes-skill-scan next to Hermes 0.19.0's Skills Guard (`tools.skills_guard.scan_skill`).

Run with the peer's Python (benches/run.sh does): it imports the upstream scanner in-process
and runs our release binary from $HERMES_LOOP_BIN.

  1. Throughput on the public corpus: MB/s (wall) and MB per CPU-second for both, and the
     ratio. Ours is the median of several runs; the peer runs once (minutes).
  2. Start-up: scanning one skill whose SKILL.md holds an example of every rule, so every
     rule's automaton is built (median of 20 runs); and `--explain` (no scan at all).
  3. The anchor walk alone (benches/anchor_walk.rs): the corpus's files in memory walked by
     the scanner's anchor automaton, best of 40; the one part that touches every byte.
  4. Detection: per category, how many labelled malicious samples (testdata/guard) each
     scanner flags, and flags at the sample's severity; how many benign corpus skills each
     calls dangerous (and caution).

Options: --corpus DIR (default ../shared/corpus/skills-public, else testdata/skills-sample),
--peer-limit N (scan only the first N corpus skills with the peer, for a quick look),
--runs N (runs of ours, default 5). Results also go to bench-out/scan.json.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEVERITY = {"low": 0, "medium": 1, "high": 2, "critical": 3}


def our_binary():
    bin_dir = Path(os.environ.get("HERMES_LOOP_BIN", ROOT / "target" / "release"))
    path = bin_dir / "hermes-skill-scan"
    if not path.exists():
        sys.exit(f"bench_scan: {path} not found; run `cargo build --release` first")
    return str(path)


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ours(args):
    cpu0, t0 = child_cpu(), time.perf_counter()
    out = subprocess.run([our_binary(), *args], capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, child_cpu() - cpu0
    if out.returncode not in (0, 1):
        sys.exit(f"bench_scan: hermes-skill-scan failed ({out.returncode}): {out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines()], wall, cpu


def skill_dirs(root):
    from agent.skill_utils import iter_skill_index_files

    return [p.parent for p in iter_skill_index_files(root, "SKILL.md")]


def tree_bytes(dirs):
    total = 0
    for d in dirs:
        for p in d.rglob("*"):
            try:
                if p.is_file() and not p.is_symlink():
                    total += p.stat().st_size
            except OSError:
                pass
    return total


def peer_scan(dirs):
    from tools.skills_guard import scan_skill

    verdicts, findings = [], []
    cpu0, t0 = time.process_time(), time.perf_counter()
    for d in dirs:
        try:
            result = scan_skill(d, source="community")
            verdicts.append(result.verdict)
            findings.append(result.findings)
        except Exception as e:  # a symlink loop crashes it; count as no verdict
            verdicts.append(f"error:{type(e).__name__}")
            findings.append([])
    return verdicts, findings, time.perf_counter() - t0, time.process_time() - cpu0


def throughput(corpus, runs, peer_limit):
    dirs = skill_dirs(corpus)
    total = tree_bytes(dirs)
    walls, cpus, records = [], [], None
    run_ours([str(corpus), "--format", "jsonl", "--fail-on", "never"])  # warm the page cache
    # Each run twice: read by this process through a pipe (what a script consuming the
    # records pays), and written to /dev/null, as `cat` writes. The floor, only reading
    # every file once (find | xargs cat), no scanning at all, runs right after each pair:
    # the host's speed drifts over a bench, and a ratio of two runs seconds apart is not
    # blurred by it the way a ratio of two medians taken a minute apart is.
    null_walls, floor_walls, floor_cpus = [], [], []
    for _ in range(runs):
        records, wall, cpu = run_ours([str(corpus), "--format", "jsonl", "--fail-on", "never"])
        walls.append(wall)
        cpus.append(cpu)
        t0 = time.perf_counter()
        subprocess.run(
            [our_binary(), str(corpus), "--format", "jsonl", "--fail-on", "never"],
            stdout=subprocess.DEVNULL,
            check=False,
        )
        null_walls.append(time.perf_counter() - t0)
        cpu0, t0 = child_cpu(), time.perf_counter()
        subprocess.run(
            f"find '{corpus}' -type f -print0 | xargs -0 cat > /dev/null", shell=True, check=False
        )
        floor_walls.append(time.perf_counter() - t0)
        floor_cpus.append(child_cpu() - cpu0)
    summary = records[-1]
    ours_wall = statistics.median(walls)
    # CPU efficiency on one thread (rayon's idle spinning would blur a parallel run's CPU
    # time), comparable with the peer's single-threaded process time.
    single_walls, single_cpus = [], []
    for _ in range(runs):
        _, wall, cpu = run_ours([str(corpus), "--format", "jsonl", "--fail-on", "never", "-j", "1"])
        single_walls.append(wall)
        single_cpus.append(cpu)
    ours_cpu = statistics.median(single_cpus)
    peer_dirs = dirs[:peer_limit] if peer_limit else dirs
    peer_bytes = tree_bytes(peer_dirs) if peer_limit else total
    verdicts, _, peer_wall, peer_cpu = peer_scan(peer_dirs)
    mb, peer_mb = total / 1e6, peer_bytes / 1e6
    return {
        "corpus": str(corpus),
        "skills": len(dirs),
        "mb": round(mb, 2),
        "ours": {
            "wall_s": round(ours_wall, 3),
            "wall_mean_s": round(statistics.mean(walls), 3),
            "wall_p90_s": round(sorted(walls)[int(len(walls) * 0.9)], 3),
            "wall_to_null_s": round(statistics.median(null_walls), 3),
            "cpu_s": round(ours_cpu, 3),
            "mb_per_s": round(mb / ours_wall, 1),
            "mb_per_cpu_s": round(mb / ours_cpu, 1),
            "one_thread_wall_s": round(statistics.median(single_walls), 3),
            "safe": summary["safe"],
            "caution": summary["caution"],
            "dangerous": summary["dangerous"],
            "runs": runs,
        },
        "read_floor": {
            "wall_s": round(statistics.median(floor_walls), 3),
            "cpu_s": round(statistics.median(floor_cpus), 3),
            # The median of each run's own ratio (scan to /dev/null ÷ the floor just after).
            "paired_ratio": round(
                statistics.median(n / f for n, f in zip(null_walls, floor_walls)), 2
            ),
            "paired_ratios": [round(n / f, 2) for n, f in zip(null_walls, floor_walls)],
        },
        "peer": {
            "skills": len(peer_dirs),
            "mb": round(peer_mb, 2),
            "wall_s": round(peer_wall, 2),
            "cpu_s": round(peer_cpu, 2),
            "mb_per_s": round(peer_mb / peer_wall, 3),
            "mb_per_cpu_s": round(peer_mb / peer_cpu, 3),
            "safe": verdicts.count("safe"),
            "caution": verdicts.count("caution"),
            "dangerous": verdicts.count("dangerous"),
            "errors": sum(1 for v in verdicts if v.startswith("error")),
        },
    }


def startup(runs=20):
    every = ROOT / "testdata" / "guard" / "every-rule"
    walls, cpus = [], []
    for _ in range(runs):
        _, wall, cpu = run_ours([str(every), "--format", "jsonl", "--fail-on", "never", "-j", "1"])
        walls.append(wall)
        cpus.append(cpu)
    explain = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([our_binary(), "--explain", "curl-pipe-shell"], capture_output=True, check=True)
        explain.append(time.perf_counter() - t0)
    return {
        "every_rule_ms": round(statistics.median(walls) * 1000, 1),
        "every_rule_cpu_ms": round(statistics.median(cpus) * 1000, 1),
        "explain_ms": round(statistics.median(explain) * 1000, 1),
    }


def anchor_walk(corpus):
    """target/release/examples/anchor-walk over the corpus, built (or brought up to date)
    first, so it never times an older walk than the binary's."""
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "anchor-walk"],
                   cwd=ROOT, check=True)
    example = ROOT / "target" / "release" / "examples" / "anchor-walk"
    out = subprocess.run([str(example), str(corpus)], capture_output=True, text=True, check=True)
    ms, ns_per_byte, size, occurrences = out.stdout.split()
    return {"ms": float(ms), "ns_per_byte": float(ns_per_byte), "bytes": int(size),
            "occurrences": int(occurrences)}


def detection():
    labels = json.loads((ROOT / "testdata" / "guard" / "labels.json").read_text())
    malicious = [l for l in labels if l["sample"].startswith("malicious/")]
    records, _, _ = run_ours(
        [str(ROOT / "testdata" / "guard" / "malicious"), "--format", "jsonl", "--fail-on", "never"]
    )
    base = str(ROOT / "testdata" / "guard") + "/"
    ours = {}
    for r in records:
        if r["type"] == "finding":
            ours.setdefault(r["path"].replace(base, ""), []).append((r["category"], r["severity"]))
    dirs = [ROOT / "testdata" / "guard" / l["sample"] for l in malicious]
    _, peer_findings, _, _ = peer_scan(dirs)
    rows = {}
    for label, theirs in zip(malicious, peer_findings):
        row = rows.setdefault(label["category"], {"samples": 0, "ours": 0, "ours_at": 0, "peer": 0, "peer_at": 0})
        row["samples"] += 1
        want = SEVERITY[label["severity"]]
        mine = [s for c, s in ours.get(label["sample"], []) if c == label["category"]]
        peer = [f.severity for f in theirs if f.category == label["category"]]
        row["ours"] += bool(mine)
        row["ours_at"] += any(SEVERITY[s] >= want for s in mine)
        row["peer"] += bool(peer)
        row["peer_at"] += any(SEVERITY[s] >= want for s in peer)
    return rows


def main():
    parser = argparse.ArgumentParser()
    default_corpus = ROOT.parent / "shared" / "corpus" / "skills-public"
    if not default_corpus.is_dir():
        default_corpus = ROOT / "testdata" / "skills-sample"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--peer-limit", type=int, default=0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="bench-scan-home-")
    sys.path.insert(0, str(ROOT))

    t = throughput(args.corpus.resolve(), args.runs, args.peer_limit)
    s = startup()
    w = anchor_walk(args.corpus.resolve())
    d = detection()
    ours, peer = t["ours"], t["peer"]
    print(f"corpus: {t['corpus']} ({t['skills']} skills, {t['mb']} MB)")
    print(f"{'':24}{'hermes-skill-scan':>20}{'Hermes scan_skill':>20}{'ratio':>10}")
    print(f"{'wall seconds':24}{ours['wall_s']:>20}{peer['wall_s']:>20}")
    print(f"{'  mean, 90th percentile':24}{'%s, %s' % (ours['wall_mean_s'], ours['wall_p90_s']):>20}")
    print(f"{'  output to /dev/null':24}{ours['wall_to_null_s']:>20}")
    print(f"{'MB/s (wall)':24}{ours['mb_per_s']:>20}{peer['mb_per_s']:>20}{ours['mb_per_s'] / peer['mb_per_s']:>9.0f}x")
    print(f"{'one thread, wall s':24}{ours['one_thread_wall_s']:>20}")
    print(f"{'MB per CPU-second':24}{ours['mb_per_cpu_s']:>20}{peer['mb_per_cpu_s']:>20}{ours['mb_per_cpu_s'] / peer['mb_per_cpu_s']:>9.0f}x")
    floor = t["read_floor"]
    print(f"{'reading the files only':24}{floor['wall_s']:>20}  (find | xargs cat; {floor['cpu_s']} s CPU)")
    print(
        f"{'scan / reading':24}{ours['wall_s'] / floor['wall_s']:>19.2f}x  "
        f"(output to /dev/null: {ours['wall_to_null_s'] / floor['wall_s']:.2f}x)"
    )
    print(
        f"{'  run by run':24}{floor['paired_ratio']:>19.2f}x  (median of each run's scan to "
        f"/dev/null ÷ the reading just after: {', '.join(map(str, floor['paired_ratios']))})"
    )
    print(f"{'verdicts s/c/d':24}{'%d/%d/%d' % (ours['safe'], ours['caution'], ours['dangerous']):>20}{'%d/%d/%d' % (peer['safe'], peer['caution'], peer['dangerous']):>20}")
    if peer["skills"] != t["skills"]:
        print(f"(peer scanned the first {peer['skills']} skills, {peer['mb']} MB)")
    print(
        f"start-up: every rule built and one skill scanned: {s['every_rule_ms']} ms wall, "
        f"{s['every_rule_cpu_ms']} ms CPU (median of 20, -j 1); --explain: {s['explain_ms']} ms"
    )
    print(
        f"anchor walk alone: {w['ms']} ms, {w['ns_per_byte']} ns a byte "
        f"({w['bytes']} bytes in memory, {w['occurrences']} occurrences; best of 40)"
    )
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print()
    print(f"{'category':22}{'samples':>8}{'ours':>6}{'at sev':>8}{'peer':>6}{'at sev':>8}")
    for category, row in sorted(d.items()):
        print(f"{category:22}{row['samples']:>8}{row['ours']:>6}{row['ours_at']:>8}{row['peer']:>6}{row['peer_at']:>8}")
    totals = {k: sum(r[k] for r in d.values()) for k in ["samples", "ours", "ours_at", "peer", "peer_at"]}
    print(f"{'total':22}{totals['samples']:>8}{totals['ours']:>6}{totals['ours_at']:>8}{totals['peer']:>6}{totals['peer_at']:>8}")
    print(f"benign corpus called dangerous: ours {ours['dangerous']}, peer {peer['dangerous']} (caution: ours {ours['caution']}, peer {peer['caution']})")

    out = ROOT / "bench-out"
    out.mkdir(exist_ok=True)
    (out / "scan.json").write_text(json.dumps({"throughput": t, "startup": s, "anchor_walk": w, "detection": d}, indent=2) + "\n")


if __name__ == "__main__":
    main()
