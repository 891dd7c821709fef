"""Make a pair-sums input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --values 120 --targets 4000 --spread 1000 [--seed 7] > big.json

Values are drawn from [-spread, spread] (a small spread repeats values often); most targets are
the sum of two values at different positions, some are twice a value, and the rest are drawn at
random. The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--values", type=int, default=120, help="how many values (at most 1,000)")
parser.add_argument("--targets", type=int, default=4_000, help="how many targets (at most 10,000)")
parser.add_argument("--spread", type=int, default=1_000, help="values lie in [-spread, spread] (at most 10**9)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
spread = arguments.spread
values = [rng.randint(-spread, spread) for _ in range(arguments.values)]
targets = []
for _ in range(arguments.targets):
    roll = rng.random()
    if roll < 0.7 and len(values) >= 2:
        i, j = rng.sample(range(len(values)), 2)
        targets.append(values[i] + values[j])
    elif roll < 0.8 and values:
        targets.append(2 * rng.choice(values))
    else:
        targets.append(rng.randint(-2 * spread - 5, 2 * spread + 5))
print(json.dumps({"values": values, "targets": targets}, separators=(",", ":")))
