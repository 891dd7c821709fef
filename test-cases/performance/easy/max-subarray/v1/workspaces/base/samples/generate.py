"""Make a max-subarray input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 60000 [--low -1000000000] [--high 1000000000] [--seed 7] > big.json

(values drawn from [low, high]: `--low -1 --high 1` makes a flat input, as `cases/flat.json`,
where a great many runs share the largest sum and the tie rules decide). The site's held-out
inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=60_000, help="how many values (1 to 100,000)")
parser.add_argument("--low", type=int, default=-1_000_000_000, help="the smallest value (at least -10**9)")
parser.add_argument("--high", type=int, default=1_000_000_000, help="the largest value (at most 10**9)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
values = [rng.randint(arguments.low, arguments.high) for _ in range(arguments.values)]
print(json.dumps({"values": values}, separators=(",", ":")))
