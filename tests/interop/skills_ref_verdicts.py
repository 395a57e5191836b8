"""Runs the agentskills.io reference validator (skills-ref 0.1.1) on every skill under a root
and prints one JSON line per skill: {"dir": <path relative to root>, "errors": [...]}.

One process for the whole corpus: `agentskills validate` takes one skill per run, and 1,444
interpreter starts would dominate the test. `validate()` is the function that command calls.
"""

import json
import os
import sys
from pathlib import Path

from skills_ref.validator import validate


def main() -> None:
    root = Path(sys.argv[1])
    for here, dirs, files in os.walk(root):
        dirs.sort()
        if "SKILL.md" in files:
            # A folder holding SKILL.md is one skill, everything below it its files (a
            # SKILL.md under assets/ is a sample, not a skill): how our scanner walks.
            dirs[:] = []
            skill = Path(here)
            try:
                errors = validate(skill)
            except Exception as e:  # the validator's own crash is a verdict too
                errors = [f"validator raised {type(e).__name__}: {e}"]
            rel = skill.relative_to(root).as_posix()
            print(json.dumps({"dir": rel, "errors": errors}, ensure_ascii=False))


if __name__ == "__main__":
    main()
