"""Check that an input of pair-sums is one the rules allow, beyond what its JSON Schema says:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked again here, so the file stands on its own.
"""

import json
import sys

MOST_VALUES, MOST_TARGETS = 1_000, 10_000
VALUE, TARGET = 1_000_000_000, 2_000_000_000


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"values", "targets"}:
        return "the input must be an object with exactly the keys values and targets"
    values, targets = document["values"], document["targets"]
    if not isinstance(values, list) or len(values) > MOST_VALUES:
        return f"values must be an array of at most {MOST_VALUES} integers"
    if not isinstance(targets, list) or len(targets) > MOST_TARGETS:
        return f"targets must be an array of at most {MOST_TARGETS} integers"
    for index, value in enumerate(values):
        if not whole(value) or not -VALUE <= value <= VALUE:
            return f"values[{index}] is {value!r}: it must be an integer in [-{VALUE}, {VALUE}]"
    for index, target in enumerate(targets):
        if not whole(target) or not -TARGET <= target <= TARGET:
            return f"targets[{index}] is {target!r}: it must be an integer in [-{TARGET}, {TARGET}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
