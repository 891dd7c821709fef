"""Make a tree-queries input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --nodes 10000 --queries 10000 [--seed 7] > random.json
    python3 samples/generate.py --nodes 50000 --queries 30000 --window 300 > bushy.json
    python3 samples/generate.py --nodes 40000 --queries 8000 --arms 2 --twigs 400 > deep.json

The tree is made one node at a time, each new node hanging from a node made before it: any of
them, drawn at random (depth about e ln n); with `--window W`, one of the W made just before it
(depth about 2n / W); or, with `--arms A`, A paths down from the root, with `--twigs` single
leaves hung on random nodes at the end (depth about (n - twigs) / A). Then every node but the
root is renumbered at random, and the queries are pairs of nodes drawn at random. The site's
held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--nodes", type=int, default=10_000, help="nodes (1 to 100,000)")
parser.add_argument("--queries", type=int, default=10_000, help="queries (at most 100,000)")
parser.add_argument("--window", type=int, default=0, help="hang each node from one of the last W made")
parser.add_argument("--arms", type=int, default=0, help="A paths down from the root instead")
parser.add_argument("--twigs", type=int, default=0, help="with --arms: leaves hung on random nodes")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
n = max(1, min(arguments.nodes, 100_000))
made = [-1]
if arguments.arms > 0:
    twigs = max(0, min(arguments.twigs, n - 1))
    ends = [0] * arguments.arms
    for node in range(1, n - twigs):
        arm = node % arguments.arms
        made.append(ends[arm])
        ends[arm] = node
    made += [rng.randrange(len(made)) for _ in range(twigs)]
elif arguments.window > 0:
    made += [rng.randrange(max(0, node - arguments.window), node) for node in range(1, n)]
else:
    made += [rng.randrange(node) for node in range(1, n)]
names = list(range(1, n))
rng.shuffle(names)
names = [0] + names
parents = [0] * n
parents[0] = -1
for node in range(1, n):
    parents[names[node]] = names[made[node]]
queries = [[rng.randrange(n), rng.randrange(n)] for _ in range(max(0, min(arguments.queries, 100_000)))]
print(json.dumps({"parents": parents, "queries": queries}, separators=(",", ":")))
