"""Make a rising input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 6000 [--drift] [--seed 7] > big.json

(`--drift`: a rising trend with noise, as `cases/drift.json`, whose answers are long; without it,
values drawn at random). The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=6_000, help="how many values")
parser.add_argument("--drift", action="store_true", help="a rising trend with noise")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
if arguments.drift:
    values = [index * 3 + rng.randint(-400, 400) for index in range(arguments.values)]
else:
    values = [rng.randint(-1_000_000_000, 1_000_000_000) for _ in range(arguments.values)]
print(json.dumps({"values": values}, separators=(",", ":")))
