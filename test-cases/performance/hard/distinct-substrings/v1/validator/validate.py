"""Check that an input of distinct-substrings is one the rules allow, beyond what its JSON Schema
says:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked again here, so the file stands on its own.
"""

import json
import sys

MOST_TEXT = 100_000
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"text"}:
        return "the input must be an object with exactly the key text"
    text = document["text"]
    if not isinstance(text, str):
        return "text must be a string"
    if len(text) > MOST_TEXT:
        return f"the text has {len(text)} letters: at most {MOST_TEXT}"
    stray = next((index for index, letter in enumerate(text) if letter not in LETTERS), None)
    if stray is not None:
        return f"text[{stray}] is {text[stray]!r}: only lowercase ASCII letters a … z are allowed"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
