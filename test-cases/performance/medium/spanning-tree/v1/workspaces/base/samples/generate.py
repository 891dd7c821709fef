"""Make a spanning-tree input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --nodes 1500 --edges 30000 [--heaviest 99999] [--seed 7] > big.json
    python3 samples/generate.py --nodes 160 --complete > dense.json

Edges between nodes drawn at random (a loop or a repeated pair now and then), weights from 1 to
`--heaviest`; or, with `--complete`, an edge between every two nodes, in random order. Fewer
edges than nodes make a forest of many trees. The site's held-out inputs are made the same way,
with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--nodes", type=int, default=1_500, help="how many nodes (1 to 100,000)")
parser.add_argument("--edges", type=int, default=30_000, help="how many random edges (at most 200,000)")
parser.add_argument("--heaviest", type=int, default=99_999, help="the largest weight (at most 1,000,000,000)")
parser.add_argument("--complete", action="store_true", help="an edge between every two nodes instead")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
nodes = max(1, arguments.nodes)
heaviest = max(0, min(arguments.heaviest, 1_000_000_000))
if arguments.complete:
    edges = [[u, v, rng.randint(min(1, heaviest), heaviest)] for u in range(nodes) for v in range(u + 1, nodes)]
    rng.shuffle(edges)
else:
    edges = [[rng.randrange(nodes), rng.randrange(nodes), rng.randint(min(1, heaviest), heaviest)]
             for _ in range(arguments.edges)]
print(json.dumps({"nodes": nodes, "edges": edges}, separators=(",", ":")))
