"""Check that an input of multi-pattern is one the rules allow, beyond what its JSON Schema can
say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
the text and every pattern are lowercase ASCII letters, each pattern has 1 to 2,000 of them, and
the patterns hold at most 200,000 letters in all. The schema's limits are checked again here, so
the file stands on its own.
"""

import json
import sys

LONGEST_TEXT, MOST_PATTERNS, LONGEST_PATTERN, MOST_LETTERS = 200_000, 20_000, 2_000, 200_000
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def lowercase(value: str) -> bool:
    return set(value) <= LETTERS


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"text", "patterns"}:
        return "the input must be an object with exactly the keys text and patterns"
    text, patterns = document["text"], document["patterns"]
    if not isinstance(text, str) or len(text) > LONGEST_TEXT:
        return f"text must be a string of at most {LONGEST_TEXT} letters"
    if not lowercase(text):
        return "text must hold lowercase ASCII letters a … z only"
    if not isinstance(patterns, list) or not 1 <= len(patterns) <= MOST_PATTERNS:
        return f"patterns must be an array of 1 to {MOST_PATTERNS} strings"
    letters = 0
    for index, pattern in enumerate(patterns):
        if not isinstance(pattern, str) or not 1 <= len(pattern) <= LONGEST_PATTERN:
            return f"patterns[{index}] must be a string of 1 to {LONGEST_PATTERN} letters"
        if not lowercase(pattern):
            return f"patterns[{index}] must hold lowercase ASCII letters a … z only"
        letters += len(pattern)
    if letters > MOST_LETTERS:
        return f"the patterns hold {letters} letters in all: at most {MOST_LETTERS} are allowed"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
