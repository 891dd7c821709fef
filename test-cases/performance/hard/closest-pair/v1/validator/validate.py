"""Check that an input of closest-pair is one the rules allow, beyond what its JSON Schema says:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked here too, so the file stands on its own.
"""

import json
import sys

FEWEST, MOST, REACH = 2, 100_000, 1_000_000_000


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"points"}:
        return "the input must be an object with exactly the key points"
    points = document["points"]
    if not isinstance(points, list) or not FEWEST <= len(points) <= MOST:
        return f"points must be an array of {FEWEST} to {MOST} points"
    for index, point in enumerate(points):
        if not isinstance(point, list) or len(point) != 2 or not all(whole(part) for part in point):
            return f"points[{index}] must be [x, y], two integers"
        if not all(-REACH <= part <= REACH for part in point):
            return f"points[{index}] is {point}: each coordinate must be -{REACH} … {REACH}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
