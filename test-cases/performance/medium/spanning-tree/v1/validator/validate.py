"""Check that an input of spanning-tree is one the rules allow, beyond what its JSON Schema says:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked here too, so the file stands on its own.
"""

import json
import sys

MOST_NODES, MOST_EDGES, HEAVIEST = 100_000, 200_000, 1_000_000_000


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"nodes", "edges"}:
        return "the input must be an object with exactly the keys nodes and edges"
    nodes, edges = document["nodes"], document["edges"]
    if not whole(nodes) or not 1 <= nodes <= MOST_NODES:
        return f"nodes is {nodes!r}: it must be an integer from 1 to {MOST_NODES}"
    if not isinstance(edges, list) or len(edges) > MOST_EDGES:
        return f"edges must be an array of at most {MOST_EDGES} edges"
    for index, edge in enumerate(edges):
        if not isinstance(edge, list) or len(edge) != 3 or not all(whole(part) for part in edge):
            return f"edges[{index}] must be [u, v, weight], three integers"
        u, v, weight = edge
        if not (0 <= u < nodes and 0 <= v < nodes):
            return f"edges[{index}] is {edge}: both ends must be nodes, 0 … {nodes - 1}"
        if not 0 <= weight <= HEAVIEST:
            return f"edges[{index}] has weight {weight}: it must be 0 … {HEAVIEST}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
