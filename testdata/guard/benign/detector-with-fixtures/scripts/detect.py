import re
import sys

PATTERNS = [r"ignore (all )?previous instructions", r"do anything now"]

text = open(sys.argv[1]).read()
for pattern in PATTERNS:
    if re.search(pattern, text, re.I):
        print("suspicious:", pattern)
