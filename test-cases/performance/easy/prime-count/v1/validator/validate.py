"""Check that an input of prime-count is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

LIMIT = 100_000
TOP = 2_000_000


def problem(document) -> str | None:
    queries = document["queries"]
    if len(queries) > LIMIT:
        return f"{len(queries)} queries: at most {LIMIT}"
    for index, n in enumerate(queries):
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= TOP:
            return f"queries[{index}] is {n!r}: it must be an integer in [0, {TOP}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
