"""Check that an input of range-min is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked here too, so the file stands on its own.
"""

import json
import sys

LIMIT, SPREAD = 100_000, 1_000_000


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"values", "queries"}:
        return "the input must be an object with exactly the keys values and queries"
    values, queries = document["values"], document["queries"]
    if not isinstance(values, list) or not 1 <= len(values) <= LIMIT:
        return f"values must be an array of 1 to {LIMIT} integers"
    for index, value in enumerate(values):
        if not whole(value) or not -SPREAD <= value <= SPREAD:
            return f"values[{index}] is {value!r}: it must be an integer from {-SPREAD} to {SPREAD}"
    if not isinstance(queries, list) or len(queries) > LIMIT:
        return f"queries must be an array of at most {LIMIT} ranges"
    for index, query in enumerate(queries):
        if not isinstance(query, list) or len(query) != 2 or not all(whole(end) for end in query):
            return f"queries[{index}] must be [left, right], two integers"
        left, right = query
        if not 0 <= left < right <= len(values):
            return f"queries[{index}] is [{left}, {right}]: it must have 0 <= left < right <= {len(values)}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
