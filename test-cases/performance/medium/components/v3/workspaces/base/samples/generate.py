"""Make a components input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --nodes 60000 --edges 90000 [--seed 7] > big.json
    python3 samples/generate.py --chain 30000 > chain.json

(random edges between random nodes; or one path, its edges listed from the far end, as
`cases/chain.json`). The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--nodes", type=int, default=60_000)
parser.add_argument("--edges", type=int, default=90_000)
parser.add_argument("--chain", type=int, default=0, help="one path of this many nodes instead")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
if arguments.chain:
    document = {"nodes": arguments.chain,
                "edges": [[node, node + 1] for node in reversed(range(arguments.chain - 1))]}
else:
    rng = random.Random(arguments.seed)
    document = {"nodes": arguments.nodes, "edges": [[rng.randrange(arguments.nodes), rng.randrange(arguments.nodes)]
                                                   for _ in range(arguments.edges)]}
print(json.dumps(document, separators=(",", ":"), sort_keys=True))
