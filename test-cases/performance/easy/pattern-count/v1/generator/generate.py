"""Write the held-out inputs of pattern-count v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261211


def reference(document: dict) -> dict:
    """The plainest correct answer: look for the pattern again one position after each match."""
    text, pattern = document["text"], document["pattern"]
    count, first = 0, -1
    at = text.find(pattern)
    while at != -1:
        if count == 0:
            first = at
        count += 1
        at = text.find(pattern, at + 1)
    return {"count": count, "first": first}


def random_case(chooser: random.Random, length: int, alphabet: str, pattern_length: int) -> dict:
    """Random text; the pattern is a piece of it, so it occurs at least once."""
    text = "".join(chooser.choice(alphabet) for _ in range(length))
    start = chooser.randrange(length - pattern_length + 1)
    return {"text": text, "pattern": text[start:start + pattern_length]}


def periodic_case(chooser: random.Random, length: int, pattern_length: int) -> dict:
    """The block `ab` repeated, with a defect (`aa`) every few pattern lengths; the pattern is
    `ab` repeated: it nearly matches at every other position, and matches between defects."""
    text = []
    while len(text) < length:
        text.extend("ab" * chooser.randint(pattern_length // 4, 3 * pattern_length // 2))
        text.append("a")
    return {"text": "".join(text[:length]), "pattern": "ab" * (pattern_length // 2)}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        # Matches overlap: "aa" starts at 0, 1, 2 and 3 of "aaaaa".
        "smoke/overlap": {"text": "aaaaa", "pattern": "aa"},
        # After a partial match the scan must fall back to the pattern's border, not to its start.
        "smoke/fallback": {"text": "aabaabaaabaaab", "pattern": "aabaaab"},
        "smoke/longer-pattern": {"text": "abc", "pattern": "abcd"},
        "smoke/empty-text": {"text": "", "pattern": "a"},
        "smoke/whole": {"text": "abcab", "pattern": "abcab"},
        "cases/small": random_case(chooser, 20_000, "ab", 10),
        "cases/large": random_case(chooser, 300_000, "abc", 8),
        "cases/periodic": periodic_case(chooser, 56_000, 1_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"text": "abababa", "pattern": "aba"},
        f"{SAMPLES}/medium": random_case(samples, 5_000, "ab", 8),
        f"{SAMPLES}/periodic": periodic_case(samples, 4_000, 200),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
