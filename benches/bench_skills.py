#!/usr/bin/env python3
"""hermes-skills against Python Hermes 0.19.0 on the same home, side by side.

The public skill corpus (../shared/corpus/skills-public, or testdata/skills-sample) is
copied into a scratch HERMES_HOME's skills/ directory. For each operation we time Python's
function in-process (imports already done, caches cleared, so only the work is counted)
and our binary as a whole process (start-up included), median of several runs.

Run by benches/run.sh with the peer's python; HERMES_LOOP_BIN points at our release build.
"""

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(os.environ.get("HERMES_LOOP_BIN", REPO / "target" / "release")) / "hermes-skills"
CORPUS = pathlib.Path(os.environ.get("HERMES_CORPUS", REPO / ".." / "shared" / "corpus" / "skills-public"))
if not CORPUS.is_dir():
    CORPUS = REPO / "testdata" / "skills-sample"

HOME = pathlib.Path(tempfile.mkdtemp(prefix="bench-skills-"))
os.environ["HERMES_HOME"] = str(HOME)
os.environ.pop("HERMES_PLATFORM", None)
shutil.copytree(CORPUS, HOME / "skills", ignore=shutil.ignore_patterns("SOURCES.md"))
(HOME / "config.yaml").write_text("skills:\n  guard_agent_created: false\n")

# Imports after HERMES_HOME is set: Hermes resolves paths at import time.
from agent import prompt_builder  # noqa: E402
from tools import skill_usage, skills_tool  # noqa: E402


def median_seconds(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ours(*args, stdin=None):
    subprocess.run([str(BIN), *args], input=stdin, stdout=subprocess.DEVNULL, check=True)


def python_list():
    skills_tool._SKILLS_CACHE.clear()
    skills_tool.skills_list()


def python_prompt():
    prompt_builder.clear_skills_system_prompt_cache(clear_snapshot=True)
    prompt_builder.build_skills_system_prompt()


def count_skills():
    return json.loads(skills_tool.skills_list())["count"]


def main():
    n_skills = count_skills()
    name = json.loads(skills_tool.skills_list())["skills"][n_skills // 2]["name"]
    rows = []

    py = median_seconds(python_list, 5)
    rs = median_seconds(lambda: ours("list", "--format", "json"), 5)
    rows.append((f"list ({n_skills} skills)", py, rs))

    # The same listing as whole processes: what a script calling each one waits for.
    py_cmd = [sys.executable, "-c", "from tools.skills_tool import skills_list; skills_list()"]
    py = median_seconds(lambda: subprocess.run(py_cmd, stdout=subprocess.DEVNULL, check=True), 3)
    rows.append(("list, whole process", py, rs))

    py = median_seconds(python_prompt, 5)
    rs = median_seconds(lambda: ours("prompt-index"), 5)
    rows.append(("prompt index (cold)", py, rs))

    py = median_seconds(lambda: skills_tool.skill_view(name), 3)
    rs = median_seconds(lambda: ours("view", name, "--no-count", "--format", "json"), 3)
    rows.append((f"view one skill by name", py, rs))

    # Counter bumps: 500 locked read-modify-writes of .usage.json each (view + use).
    bumps = 500
    py = median_seconds(lambda: [(skill_usage.bump_view(name), skill_usage.bump_use(name)) for _ in range(bumps)], 1)
    small = pathlib.Path(tempfile.mkdtemp(prefix="bench-skills-small-"))
    (small / "skills" / "one").mkdir(parents=True)
    (small / "skills" / "one" / "SKILL.md").write_text("---\nname: one\ndescription: One.\n---\nbody\n")
    (small / "config.yaml").write_text("skills:\n  guard_agent_created: false\n")
    lines = "".join('{"tool": "skill_view", "name": "one"}\n' for _ in range(bumps)).encode()
    env = dict(os.environ, HERMES_HOME=str(small))
    start = time.perf_counter()
    subprocess.run([str(BIN), "apply"], input=lines, stdout=subprocess.DEVNULL, check=True, env=env)
    rs = time.perf_counter() - start
    rows.append((f"{bumps} views with counter bumps", py, rs))

    print(f"corpus: {CORPUS} ({n_skills} listed skills)")
    print(f"{'operation':<32} {'python s':>10} {'ours s':>10} {'speed-up':>9}")
    for label, py, rs in rows:
        print(f"{label:<32} {py:>10.4f} {rs:>10.4f} {py / rs:>8.1f}x")
    shutil.rmtree(HOME, ignore_errors=True)
    shutil.rmtree(small, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
