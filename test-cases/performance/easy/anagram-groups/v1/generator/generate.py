"""Write the held-out inputs of anagram-groups v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261301
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def reference(document: dict) -> dict:
    """The plainest correct answer: two words are anagrams when their sorted letters agree."""
    sizes = Counter("".join(sorted(word)) for word in document["words"])
    return {"groups": len(sizes), "largest": max(sizes.values(), default=0)}


def random_word(chooser: random.Random, shortest: int, longest: int) -> str:
    return "".join(chooser.choice(LETTERS) for _ in range(chooser.randint(shortest, longest)))


def shuffled(chooser: random.Random, word: str) -> str:
    letters = list(word)
    chooser.shuffle(letters)
    return "".join(letters)


def grouped_case(chooser: random.Random, count: int, bases: int, shortest: int, longest: int) -> dict:
    """`count` words, each a shuffle of one of `bases` base words (all of different letters);
    the first bases are drawn far more often than the last, so group sizes vary widely."""
    seen, chosen = set(), []
    while len(chosen) < bases:
        word = random_word(chooser, shortest, longest)
        if "".join(sorted(word)) not in seen:
            seen.add("".join(sorted(word)))
            chosen.append(word)
    words = []
    for _ in range(count):
        # the smaller of two uniform draws: base i is drawn with weight (bases - i)
        pick = min(chooser.randrange(bases), chooser.randrange(bases))
        words.append(shuffled(chooser, chosen[pick]))
    return {"words": words}


def dictionary_case(chooser: random.Random, count: int) -> dict:
    """Random words of 3 to 10 letters, as in a word list: nearly all of them alone in their group,
    with one in ten a shuffle (or a copy) of an earlier word."""
    words = []
    for _ in range(count):
        if words and chooser.randrange(10) == 0:
            words.append(shuffled(chooser, words[chooser.randrange(len(words))]))
        else:
            words.append(random_word(chooser, 3, 10))
    return {"words": words}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/empty": {"words": []},
        "smoke/single": {"words": ["z"]},
        # Every word of the list is a member of its group, copies included: one group of 8.
        "smoke/duplicates": {"words": ["stop", "pots", "stop", "tops", "opts", "post", "spot", "stop"]},
        # The same letters in other numbers are not anagrams: {ab, ba}, {aab}, {abb, bba}.
        "smoke/lengths": {"words": ["ab", "aab", "abb", "ba", "bba"]},
        # Equal sums of letter codes are not enough: {ad, da}, {bc, cb}, {ac}, {bb}.
        "smoke/same-sum": {"words": ["ad", "bc", "da", "cb", "ac", "bb"]},
        "cases/small": grouped_case(chooser, 2_000, 300, 3, 8),
        "cases/large": grouped_case(chooser, 20_000, 40, 5, 12),
        "cases/dictionary": dictionary_case(chooser, 3_600),
        "cases/long": grouped_case(chooser, 2_000, 200, 60, 100),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"words": ["listen", "silent", "enlist", "google", "banana", "tinsel", "elgoog"]},
        f"{SAMPLES}/medium": grouped_case(samples, 3_000, 100, 4, 10),
        f"{SAMPLES}/dictionary": dictionary_case(samples, 1_000),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
