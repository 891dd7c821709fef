"""Check that an input of recurrence is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
the order d (1 … 30) is the length of both `coefficients` and `initial`, every value is a
residue (0 … 998,244,352), and every query is a decimal string for an integer from 0 to 10^18,
without sign or leading zeros. The schema's limits are checked again here, so the file stands
on its own.
"""

import json
import sys

MODULUS, MOST_ORDER, MOST_QUERIES, LARGEST = 998_244_353, 30, 1_000, 10 ** 18
DIGITS = frozenset("0123456789")


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"coefficients", "initial", "queries"}:
        return "the input must be an object with exactly the keys coefficients, initial and queries"
    coefficients, initial, queries = document["coefficients"], document["initial"], document["queries"]
    for name, values in (("coefficients", coefficients), ("initial", initial)):
        if not isinstance(values, list) or not 1 <= len(values) <= MOST_ORDER:
            return f"{name} must be an array of 1 … {MOST_ORDER} integers"
        for index, value in enumerate(values):
            if not whole(value) or not 0 <= value < MODULUS:
                return f"{name}[{index}] is {value!r}: it must be an integer in [0, {MODULUS - 1}]"
    if len(coefficients) != len(initial):
        return (f"coefficients has {len(coefficients)} values and initial {len(initial)}: both must have d, "
                "the order of the recurrence")
    if not isinstance(queries, list) or not 1 <= len(queries) <= MOST_QUERIES:
        return f"queries must be an array of 1 … {MOST_QUERIES} strings"
    for index, query in enumerate(queries):
        if not isinstance(query, str) or not query or not set(query) <= DIGITS:
            return f"queries[{index}] is {query!r}: it must be a string of decimal digits"
        if len(query) > 1 and query[0] == "0":
            return f"queries[{index}] is {query!r}: no leading zeros"
        if len(query) > 19 or int(query) > LARGEST:
            return f"queries[{index}] is {query!r}: n must be at most 10^18"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
