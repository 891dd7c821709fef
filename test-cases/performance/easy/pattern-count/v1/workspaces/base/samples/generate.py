"""Make a pattern-count input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --text 300000 --pattern 8 [--alphabet abc] [--seed 7] > big.json
    python3 samples/generate.py --text 56000 --pattern 1000 --periodic > repetitive.json

Random text over the alphabet, with the pattern cut from it (so it occurs at least once); or,
with `--periodic`, the block `ab` repeated with a defect (`aa`) every few pattern lengths, and
the pattern `ab` repeated, as `cases/periodic.json` is made. The site's held-out inputs are made
the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--text", type=int, default=300_000, help="letters of text (at most 500,000)")
parser.add_argument("--pattern", type=int, default=8, help="letters of pattern (1 to 100,000)")
parser.add_argument("--alphabet", default="ab", help="letters the random text is drawn from")
parser.add_argument("--periodic", action="store_true", help="a repetitive text and a long, nearly matching pattern")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
length, pattern_length = arguments.text, max(1, arguments.pattern)
if arguments.periodic:
    letters = []
    while len(letters) < length:
        letters.extend("ab" * rng.randint(max(1, pattern_length // 4), max(1, 3 * pattern_length // 2)))
        letters.append("a")
    document = {"text": "".join(letters[:length]), "pattern": "ab" * max(1, pattern_length // 2)}
else:
    text = "".join(rng.choice(arguments.alphabet) for _ in range(length))
    start = rng.randrange(max(1, length - pattern_length + 1))
    document = {"text": text, "pattern": text[start:start + pattern_length] or "a"}
print(json.dumps(document, separators=(",", ":")))
