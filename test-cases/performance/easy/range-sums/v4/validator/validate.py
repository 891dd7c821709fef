"""Check that an input of range-sums is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

LIMIT = 100_000


def problem(document) -> str | None:
    values, queries = document["values"], document["queries"]
    if len(values) > LIMIT:
        return f"{len(values)} values: at most {LIMIT}"
    if len(queries) > LIMIT:
        return f"{len(queries)} queries: at most {LIMIT}"
    for index, (left, right) in enumerate(queries):
        if not 0 <= left <= right <= len(values):
            return f"queries[{index}] is [{left}, {right}]: it must have 0 <= left <= right <= {len(values)}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
