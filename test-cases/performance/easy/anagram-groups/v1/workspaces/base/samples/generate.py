"""Make an anagram-groups input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --words 20000 --bases 40 --shortest 5 --longest 12 [--seed 7] > big.json
    python3 samples/generate.py --words 3600 --dictionary > word-list.json

Each word a shuffle of one of `--bases` random base words of `--shortest` to `--longest` letters
(the first bases drawn far more often than the last, so group sizes vary); or, with
`--dictionary`, random words of 3 to 10 letters, nearly all alone in their group, one in ten a
shuffle of an earlier word. The site's held-out inputs are made the same way, with seeds of
their own.
"""

import argparse
import json
import random

LETTERS = "abcdefghijklmnopqrstuvwxyz"

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--words", type=int, default=20_000, help="how many words (at most 100,000)")
parser.add_argument("--bases", type=int, default=40, help="how many groups the words are drawn from")
parser.add_argument("--shortest", type=int, default=5, help="letters of the shortest base word (at least 1)")
parser.add_argument("--longest", type=int, default=12, help="letters of the longest base word (at most 100)")
parser.add_argument("--dictionary", action="store_true", help="random words, nearly all alone in their group")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)


def random_word(shortest: int, longest: int) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(shortest, longest)))


def shuffled(word: str) -> str:
    letters = list(word)
    rng.shuffle(letters)
    return "".join(letters)


words = []
if arguments.dictionary:
    for _ in range(arguments.words):
        if words and rng.randrange(10) == 0:
            words.append(shuffled(words[rng.randrange(len(words))]))
        else:
            words.append(random_word(3, 10))
else:
    shortest = max(1, min(arguments.shortest, 100))
    longest = max(shortest, min(arguments.longest, 100))
    bases = [random_word(shortest, longest) for _ in range(max(1, arguments.bases))]
    for _ in range(arguments.words):
        words.append(shuffled(bases[min(rng.randrange(len(bases)), rng.randrange(len(bases)))]))
print(json.dumps({"words": words}, separators=(",", ":")))
