"""Make a range-sums input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 20000 --queries 5000 [--wide] [--seed 7] > big.json

(`--wide`: every range covers at least 80% of the array, as `cases/wide.json` does.) The site's
held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=20_000, help="how many values (at most 100,000)")
parser.add_argument("--queries", type=int, default=5_000, help="how many queries (at most 100,000)")
parser.add_argument("--wide", action="store_true", help="ranges that each cover at least 80%% of the array")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
length = arguments.values
values = [rng.randint(-1_000_000, 1_000_000) for _ in range(length)]
queries = []
for _ in range(arguments.queries):
    if arguments.wide:
        left, right = rng.randint(0, length // 10), rng.randint(length - length // 10, length)
    else:
        left = rng.randint(0, length)
        right = rng.randint(left, length)
    queries.append([left, right])
print(json.dumps({"values": values, "queries": queries}, separators=(",", ":")))
