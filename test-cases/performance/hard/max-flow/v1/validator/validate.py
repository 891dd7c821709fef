"""Check that an input of max-flow is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
the source and the sink are two different nodes of the network, and both ends of every edge are
nodes of it (0 … nodes - 1). The schema's limits are checked again here, so the file stands on
its own.
"""

import json
import sys

MOST_NODES, MOST_EDGES, LARGEST = 10_000, 50_000, 1_000_000_000


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"nodes", "source", "sink", "edges"}:
        return "the input must be an object with exactly the keys nodes, source, sink and edges"
    nodes, source, sink, edges = document["nodes"], document["source"], document["sink"], document["edges"]
    if not whole(nodes) or not 2 <= nodes <= MOST_NODES:
        return f"nodes is {nodes!r}: it must be an integer in [2, {MOST_NODES}]"
    for name, node in (("source", source), ("sink", sink)):
        if not whole(node) or not 0 <= node < nodes:
            return f"{name} is {node!r}: it must be a node, 0 … {nodes - 1}"
    if source == sink:
        return f"source and sink are both {source}: they must be different nodes"
    if not isinstance(edges, list) or len(edges) > MOST_EDGES:
        return f"edges must be an array of at most {MOST_EDGES} edges"
    for index, edge in enumerate(edges):
        if not isinstance(edge, list) or len(edge) != 3 or not all(whole(part) for part in edge):
            return f"edges[{index}] must be [from, to, capacity], three integers"
        start, end, capacity = edge
        if not (0 <= start < nodes and 0 <= end < nodes):
            return f"edges[{index}] is [{start}, {end}, {capacity}]: both ends must be nodes 0 … {nodes - 1}"
        if not 0 <= capacity <= LARGEST:
            return f"edges[{index}] has capacity {capacity}: a capacity must be in [0, {LARGEST}]"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
