"""Check that an input of kth-smallest is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

LIMIT = 100_000
SPREAD = 1_000_000_000


def problem(document) -> str | None:
    values, queries = document["values"], document["queries"]
    if len(values) > LIMIT:
        return f"{len(values)} values: at most {LIMIT}"
    if len(queries) > LIMIT:
        return f"{len(queries)} queries: at most {LIMIT}"
    for index, value in enumerate(values):
        if not -SPREAD <= value <= SPREAD:
            return f"values[{index}] is {value}: it must lie in [-{SPREAD}, {SPREAD}]"
    for index, k in enumerate(queries):
        if not 1 <= k <= len(values):
            return f"queries[{index}] is {k}: it must have 1 <= k <= {len(values)} (the number of values)"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
