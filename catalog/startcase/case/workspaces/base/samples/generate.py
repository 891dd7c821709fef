"""Make a @SLUG@ input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 20000 [--seed 7] > big.json

The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=20_000, help="how many values (at most 100,000)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
print(json.dumps({"values": [rng.randint(-1_000_000, 1_000_000) for _ in range(arguments.values)]},
                 separators=(",", ":")))
