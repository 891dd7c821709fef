"""Write the held-out inputs of components v3 (the same as v1's and v2's), the public samples of its
workspace, and their expected answers, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from collections import deque
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SEED = 20261205


def answer(document: dict) -> dict:
    """The reference: breadth-first search from every node not yet reached."""
    nodes = document["nodes"]
    neighbours: list[list[int]] = [[] for _ in range(nodes)]
    for a, b in document["edges"]:
        neighbours[a].append(b)
        neighbours[b].append(a)
    seen = [False] * nodes
    components, largest = 0, 0
    for start in range(nodes):
        if seen[start]:
            continue
        components += 1
        seen[start] = True
        size, queue = 0, deque([start])
        while queue:
            node = queue.popleft()
            size += 1
            for other in neighbours[node]:
                if not seen[other]:
                    seen[other] = True
                    queue.append(other)
        largest = max(largest, size)
    return {"components": components, "largest": largest}


def random_graph(chooser: random.Random, nodes: int, edges: int) -> dict:
    return {"nodes": nodes, "edges": [[chooser.randrange(nodes), chooser.randrange(nodes)] for _ in range(edges)]}


def write(rel: str, document: dict) -> None:
    path = (Path(sys.argv[1]) if len(sys.argv) > 1 else HERE) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n")


def main() -> None:
    chooser = random.Random(SEED)
    chain = 30_000
    inputs = {
        "smoke/no-edges": {"nodes": 4, "edges": []},
        "smoke/triangles": {"nodes": 7, "edges": [[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3]]},
        "smoke/loops": {"nodes": 5, "edges": [[0, 0], [1, 2], [2, 1], [1, 2], [3, 3], [3, 4]]},
        "cases/sparse": random_graph(chooser, 5_000, 4_000),
        "cases/large": random_graph(chooser, 60_000, 90_000),
        # One path, its edges listed from the far end: labels spread one node a pass.
        "cases/chain": {"nodes": chain, "edges": [[node, node + 1] for node in reversed(range(chain - 1))]},
    }
    # New in v2: public samples, seeded with the workspace (never a held-out input), from a
    # chooser of their own, so the held-out inputs above stay v1's.
    samples = random.Random(SEED + 2)
    inputs.update({
        "workspaces/base/samples/tiny": {"nodes": 8, "edges": [[0, 1], [1, 2], [2, 3], [5, 6]]},
        "workspaces/base/samples/random": random_graph(samples, 2_000, 1_500),
        "workspaces/base/samples/chain": {"nodes": 1_000, "edges": [[node, node + 1] for node in reversed(range(999))]},
    })
    for stem, document in inputs.items():
        write(f"{stem}.json", document)
        write(f"{stem}.out", answer(document))


if __name__ == "__main__":
    main()
