"""Check that an input of components is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

MOST_NODES, MOST_EDGES = 200_000, 400_000


def problem(document) -> str | None:
    nodes, edges = document["nodes"], document["edges"]
    if nodes > MOST_NODES:
        return f"{nodes} nodes: at most {MOST_NODES}"
    if len(edges) > MOST_EDGES:
        return f"{len(edges)} edges: at most {MOST_EDGES}"
    for index, (a, b) in enumerate(edges):
        if not (0 <= a < nodes and 0 <= b < nodes):
            return f"edges[{index}] is [{a}, {b}]: both ends must be nodes 0 … {nodes - 1}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
