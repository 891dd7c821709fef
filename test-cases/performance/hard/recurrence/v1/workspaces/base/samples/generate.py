"""Make a recurrence input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --order 30 --queries 60 [--small 4] [--seed 7] > big.json
    python3 samples/generate.py --order 20 --queries 20 --dense > dense.json

A random recurrence of the given order (coefficients and initial terms drawn from 0 …
998,244,352) and queries whose number of digits is uniform from 4 to 19 (at most 10^18), with
`--small` of them below 1,000, as `cases/small.json` and `cases/large.json` are made; or, with
`--dense`, queries of 59 or 60 bits with nearly every bit set, as `cases/dense.json` is made. Queries are written as decimal strings. The site's held-out inputs are made the same way,
with seeds of their own.
"""

import argparse
import json
import random

MODULUS, LARGEST = 998_244_353, 10 ** 18
WIDEST_59, WIDEST_60 = (1 << 59) - 1, (1 << 60) - 1 - (1 << 57) - (1 << 56)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--order", type=int, default=30, help="the order d (1 to 30)")
parser.add_argument("--queries", type=int, default=60, help="how many queries (1 to 1,000)")
parser.add_argument("--small", type=int, default=0, help="how many of them are below 1,000")
parser.add_argument("--dense", action="store_true", help="queries with nearly every bit set")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
d, count = max(1, min(30, arguments.order)), max(1, arguments.queries)
wanted = []
if arguments.dense:
    for _ in range(count):
        below = rng.choice((WIDEST_59, WIDEST_60))
        wanted.append(below - sum(1 << rng.randrange(50) for _ in range(2)))
else:
    wanted = [rng.randrange(1_000) for _ in range(min(count, arguments.small))]
    while len(wanted) < count:
        digits = rng.randint(4, 19)
        wanted.append(min(LARGEST, rng.randrange(10 ** (digits - 1), 10 ** digits)))
    rng.shuffle(wanted)
document = {"coefficients": [rng.randrange(MODULUS) for _ in range(d)],
            "initial": [rng.randrange(MODULUS) for _ in range(d)],
            "queries": [str(n) for n in wanted]}
print(json.dumps(document, separators=(",", ":")))
