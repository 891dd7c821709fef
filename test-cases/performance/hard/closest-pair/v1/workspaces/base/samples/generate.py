"""Make a closest-pair input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --points 25000 [--reach 1000000000] [--seed 7] > uniform.json
    python3 samples/generate.py --points 20000 --lines 3 > lines.json

Different points drawn uniformly from the square [-reach, reach]²; or, with `--lines K`, on K
vertical lines (K random x values shared by all the points), y uniform. The site's held-out
inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--points", type=int, default=25_000, help="how many points (2 to 100,000)")
parser.add_argument("--reach", type=int, default=1_000_000_000, help="coordinates lie in [-reach, reach] (at most 10**9)")
parser.add_argument("--lines", type=int, default=0, help="put the points on this many vertical lines")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
reach = max(1, min(arguments.reach, 1_000_000_000))
count = max(2, min(arguments.points, 100_000, (2 * reach + 1) * max(1, min(arguments.lines, 2 * reach + 1))))
xs = rng.sample(range(-reach, reach + 1), min(max(0, arguments.lines), 2 * reach + 1))
seen = set()
while len(seen) < count:
    x = rng.choice(xs) if xs else rng.randint(-reach, reach)
    seen.add((x, rng.randint(-reach, reach)))
points = [list(point) for point in sorted(seen)]
rng.shuffle(points)
print(json.dumps({"points": points}, separators=(",", ":")))
