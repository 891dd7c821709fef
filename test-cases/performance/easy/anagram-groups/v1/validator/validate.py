"""Check that an input of anagram-groups is one the rules allow:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked here too, so the file stands on its own.
"""

import json
import sys

MOST_WORDS, LONGEST = 100_000, 100
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"words"}:
        return "the input must be an object with exactly the key words"
    words = document["words"]
    if not isinstance(words, list):
        return "words must be an array"
    if len(words) > MOST_WORDS:
        return f"{len(words)} words: at most {MOST_WORDS}"
    for index, word in enumerate(words):
        if not isinstance(word, str):
            return f"words[{index}] is not a string"
        if not 1 <= len(word) <= LONGEST:
            return f"words[{index}] has {len(word)} letters: it must have 1 … {LONGEST}"
        if not set(word) <= LETTERS:
            return f"words[{index}] is {word!r}: only lowercase ASCII letters a … z are allowed"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
