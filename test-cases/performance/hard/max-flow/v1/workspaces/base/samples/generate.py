"""Make a max-flow input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --nodes 2000 --edges 8000 --spokes 100 [--seed 7] > big.json
    python3 samples/generate.py --layered --width 200 --depth 10 > layered.json

Random edges with capacities 1 … 1,000, and `--spokes` more edges leaving the source and as many
entering the sink, as `cases/small.json` and `cases/large.json` are made; or, with `--layered`,
`--depth` layers of `--width` nodes, each node with three edges (capacities 1 … 10) to random
nodes of the next layer, the source feeding the first layer and the last feeding the sink (20
each), as `cases/layered.json` is made. The site's held-out inputs are made the same way, with
seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--nodes", type=int, default=2_000, help="nodes (2 to 10,000)")
parser.add_argument("--edges", type=int, default=8_000, help="random edges")
parser.add_argument("--spokes", type=int, default=100, help="edges out of the source, and as many into the sink")
parser.add_argument("--layered", action="store_true", help="a layered network instead")
parser.add_argument("--width", type=int, default=200, help="nodes per layer (--layered)")
parser.add_argument("--depth", type=int, default=10, help="layers (--layered)")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
if arguments.layered:
    width, depth = max(1, arguments.width), max(1, arguments.depth)
    nodes = width * depth + 2
    source, sink = 0, nodes - 1
    edges = []
    for index in range(width):
        edges.append([source, 1 + index, 20])
        edges.append([1 + (depth - 1) * width + index, sink, 20])
    for layer in range(depth - 1):
        for index in range(width):
            for _ in range(3):
                edges.append([1 + layer * width + index, 1 + (layer + 1) * width + rng.randrange(width),
                              rng.randint(1, 10)])
else:
    nodes = max(2, arguments.nodes)
    source, sink = rng.sample(range(nodes), 2)
    edges = [[rng.randrange(nodes), rng.randrange(nodes), rng.randint(1, 1_000)] for _ in range(arguments.edges)]
    edges += [[source, rng.randrange(nodes), rng.randint(1, 1_000)] for _ in range(arguments.spokes)]
    edges += [[rng.randrange(nodes), sink, rng.randint(1, 1_000)] for _ in range(arguments.spokes)]
rng.shuffle(edges)
print(json.dumps({"nodes": nodes, "source": source, "sink": sink, "edges": edges}, separators=(",", ":")))
