"""Write the held-out inputs of tree-queries v1, the public samples of its workspace, and every
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
SEED = 20261417


def reference(document: dict) -> dict:
    """Depths from a breadth-first pass from the root, then binary lifting, plainly: `up[k][v]` is
    the ancestor 2^k steps above v; a query lifts the deeper node to the other's depth, then both
    while their ancestors differ. The distance is depth(u) + depth(v) - 2 depth(ancestor)."""
    parents = document["parents"]
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    for node in range(1, n):
        children[parents[node]].append(node)
    depth = [0] * n
    order = [0]
    for node in order:  # grows as it goes: every parent before its children
        for child in children[node]:
            depth[child] = depth[node] + 1
            order.append(child)
    up = [[max(parent, 0) for parent in parents]]
    while (1 << len(up)) <= max(depth):
        last = up[-1]
        up.append([last[last[node]] for node in range(n)])
    distances = []
    for u, v in document["queries"]:
        a, b = (u, v) if depth[u] >= depth[v] else (v, u)
        gap, level = depth[a] - depth[b], 0
        while gap:
            if gap & 1:
                a = up[level][a]
            gap >>= 1
            level += 1
        if a != b:
            for level in reversed(range(len(up))):
                if up[level][a] != up[level][b]:
                    a, b = up[level][a], up[level][b]
            a = up[0][a]
        distances.append(depth[u] + depth[v] - 2 * depth[a])
    return {"distances": distances}


def relabel(chooser: random.Random, made: list[int]) -> list[int]:
    """The tree whose node i (in the order it was made) has parent made[i], with every node but
    the root renamed at random: a parent's number is as likely to be larger as smaller."""
    names = list(range(1, len(made)))
    chooser.shuffle(names)
    names = [0] + names
    parents = [0] * len(made)
    parents[0] = -1
    for node in range(1, len(made)):
        parents[names[node]] = names[made[node]]
    return parents


def random_tree(chooser: random.Random, n: int) -> list[int]:
    """Each new node hangs from a node made before it, drawn at random: depth about e ln n."""
    return relabel(chooser, [-1] + [chooser.randrange(node) for node in range(1, n)])


def windowed_tree(chooser: random.Random, n: int, window: int) -> list[int]:
    """Each new node hangs from one of the `window` nodes made just before it: depth about
    2n / window, a bushy tree of long branches."""
    return relabel(chooser, [-1] + [chooser.randrange(max(0, node - window), node) for node in range(1, n)])


def arms_tree(chooser: random.Random, n: int, arms: int, twigs: int) -> list[int]:
    """`arms` paths down from the root, nearly the whole tree, and `twigs` single leaves hung on
    random nodes: a path-like tree about (n - twigs) / arms deep."""
    made = [-1]
    ends = [0] * arms
    for node in range(1, n - twigs):
        arm = node % arms
        made.append(ends[arm])
        ends[arm] = node
    made += [chooser.randrange(len(made)) for _ in range(twigs)]
    return relabel(chooser, made)


def random_queries(chooser: random.Random, n: int, count: int) -> list[list[int]]:
    return [[chooser.randrange(n), chooser.randrange(n)] for _ in range(count)]


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    path = arms_tree(chooser, 2_000, 1, 0)
    end = min(set(range(2_000)) - set(path))  # the one leaf: the far end of the path
    star = [-1] + [0] * 9
    inputs = {
        # One node: every query is [0, 0].
        "smoke/single": {"parents": [-1], "queries": [[0, 0], [0, 0]]},
        # Parents with larger numbers than their children: depths cannot be read in index order.
        # The tree: 0 - 6 - 2 - 5 - 1, 6 - 4 - 3, 0 - 7.
        "smoke/shuffled": {"parents": [-1, 5, 6, 4, 6, 2, 0, 0],
                           "queries": [[1, 3], [1, 7], [5, 4], [3, 0], [2, 6], [1, 1], [7, 3]]},
        # A node and its ancestor (either way round), a node and itself, two siblings, the root.
        "smoke/ancestors": {"parents": [-1, 0, 1, 2, 3, 1, 5, 0],
                            "queries": [[4, 1], [1, 4], [0, 6], [6, 0], [3, 3], [4, 6], [2, 5], [7, 4], [0, 0]]},
        # A star: leaves two apart, each one from the centre.
        "smoke/star": {"parents": star, "queries": [[1, 9], [0, 5], [5, 0], [3, 4], [8, 8]]},
        # A path of 2,000 nodes, numbered at random: its two ends are 1,999 apart.
        "smoke/path": {"parents": path, "queries": [[end, node] for node in range(0, 2_000, 97)]
                       + random_queries(chooser, 2_000, 40)},
        # No queries at all: an empty list.
        "smoke/no-queries": {"parents": [-1, 0, 0, 2], "queries": []},
    }
    small = random_tree(chooser, 10_000)
    large = windowed_tree(chooser, 50_000, 300)
    deep = arms_tree(chooser, 40_000, 2, 400)
    inputs.update({
        "cases/small": {"parents": small, "queries": random_queries(chooser, 10_000, 10_000)},
        "cases/large": {"parents": large, "queries": random_queries(chooser, 50_000, 30_000)},
        "cases/deep": {"parents": deep, "queries": random_queries(chooser, 40_000, 8_000)},
    })
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    medium = random_tree(samples, 2_000)
    long = arms_tree(samples, 3_000, 2, 30)
    inputs.update({
        f"{SAMPLES}/tiny": {"parents": [-1, 3, 0, 0, 1, 3], "queries": [[4, 5], [2, 4], [3, 3], [0, 4]]},
        f"{SAMPLES}/medium": {"parents": medium, "queries": random_queries(samples, 2_000, 2_000)},
        f"{SAMPLES}/deep": {"parents": long, "queries": random_queries(samples, 3_000, 500)},
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
