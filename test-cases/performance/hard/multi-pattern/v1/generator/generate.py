"""Write the held-out inputs of multi-pattern v1, the public samples of its workspace, and every
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
SEED = 20261531


def occurrences(text: str, pattern: str) -> int:
    """Every place the pattern starts in the text, overlaps included, found one after another."""
    found, at = 0, text.find(pattern)
    while at >= 0:
        found += 1
        at = text.find(pattern, at + 1)
    return found


def reference(document: dict) -> dict:
    """Each pattern searched for on its own (a repeated pattern is searched for once)."""
    text, known = document["text"], {}
    counts = []
    for pattern in document["patterns"]:
        if pattern not in known:
            known[pattern] = occurrences(text, pattern)
        counts.append(known[pattern])
    return {"counts": counts}


def random_text(chooser: random.Random, length: int, letters: str) -> str:
    return "".join(chooser.choice(letters) for _ in range(length))


def dictionary(chooser: random.Random, text: str, letters: str, count: int, shortest: int, longest: int,
               foreign: float) -> list[str]:
    """`count` patterns of `shortest` … `longest` letters: most are pieces of the text, given with
    a few of their own prefixes and suffixes (so that patterns share beginnings and end inside one
    another), and a share `foreign` are random strings over the same letters, most of which do not
    occur."""
    patterns: list[str] = []
    while len(patterns) < count:
        size = chooser.randint(shortest, longest)
        if chooser.random() < foreign:
            patterns.append(random_text(chooser, size, letters))
            continue
        start = chooser.randrange(len(text) - size + 1)
        piece = text[start:start + size]
        patterns.append(piece)
        for _ in range(chooser.randint(0, 3)):
            cut = chooser.randint(shortest, size)
            patterns.append(piece[:cut] if chooser.randrange(2) else piece[size - cut:])
    patterns = patterns[:count]
    chooser.shuffle(patterns)
    return patterns


def case(chooser: random.Random, length: int, letters: str, count: int, shortest: int, longest: int,
         foreign: float) -> dict:
    text = random_text(chooser, length, letters)
    return {"text": text, "patterns": dictionary(chooser, text, letters, count, shortest, longest, foreign)}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        # Overlapping occurrences all count: `aa` occurs four times in `aaaaa`.
        "smoke/overlap": {"text": "aaaaa", "patterns": ["a", "aa", "aaa", "aaaaa", "aaaaaa"]},
        # Patterns that end inside others (`cd` and `d` are suffixes of `bcd` and of `abcd`): an
        # automaton must count them wherever a longer one is read, not only where it stops.
        "smoke/suffixes": {"text": "abcdbcdcdc", "patterns": ["abcd", "bcd", "cd", "d", "abc", "dc", "cdc"]},
        # The same pattern three times: each one is answered, in its place.
        "smoke/repeated": {"text": "abababab", "patterns": ["ab", "ba", "ab", "abab", "ab", "b"]},
        # Patterns longer than the text (and one exactly as long).
        "smoke/longer": {"text": "abab", "patterns": ["ababa", "abab", "babab", "b", "ababababab"]},
        # An empty text: nothing occurs.
        "smoke/empty-text": {"text": "", "patterns": ["a", "ab", "z"]},
        # Letters the text does not have, alone, at the end and in the middle of a pattern.
        "smoke/foreign": {"text": "abcabcab", "patterns": ["abd", "z", "ca", "zab", "bzc", "cab"]},
        "cases/small": case(chooser, 20_000, "ab", 300, 1, 16, 0.2),
        "cases/large": case(chooser, 100_000, "abcd", 20, 2, 400, 0.2),
        "cases/dictionary": case(chooser, 12_000, "abc", 1_500, 3, 24, 0.2),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"text": "abcabcab", "patterns": ["abc", "bc", "cab", "b", "abcd", "bc"]},
        f"{SAMPLES}/medium": case(samples, 5_000, "ab", 200, 1, 12, 0.2),
        f"{SAMPLES}/dictionary": case(samples, 10_000, "abc", 1_000, 3, 20, 0.2),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
