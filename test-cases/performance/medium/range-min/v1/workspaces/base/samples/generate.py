"""Make a range-min input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 30000 --queries 20000 --longest 1024 [--seed 7] > big.json
    python3 samples/generate.py --values 25000 --queries 2000 --wide > wide.json

Values drawn from -1,000,000 … 1,000,000; ranges of 1 to `--longest` values (as many of each
power of two), or, with `--wide`, ranges that each cover at least 80% of the array. The site's
held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=30_000, help="how many values (1 to 100,000)")
parser.add_argument("--queries", type=int, default=20_000, help="how many queries (at most 100,000)")
parser.add_argument("--longest", type=int, default=1_024, help="the longest range (without --wide)")
parser.add_argument("--wide", action="store_true", help="ranges covering at least 80%% of the array")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
length = max(1, arguments.values)
values = [rng.randint(-1_000_000, 1_000_000) for _ in range(length)]
queries = []
for _ in range(arguments.queries):
    if arguments.wide:
        size = rng.randint(max(1, length * 4 // 5), length)
    else:
        longest = max(1, arguments.longest)
        size = min(length, rng.randint(1, 1 << rng.randint(0, longest.bit_length() - 1)))
    left = rng.randint(0, length - size)
    queries.append([left, left + size])
print(json.dumps({"values": values, "queries": queries}, separators=(",", ":")))
