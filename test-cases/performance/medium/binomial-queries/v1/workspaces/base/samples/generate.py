"""Make a binomial-queries input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --queries 30000 --largest 1000000 [--beyond 500] [--seed 7] > big.json
    python3 samples/generate.py --queries 5000 --largest 200000 --central > central.json

Queries with n drawn from 0 … largest and k from 0 … n (and `--beyond` of them with k > n); or,
with `--central`, n from largest / 2 … largest and k within 1% of n / 2, as `cases/central.json`
is made. The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

LARGEST = 1_000_000

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--queries", type=int, default=30_000, help="how many queries (1 to 100,000)")
parser.add_argument("--largest", type=int, default=LARGEST, help="the largest n (at most 1,000,000)")
parser.add_argument("--beyond", type=int, default=0, help="how many queries ask for k > n")
parser.add_argument("--central", action="store_true", help="k near n / 2 in every query")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
top = max(0, min(LARGEST, arguments.largest))
queries = []
for index in range(max(1, arguments.queries)):
    if arguments.central:
        n = rng.randint(top // 2, top)
        queries.append([n, n // 2 + rng.randint(-(n // 100), n // 100)])
    else:
        n = rng.randint(0, top)
        beyond = index < arguments.beyond and n < LARGEST
        queries.append([n, rng.randint(n + 1, LARGEST) if beyond else rng.randint(0, n)])
rng.shuffle(queries)
print(json.dumps({"queries": queries}, separators=(",", ":")))
