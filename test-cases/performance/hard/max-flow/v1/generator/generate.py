"""Write the held-out inputs of max-flow v1, the public samples of its workspace, and every
expected answer, from a plain reference.

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
SAMPLES = "workspaces/base/samples"
SEED = 20261223


def reference(document: dict) -> dict:
    """The plainest correct answer: Edmonds and Karp's method, a shortest augmenting path (a
    breadth-first search of the residual network) at a time until none is left."""
    nodes, source, sink = document["nodes"], document["source"], document["sink"]
    head: list[int] = []  # edge e leads to head[e]; e ^ 1 is its reverse
    room: list[int] = []
    leaving: list[list[int]] = [[] for _ in range(nodes)]
    for start, end, capacity in document["edges"]:
        leaving[start].append(len(head))
        head.append(end)
        room.append(capacity)
        leaving[end].append(len(head))
        head.append(start)
        room.append(0)
    total = 0
    while True:
        via = [-1] * nodes  # the edge a node was reached by (-2: the source)
        via[source] = -2
        queue = deque([source])
        while queue and via[sink] == -1:
            node = queue.popleft()
            for edge in leaving[node]:
                if room[edge] > 0 and via[head[edge]] == -1:
                    via[head[edge]] = edge
                    queue.append(head[edge])
        if via[sink] == -1:
            return {"flow": total}
        path, node = [], sink
        while node != source:
            path.append(via[node])
            node = head[via[node] ^ 1]
        push = min(room[edge] for edge in path)
        for edge in path:
            room[edge] -= push
            room[edge ^ 1] += push
        total += push


def hubbed(chooser: random.Random, nodes: int, edges: int, most: int, spokes: int) -> dict:
    """Random edges (loops and repeats allowed, capacities 1 … most), and `spokes` more edges
    leaving the source and as many entering the sink, so that the flow is large and spreads
    through the whole network."""
    source, sink = chooser.sample(range(nodes), 2)
    listed = [[chooser.randrange(nodes), chooser.randrange(nodes), chooser.randint(1, most)] for _ in range(edges)]
    listed += [[source, chooser.randrange(nodes), chooser.randint(1, most)] for _ in range(spokes)]
    listed += [[chooser.randrange(nodes), sink, chooser.randint(1, most)] for _ in range(spokes)]
    chooser.shuffle(listed)
    return {"nodes": nodes, "source": source, "sink": sink, "edges": listed}


def layered(chooser: random.Random, width: int, depth: int, degree: int, most: int, ends: int) -> dict:
    """`depth` layers of `width` nodes; each node has `degree` edges (capacities 1 … most) to
    random nodes of the next layer; the source feeds every node of the first layer and every
    node of the last feeds the sink, each with capacity `ends`. The flow is thousands of small
    units over paths at least depth + 1 edges long."""
    nodes = width * depth + 2
    source, sink = 0, nodes - 1
    listed = []
    for index in range(width):
        listed.append([source, 1 + index, ends])
        listed.append([1 + (depth - 1) * width + index, sink, ends])
    for layer in range(depth - 1):
        for index in range(width):
            for _ in range(degree):
                listed.append([1 + layer * width + index, 1 + (layer + 1) * width + chooser.randrange(width),
                               chooser.randint(1, most)])
    chooser.shuffle(listed)
    return {"nodes": nodes, "source": source, "sink": sink, "edges": listed}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    big = 1_000_000_000
    inputs = {
        # The textbook network (Cormen et al., figure 26.1): 23.
        "smoke/textbook": {"nodes": 6, "source": 0, "sink": 5,
                           "edges": [[0, 1, 16], [0, 2, 13], [1, 3, 12], [2, 1, 4], [3, 2, 9], [2, 4, 14],
                                     [4, 3, 7], [3, 5, 20], [4, 5, 4]]},
        # Nothing leads to the sink (edges leave it, and one enters the source): 0.
        "smoke/no-path": {"nodes": 5, "source": 1, "sink": 3,
                          "edges": [[1, 0, 5], [0, 2, 5], [2, 1, 5], [3, 4, 5], [4, 1, 5], [3, 2, 7]]},
        # Parallel edges add up; a loop, a zero capacity and an edge back into the source do not
        # help: 7 + 5 + 3 = 15.
        "smoke/parallel": {"nodes": 3, "source": 0, "sink": 2,
                           "edges": [[0, 1, 7], [0, 1, 5], [1, 2, 20], [0, 2, 3], [1, 1, 9], [0, 2, 0], [2, 0, 4],
                                     [1, 0, 2]]},
        # The shortest path 0-1-2-7 blocks both longer ones (0-1-3-4-7 and 0-5-6-2-7) unless
        # flow is sent back along 1-2: 2.
        "smoke/undo": {"nodes": 8, "source": 0, "sink": 7,
                       "edges": [[0, 1, 1], [1, 2, 1], [2, 7, 1], [1, 3, 1], [3, 4, 1], [4, 7, 1], [0, 5, 1],
                                 [5, 6, 1], [6, 2, 1]]},
        # Three paths of 10^9, and two more through node 3 over parallel edges: 5 · 10^9, beyond
        # 32 bits.
        "smoke/heavy": {"nodes": 5, "source": 4, "sink": 0,
                        "edges": [[4, 1, big], [1, 0, big], [4, 2, big], [2, 0, big], [4, 3, big], [4, 3, big],
                                  [3, 0, big], [3, 0, big], [4, 0, big]]},
        "cases/small": hubbed(chooser, 300, 1_200, 1_000, 10),
        "cases/large": hubbed(chooser, 2_000, 8_000, 1_000, 100),
        "cases/layered": layered(chooser, 200, 10, 3, 10, 20),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"nodes": 4, "source": 0, "sink": 3,
                            "edges": [[0, 1, 3], [0, 2, 2], [1, 2, 5], [1, 3, 2], [2, 3, 3]]},
        f"{SAMPLES}/medium": hubbed(samples, 200, 800, 1_000, 10),
        f"{SAMPLES}/layered": layered(samples, 50, 6, 3, 10, 20),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
