"""Check that an input of binomial-queries is one the rules allow:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
1 to 100,000 queries, each a pair of integers [n, k] with 0 <= n, k <= 1,000,000 (k may exceed
n). The schema says as much; it is checked again here, so the file stands on its own.
"""

import json
import sys

MOST_QUERIES, LARGEST = 100_000, 1_000_000


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"queries"}:
        return "the input must be an object with exactly the key queries"
    queries = document["queries"]
    if not isinstance(queries, list) or not 1 <= len(queries) <= MOST_QUERIES:
        return f"queries must be an array of 1 … {MOST_QUERIES} queries"
    for index, query in enumerate(queries):
        if not isinstance(query, list) or len(query) != 2 or not all(whole(part) for part in query):
            return f"queries[{index}] must be [n, k], two integers"
        if not all(0 <= part <= LARGEST for part in query):
            return f"queries[{index}] is {query}: n and k must both be in [0, {LARGEST}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
