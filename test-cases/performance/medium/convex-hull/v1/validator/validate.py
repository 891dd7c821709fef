"""Check that an input of convex-hull is one the rules allow:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
1 to 200,000 points, each a pair of integers [x, y] with |x|, |y| at most 10^9 (repeats
allowed). The schema says as much; it is checked again here, so the file stands on its own.
"""

import json
import sys

MOST_POINTS, REACH = 200_000, 1_000_000_000


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"points"}:
        return "the input must be an object with exactly the key points"
    points = document["points"]
    if not isinstance(points, list) or not 1 <= len(points) <= MOST_POINTS:
        return f"points must be an array of 1 … {MOST_POINTS} points"
    for index, point in enumerate(points):
        if not isinstance(point, list) or len(point) != 2 or not all(whole(part) for part in point):
            return f"points[{index}] must be [x, y], two integers"
        if not all(-REACH <= part <= REACH for part in point):
            return f"points[{index}] is {point}: each coordinate must be in [-{REACH}, {REACH}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
