"""Write the held-out inputs of knapsack v1, the public samples of its workspace, and every
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
SEED = 20261304


def reference(document: dict) -> dict:
    """The plainest correct answer: best[c] is the largest value of a subset of the items seen so
    far whose weight is at most c; each item is added once (c runs downwards)."""
    capacity = document["capacity"]
    best = [0] * (capacity + 1)
    for weight, value in document["items"]:
        for room in range(capacity, weight - 1, -1):
            if best[room - weight] + value > best[room]:
                best[room] = best[room - weight] + value
    return {"value": best[capacity]}


def random_case(chooser: random.Random, items: int, capacity: int, heaviest: int, dearest: int) -> dict:
    """Weights 1 … heaviest and values 1 … dearest, drawn independently."""
    return {"capacity": capacity,
            "items": [[chooser.randint(1, heaviest), chooser.randint(1, dearest)] for _ in range(items)]}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/no-items": {"capacity": 10, "items": []},
        "smoke/no-room": {"capacity": 0, "items": [[1, 5], [2, 3]]},
        # Too heavy for the knapsack on its own: only the light, cheap item fits.
        "smoke/too-heavy": {"capacity": 5, "items": [[6, 100], [5, 1]]},
        # Each item is taken at most once: not three times the first one.
        "smoke/once": {"capacity": 10, "items": [[3, 5], [4, 1]]},
        # The best value per unit of weight (6, 7) leaves room for nothing else; two 5s fill it.
        "smoke/greedy-trap": {"capacity": 10, "items": [[6, 7], [5, 5], [5, 5]]},
        # Everything fits exactly.
        "smoke/all-fit": {"capacity": 15, "items": [[1, 1], [2, 2], [3, 4], [4, 8], [5, 16]]},
        "cases/small": random_case(chooser, 50, 5_000, 500, 1_000),
        "cases/large": random_case(chooser, 250, 20_000, 1_000, 300),
        "cases/roomy": random_case(chooser, 50, 100_000, 20_000, 1_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"capacity": 8, "items": [[3, 4], [4, 5], [2, 3], [5, 8]]},
        f"{SAMPLES}/medium": random_case(samples, 100, 5_000, 500, 300),
        f"{SAMPLES}/roomy": random_case(samples, 20, 50_000, 20_000, 1_000),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
