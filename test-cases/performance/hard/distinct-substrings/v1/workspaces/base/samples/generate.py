"""Make a distinct-substrings input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --length 40000 [--alphabet abcd] [--seed 7] > random.json
    python3 samples/generate.py --length 60000 --copied [--shortest 100 --longest 400] > copied.json
    python3 samples/generate.py --length 5000 --fibonacci > fibonacci.json

Random letters of the alphabet; or, with `--copied`, a repetitive text in which each piece is a
copy of an earlier stretch (`--shortest` … `--longest` letters) with a letter changed here and
there; or, with `--fibonacci`, the Fibonacci word `abaababaabaab…`. The site's held-out inputs
are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--length", type=int, default=40_000, help="letters of text (at most 100,000)")
parser.add_argument("--alphabet", default="abcd", help="letters the text is drawn from (lowercase)")
parser.add_argument("--copied", action="store_true", help="a text made of mutated copies of itself")
parser.add_argument("--shortest", type=int, default=100, help="the shortest copied piece")
parser.add_argument("--longest", type=int, default=400, help="the longest copied piece")
parser.add_argument("--fibonacci", action="store_true", help="the Fibonacci word instead")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
length, alphabet = max(0, min(arguments.length, 100_000)), arguments.alphabet
if arguments.fibonacci:
    before, word = "a", "ab"
    while len(word) < length:
        before, word = word, word + before
    text = word[:length]
elif arguments.copied:
    shortest = max(1, arguments.shortest)
    longest = max(shortest, arguments.longest)
    letters = [rng.choice(alphabet) for _ in range(longest)]
    while len(letters) < length:
        size = rng.randint(shortest, longest)
        start = rng.randrange(len(letters) - shortest + 1)
        piece = letters[start:start + size]
        for _ in range(max(1, len(piece) // 200)):
            piece[rng.randrange(len(piece))] = rng.choice(alphabet)
        letters.extend(piece)
    text = "".join(letters[:length])
else:
    text = "".join(rng.choice(alphabet) for _ in range(length))
print(json.dumps({"text": text}, separators=(",", ":")))
