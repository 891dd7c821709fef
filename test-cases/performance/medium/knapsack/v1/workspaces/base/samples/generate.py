"""Make a knapsack input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --items 250 --capacity 20000 --heaviest 1000 --dearest 300 [--seed 7] > big.json
    python3 samples/generate.py --items 50 --capacity 100000 --heaviest 20000 --dearest 1000 > roomy.json

Weights drawn from 1 … `--heaviest` and values from 1 … `--dearest`, independently. The rules
allow items × capacity up to 5,000,000. The site's held-out inputs are made the same way, with
seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--items", type=int, default=250, help="how many items (at most 1,000)")
parser.add_argument("--capacity", type=int, default=20_000, help="the capacity (at most 100,000)")
parser.add_argument("--heaviest", type=int, default=1_000, help="the largest weight (at most 100,000)")
parser.add_argument("--dearest", type=int, default=300, help="the largest value (at most 1,000)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
heaviest = max(1, min(arguments.heaviest, 100_000))
dearest = max(1, min(arguments.dearest, 1_000))
items = [[rng.randint(1, heaviest), rng.randint(1, dearest)] for _ in range(max(0, arguments.items))]
print(json.dumps({"capacity": max(0, arguments.capacity), "items": items}, separators=(",", ":")))
