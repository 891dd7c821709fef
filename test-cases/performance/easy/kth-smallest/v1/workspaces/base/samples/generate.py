"""Make a kth-smallest input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 50000 --queries 4 [--spread 1000000000] [--seed 7] > big.json

(values drawn from [-spread, spread], ranks drawn from [1, values]: many queries against a short
array, or a handful against a long one). The site's held-out inputs are made the same way, with
seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=50_000, help="how many values (at most 100,000)")
parser.add_argument("--queries", type=int, default=4, help="how many queries (at most 100,000)")
parser.add_argument("--spread", type=int, default=1_000_000_000,
                    help="values lie in [-spread, spread] (at most 10**9; a small spread repeats values)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
values = [rng.randint(-arguments.spread, arguments.spread) for _ in range(arguments.values)]
queries = [rng.randint(1, arguments.values) for _ in range(arguments.queries)] if values else []
print(json.dumps({"values": values, "queries": queries}, separators=(",", ":")))
