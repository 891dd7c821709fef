"""Make a distinct input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 8000 --spread 5000 [--seed 7] > big.json

(values drawn from [-spread, spread]: a small spread repeats values often). The site's held-out
inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=8_000, help="how many values (at most 100,000)")
parser.add_argument("--spread", type=int, default=5_000, help="values lie in [-spread, spread] (at most 10**9)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
values = [rng.randint(-arguments.spread, arguments.spread) for _ in range(arguments.values)]
print(json.dumps({"values": values}, separators=(",", ":")))
