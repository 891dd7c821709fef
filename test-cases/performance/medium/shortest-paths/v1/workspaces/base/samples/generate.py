"""Make a shortest-paths input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --nodes 20000 --edges 60000 [--heaviest 9999] [--seed 7] > big.json
    python3 samples/generate.py --nodes 3000 --edges 6000 --chain > deep.json

Random edges (loops and repeats allowed) with weights in [0, heaviest], from a random source;
or, with `--chain`, a path through every node in a shuffled order, its edges listed from the far
end back to the source, and random extra edges that are never shortcuts, as `cases/chain.json`
is made. The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--nodes", type=int, default=20_000, help="how many nodes (1 to 100,000)")
parser.add_argument("--edges", type=int, default=60_000, help="how many edges (at most 200,000)")
parser.add_argument("--heaviest", type=int, default=9_999, help="random weights lie in [0, heaviest] (at most 10**9)")
parser.add_argument("--chain", action="store_true", help="one long path, listed from its far end")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
nodes = max(1, arguments.nodes)
if arguments.chain:
    order = list(range(nodes))
    rng.shuffle(order)
    steps = [rng.randint(1, 100) for _ in range(nodes - 1)]
    along = [0]
    for step in steps:
        along.append(along[-1] + step)
    edges = [[order[index], order[index + 1], steps[index]] for index in reversed(range(nodes - 1))]
    for _ in range(max(0, arguments.edges - (nodes - 1))):
        a, b = rng.randrange(nodes), rng.randrange(nodes)
        edges.append([order[a], order[b], max(0, along[b] - along[a]) + rng.randint(1, 1_000)])
    document = {"nodes": nodes, "source": order[0], "edges": edges}
else:
    document = {"nodes": nodes, "source": rng.randrange(nodes),
                "edges": [[rng.randrange(nodes), rng.randrange(nodes), rng.randint(0, arguments.heaviest)]
                          for _ in range(arguments.edges)]}
print(json.dumps(document, separators=(",", ":")))
