"""Check that an input of pattern-count is one the rules allow, beyond what its JSON Schema says:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked again here, so the file stands on its own.
"""

import json
import sys

MOST_TEXT, MOST_PATTERN = 500_000, 100_000
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"text", "pattern"}:
        return "the input must be an object with exactly the keys text and pattern"
    text, pattern = document["text"], document["pattern"]
    if not isinstance(text, str) or not isinstance(pattern, str):
        return "text and pattern must both be strings"
    if len(text) > MOST_TEXT:
        return f"the text has {len(text)} letters: at most {MOST_TEXT}"
    if not 1 <= len(pattern) <= MOST_PATTERN:
        return f"the pattern has {len(pattern)} letters: it must have 1 … {MOST_PATTERN}"
    for name, value in (("text", text), ("pattern", pattern)):
        stray = next((index for index, letter in enumerate(value) if letter not in LETTERS), None)
        if stray is not None:
            return f"{name}[{stray}] is {value[stray]!r}: only lowercase ASCII letters a … z are allowed"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
