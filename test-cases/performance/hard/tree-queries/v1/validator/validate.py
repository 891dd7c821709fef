"""Check that an input of tree-queries is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md):
node 0 is the root (its parent is -1), every other node's parent is a node of the tree, the
parents form one tree (following them from any node leads to the root: no cycle), and both
nodes of every query are nodes of the tree. The schema's limits are checked again here, so the
file stands on its own.
"""

import json
import sys

MOST_NODES, MOST_QUERIES = 100_000, 100_000


def whole(number) -> bool:
    return isinstance(number, int) and not isinstance(number, bool)


def problem(document) -> str | None:
    if not isinstance(document, dict) or set(document) != {"parents", "queries"}:
        return "the input must be an object with exactly the keys parents and queries"
    parents, queries = document["parents"], document["queries"]
    if not isinstance(parents, list) or not 1 <= len(parents) <= MOST_NODES:
        return f"parents must be an array of 1 to {MOST_NODES} integers"
    n = len(parents)
    if not all(whole(parent) for parent in parents):
        return "parents must hold integers only"
    if parents[0] != -1:
        return f"parents[0] is {parents[0]}: node 0 is the root, and its parent must be -1"
    for node in range(1, n):
        if not 0 <= parents[node] < n:
            return f"parents[{node}] is {parents[node]}: it must be a node, 0 … {n - 1}"
        if parents[node] == node:
            return f"parents[{node}] is {node}: a node cannot be its own parent"
    # Every node must lead to the root: 2 = known to, 1 = on the walk being followed.
    state = [0] * n
    state[0] = 2
    for node in range(n):
        walk = []
        while state[node] == 0:
            state[node] = 1
            walk.append(node)
            node = parents[node]
        if state[node] == 1:
            return f"the parents of node {node} lead back to it: the parents must form a tree rooted at 0"
        for seen in walk:
            state[seen] = 2
    if not isinstance(queries, list) or len(queries) > MOST_QUERIES:
        return f"queries must be an array of at most {MOST_QUERIES} queries"
    for index, query in enumerate(queries):
        if not isinstance(query, list) or len(query) != 2 or not all(whole(part) for part in query):
            return f"queries[{index}] must be [u, v], two integers"
        if not all(0 <= part < n for part in query):
            return f"queries[{index}] is {query}: both must be nodes, 0 … {n - 1}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
