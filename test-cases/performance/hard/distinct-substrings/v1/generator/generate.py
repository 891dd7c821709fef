"""Write the held-out inputs of distinct-substrings v1, the public samples of its workspace, and
every expected answer, from a plain reference.

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
SEED = 20261401


def suffix_array(text: str) -> list[int]:
    """Sort the suffixes by prefix doubling, plainly: rank each suffix by its first k letters,
    then by its first 2k as the pair (rank of the first k, rank of the next k), until every rank
    differs."""
    n = len(text)
    rank = [ord(letter) for letter in text]
    order = list(range(n))
    k = 1
    while n > 1:
        key = [(rank[i], rank[i + k] if i + k < n else -1) for i in range(n)]
        order.sort(key=key.__getitem__)
        fresh = [0] * n
        for before, after in zip(order, order[1:]):
            fresh[after] = fresh[before] + (key[before] != key[after])
        rank = fresh
        if rank[order[-1]] == n - 1:
            break
        k *= 2
    return order


def reference(document: dict) -> dict:
    """Every substring is a prefix of a suffix; in sorted order, a suffix's first `lcp` prefixes
    (its longest common prefix with the suffix before it) were counted already. Kasai's method
    finds every such lcp from the suffix array."""
    text = document["text"]
    n = len(text)
    order = suffix_array(text)
    where = [0] * n
    for place, start in enumerate(order):
        where[start] = place
    shared, common = 0, 0
    for start in range(n):
        if where[start] == 0:
            common = 0
            continue
        other = order[where[start] - 1]
        while start + common < n and other + common < n and text[start + common] == text[other + common]:
            common += 1
        shared += common
        common = max(common - 1, 0)
    return {"distinct": n * (n + 1) // 2 - shared}


def random_text(chooser: random.Random, length: int, alphabet: str) -> str:
    return "".join(chooser.choice(alphabet) for _ in range(length))


def copied_text(chooser: random.Random, length: int, alphabet: str, shortest: int, longest: int) -> str:
    """Repetitive, as a genome is: after a random start, each piece is a copy of an earlier stretch
    (`shortest` … `longest` letters) with a letter changed here and there, so suffixes agree for
    hundreds of letters before they differ."""
    letters = list(random_text(chooser, longest, alphabet))
    while len(letters) < length:
        size = chooser.randint(shortest, longest)
        start = chooser.randrange(len(letters) - shortest + 1)
        piece = letters[start:start + size]
        for _ in range(max(1, len(piece) // 200)):
            piece[chooser.randrange(len(piece))] = chooser.choice(alphabet)
        letters.extend(piece)
    return "".join(letters[:length])


def fibonacci_word(length: int) -> str:
    """`a`, `ab`, `aba`, `abaab`, …: each word the previous two joined, cut to `length` letters.
    Aperiodic, but as repetitive as a text can be: its suffixes share prefixes of up to a third of
    its length."""
    before, word = "a", "ab"
    while len(word) < length:
        before, word = word, word + before
    return word[:length]


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/empty": {"text": ""},
        "smoke/single": {"text": "d"},
        # One letter repeated: only its n lengths are different substrings.
        "smoke/same-letter": {"text": "a" * 12},
        # "bc" occurs twice, "bcb" and "cbc" once each: a suffix automaton must split a state here.
        "smoke/split": {"text": "abcbcd"},
        "smoke/periodic": {"text": "abcabcabca"},
        "cases/small": {"text": random_text(chooser, 5_000, "abcd")},
        "cases/large": {"text": random_text(chooser, 40_000, "abcd")},
        "cases/copied": {"text": copied_text(chooser, 60_000, "abcd", 100, 400)},
        "cases/fibonacci": {"text": fibonacci_word(5_000)},
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"text": "abab"},
        f"{SAMPLES}/medium": {"text": random_text(samples, 4_000, "abcd")},
        f"{SAMPLES}/copied": {"text": copied_text(samples, 3_000, "abcd", 50, 200)},
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
