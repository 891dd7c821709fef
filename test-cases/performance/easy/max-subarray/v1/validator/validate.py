"""Check that an input of max-subarray is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

LIMIT = 100_000
SPREAD = 1_000_000_000


def problem(document) -> str | None:
    values = document["values"]
    if not values:
        return "no values: the array holds at least one"
    if len(values) > LIMIT:
        return f"{len(values)} values: at most {LIMIT}"
    for index, value in enumerate(values):
        if not -SPREAD <= value <= SPREAD:
            return f"values[{index}] is {value}: it must lie in [-{SPREAD}, {SPREAD}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
