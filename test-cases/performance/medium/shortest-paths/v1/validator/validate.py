"""Check that an input of shortest-paths is one the rules allow, beyond what its JSON Schema can
say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
the source and both ends of every edge must be nodes of the graph (0 … nodes - 1). The schema's
limits are checked again here, so the file stands on its own.
"""

import json
import sys

MOST_NODES, MOST_EDGES, HEAVIEST = 100_000, 200_000, 1_000_000_000


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"nodes", "source", "edges"}:
        return "the input must be an object with exactly the keys nodes, source and edges"
    nodes, source, edges = document["nodes"], document["source"], document["edges"]
    if not whole(nodes) or not 1 <= nodes <= MOST_NODES:
        return f"nodes is {nodes!r}: it must be an integer in [1, {MOST_NODES}]"
    if not whole(source) or not 0 <= source < nodes:
        return f"source is {source!r}: it must be a node, 0 … {nodes - 1}"
    if not isinstance(edges, list) or len(edges) > MOST_EDGES:
        return f"edges must be an array of at most {MOST_EDGES} edges"
    for index, edge in enumerate(edges):
        if not isinstance(edge, list) or len(edge) != 3 or not all(whole(part) for part in edge):
            return f"edges[{index}] must be [from, to, weight], three integers"
        start, end, weight = edge
        if not (0 <= start < nodes and 0 <= end < nodes):
            return f"edges[{index}] is [{start}, {end}, {weight}]: both ends must be nodes 0 … {nodes - 1}"
        if not 0 <= weight <= HEAVIEST:
            return f"edges[{index}] weighs {weight}: a weight must be in [0, {HEAVIEST}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
