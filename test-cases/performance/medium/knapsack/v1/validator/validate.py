"""Check that an input of knapsack is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked here too, so the file stands on its own.
"""

import json
import sys

MOST_ITEMS, MOST_CAPACITY, HEAVIEST, DEAREST, MOST_CELLS = 1_000, 100_000, 100_000, 1_000, 5_000_000


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"capacity", "items"}:
        return "the input must be an object with exactly the keys capacity and items"
    capacity, items = document["capacity"], document["items"]
    if not whole(capacity) or not 0 <= capacity <= MOST_CAPACITY:
        return f"capacity is {capacity!r}: it must be an integer from 0 to {MOST_CAPACITY}"
    if not isinstance(items, list) or len(items) > MOST_ITEMS:
        return f"items must be an array of at most {MOST_ITEMS} items"
    for index, item in enumerate(items):
        if not isinstance(item, list) or len(item) != 2 or not all(whole(part) for part in item):
            return f"items[{index}] must be [weight, value], two integers"
        weight, value = item
        if not 1 <= weight <= HEAVIEST:
            return f"items[{index}] has weight {weight}: it must be 1 … {HEAVIEST}"
        if not 1 <= value <= DEAREST:
            return f"items[{index}] has value {value}: it must be 1 … {DEAREST}"
    if len(items) * capacity > MOST_CELLS:
        return (f"{len(items)} items × capacity {capacity} = {len(items) * capacity:,}: "
                f"the product must be at most {MOST_CELLS:,}")
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
