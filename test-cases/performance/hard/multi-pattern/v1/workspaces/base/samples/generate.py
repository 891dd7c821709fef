"""Make a multi-pattern input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --length 12000 --letters abc --patterns 1500 --shortest 3 --longest 24 > dict.json
    python3 samples/generate.py --length 100000 --letters abcd --patterns 20 --shortest 2 --longest 400 [--seed 7]

A random text of `--length` letters drawn from `--letters`, and `--patterns` patterns of
`--shortest` … `--longest` letters: most are pieces of the text, given with a few of their own
prefixes and suffixes (so that patterns share beginnings and end inside one another), and a share
`--foreign` are random strings over the same letters, most of which do not occur. The site's
held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--length", type=int, default=12_000, help="letters in the text (at most 200,000)")
parser.add_argument("--letters", default="abc", help="the text's alphabet (lowercase letters)")
parser.add_argument("--patterns", type=int, default=1_500, help="how many patterns (1 to 20,000)")
parser.add_argument("--shortest", type=int, default=3, help="the shortest pattern (at least 1)")
parser.add_argument("--longest", type=int, default=24, help="the longest pattern (at most 2,000)")
parser.add_argument("--foreign", type=float, default=0.2, help="the share of random patterns")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
letters = "".join(sorted(set(arguments.letters) & set("abcdefghijklmnopqrstuvwxyz"))) or "ab"
length = max(0, min(arguments.length, 200_000))
text = "".join(rng.choice(letters) for _ in range(length))
shortest = max(1, min(arguments.shortest, 2_000))
longest = max(shortest, min(arguments.longest, 2_000))
count = max(1, min(arguments.patterns, 20_000))
patterns: list[str] = []
while len(patterns) < count:
    size = rng.randint(shortest, longest)
    if size > len(text) or rng.random() < arguments.foreign:
        patterns.append("".join(rng.choice(letters) for _ in range(size)))
        continue
    start = rng.randrange(len(text) - size + 1)
    piece = text[start:start + size]
    patterns.append(piece)
    for _ in range(rng.randint(0, 3)):
        cut = rng.randint(shortest, size)
        patterns.append(piece[:cut] if rng.randrange(2) else piece[size - cut:])
patterns = patterns[:count]
while sum(map(len, patterns)) > 200_000:  # the rules' limit on the letters of all patterns
    patterns.pop()
rng.shuffle(patterns)
print(json.dumps({"text": text, "patterns": patterns}, separators=(",", ":")))
