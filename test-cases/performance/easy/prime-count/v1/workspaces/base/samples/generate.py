"""Make a prime-count input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --queries 2000 --top 2000000 [--seed 7] > big.json

(numbers drawn from [0, top], with `top` itself among them, as in the held-out inputs). The
site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--queries", type=int, default=2_000, help="how many queries (at most 100,000)")
parser.add_argument("--top", type=int, default=2_000_000, help="the largest number asked (at most 2,000,000)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
numbers = [rng.randint(0, arguments.top) for _ in range(arguments.queries - 1)] + [arguments.top]
rng.shuffle(numbers)
print(json.dumps({"queries": numbers[: arguments.queries]}, separators=(",", ":")))
