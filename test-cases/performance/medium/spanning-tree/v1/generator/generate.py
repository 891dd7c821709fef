"""Write the held-out inputs of spanning-tree v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261302


def reference(document: dict) -> dict:
    """Kruskal's algorithm, plainly: take the edges lightest first, keeping each one that joins two
    different trees (a disjoint-set forest says which tree a node is in)."""
    parent = list(range(document["nodes"]))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    weight, trees = 0, document["nodes"]
    for u, v, w in sorted(document["edges"], key=lambda edge: edge[2]):
        ru, rv = root(u), root(v)
        if ru != rv:
            parent[ru] = rv
            weight += w
            trees -= 1
    return {"weight": weight, "trees": trees}


def random_graph(chooser: random.Random, nodes: int, edges: int, heaviest: int) -> dict:
    """`edges` edges between nodes drawn at random (a loop or a repeated pair now and then)."""
    return {"nodes": nodes, "edges": [[chooser.randrange(nodes), chooser.randrange(nodes), chooser.randint(1, heaviest)]
                                      for _ in range(edges)]}


def complete_graph(chooser: random.Random, nodes: int, heaviest: int) -> dict:
    """An edge between every two nodes, in random order and either direction."""
    edges = [[u, v, chooser.randint(1, heaviest)] for u in range(nodes) for v in range(u + 1, nodes)]
    chooser.shuffle(edges)
    for edge in edges:
        if chooser.randrange(2):
            edge[0], edge[1] = edge[1], edge[0]
    return {"nodes": nodes, "edges": edges}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/single": {"nodes": 1, "edges": []},
        # Nodes 3 and 4 have no edge: each is a tree of its own.
        "smoke/isolated": {"nodes": 5, "edges": [[0, 1, 3], [1, 2, 1], [0, 2, 2]]},
        # Two components, neither holding every node: a forest of two trees.
        "smoke/forest": {"nodes": 6, "edges": [[0, 1, 4], [3, 4, 7], [1, 2, 2], [4, 5, 1], [0, 2, 5], [3, 5, 3]]},
        # Loops (one of weight 0) join nothing; of two parallel edges the lighter one counts.
        "smoke/loops": {"nodes": 3, "edges": [[0, 0, 0], [0, 1, 5], [0, 1, 2], [1, 2, 9], [2, 1, 4], [2, 2, 1]]},
        # Five edges of about a billion: the total is beyond 32 bits.
        "smoke/heavy": {"nodes": 7, "edges": [[0, 1, 1_000_000_000], [1, 2, 999_999_999], [2, 3, 1_000_000_000],
                                              [3, 4, 999_999_998], [4, 5, 1_000_000_000], [5, 6, 1_000_000_000],
                                              [6, 0, 1_000_000_000], [0, 3, 0]]},
        "cases/small": random_graph(chooser, 1_000, 2_000, 99_999),
        "cases/large": random_graph(chooser, 1_500, 30_000, 99_999),
        "cases/dense": complete_graph(chooser, 160, 99_999),
        "cases/sparse": random_graph(chooser, 3_400, 2_800, 99_999),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"nodes": 5, "edges": [[0, 1, 4], [1, 2, 1], [0, 2, 3], [3, 4, 2]]},
        f"{SAMPLES}/medium": random_graph(samples, 500, 3_000, 99_999),
        f"{SAMPLES}/dense": complete_graph(samples, 60, 99_999),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
