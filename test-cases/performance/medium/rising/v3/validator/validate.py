"""Check that an input of rising is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

LIMIT = 100_000

with open(sys.argv[1], encoding="utf-8") as handle:
    values = json.load(handle)["values"]
if len(values) > LIMIT:
    print(f"{len(values)} values: at most {LIMIT}")
    sys.exit(1)
