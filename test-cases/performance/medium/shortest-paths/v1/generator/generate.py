"""Write the held-out inputs of shortest-paths v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import heapq
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261213


def reference(document: dict) -> dict:
    """The plainest correct answer: Dijkstra's algorithm with Python's heap, lazily."""
    nodes, source = document["nodes"], document["source"]
    leaving: list[list[tuple[int, int]]] = [[] for _ in range(nodes)]
    for start, end, weight in document["edges"]:
        leaving[start].append((end, weight))
    distance: list[int | None] = [None] * nodes
    queue = [(0, source)]
    while queue:
        reached, node = heapq.heappop(queue)
        if distance[node] is not None:
            continue
        distance[node] = reached
        for end, weight in leaving[node]:
            if distance[end] is None:
                heapq.heappush(queue, (reached + weight, end))
    return {"distances": [-1 if found is None else found for found in distance]}


def random_graph(chooser: random.Random, nodes: int, edges: int, heaviest: int) -> dict:
    """Edges between nodes drawn at random (loops and repeats allowed), weights in [0, heaviest]."""
    return {"nodes": nodes, "source": chooser.randrange(nodes),
            "edges": [[chooser.randrange(nodes), chooser.randrange(nodes), chooser.randint(0, heaviest)]
                      for _ in range(edges)]}


def chain_graph(chooser: random.Random, nodes: int, extra: int) -> dict:
    """A path through every node in a shuffled order, its edges listed from the far end back to
    the source, and `extra` random edges that are never shortcuts: an edge skipping ahead along
    the path weighs more than the part of the path it skips."""
    order = list(range(nodes))
    chooser.shuffle(order)
    steps = [chooser.randint(1, 100) for _ in range(nodes - 1)]
    along = [0]
    for step in steps:
        along.append(along[-1] + step)
    edges = [[order[index], order[index + 1], steps[index]] for index in reversed(range(nodes - 1))]
    for _ in range(extra):
        a, b = chooser.randrange(nodes), chooser.randrange(nodes)
        skipped = max(0, along[b] - along[a])
        edges.append([order[a], order[b], skipped + chooser.randint(1, 1_000)])
    return {"nodes": nodes, "source": order[0], "edges": edges}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    heavy = 1_000_000_000
    inputs = {
        "smoke/single": {"nodes": 1, "source": 0, "edges": []},
        # Edges are one-way: 3 reaches 1 but not the other way round; 4 has no edge in.
        "smoke/one-way": {"nodes": 5, "source": 1, "edges": [[1, 2, 4], [3, 1, 1], [2, 0, 2], [4, 4, 1]]},
        # The direct edge is the dearest way; the cheapest takes four steps.
        "smoke/detour": {"nodes": 5, "source": 0,
                         "edges": [[0, 4, 100], [0, 1, 10], [1, 2, 10], [2, 3, 10], [3, 4, 10], [0, 2, 25]]},
        # Zero weights, a zero-weight cycle, parallel edges and a loop.
        "smoke/zero-weights": {"nodes": 6, "source": 2,
                               "edges": [[2, 3, 0], [3, 4, 0], [4, 2, 0], [4, 5, 7], [4, 5, 3], [2, 5, 4],
                                         [5, 5, 0], [5, 0, 0], [0, 1, 9]]},
        # Distances beyond 32 bits: five edges of a billion.
        "smoke/heavy": {"nodes": 6, "source": 0,
                        "edges": [[0, 1, heavy], [1, 2, heavy], [2, 3, heavy], [3, 4, heavy], [4, 5, heavy],
                                  [5, 0, heavy]]},
        "cases/small": random_graph(chooser, 2_000, 8_000, 9_999),
        "cases/large": random_graph(chooser, 20_000, 60_000, 9_999),
        "cases/chain": chain_graph(chooser, 3_000, 3_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"nodes": 5, "source": 0, "edges": [[0, 1, 4], [0, 2, 1], [2, 1, 2], [1, 3, 5]]},
        f"{SAMPLES}/medium": random_graph(samples, 1_000, 4_000, 9_999),
        f"{SAMPLES}/chain": chain_graph(samples, 300, 300),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
