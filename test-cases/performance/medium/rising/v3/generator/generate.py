"""Generate the held-out inputs of rising v3 (the same as v1's and v2's), the public samples of its
workspace, and every expected answer. `checksums.sha256` lists the digests of what it writes.

The reference is the textbook patience-sorting length computation (bisect on tails); the Rust
examples (examples/submissions/rising) compute it independently. Deterministic.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import bisect
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def reference(document: dict) -> dict:
    tails: list[int] = []  # tails[k]: the smallest tail of a strictly rising run of length k + 1
    for value in document["values"]:
        position = bisect.bisect_left(tails, value)
        if position == len(tails):
            tails.append(value)
        else:
            tails[position] = value
    return {"length": len(tails)}


def random_values(seed: int, length: int, spread: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(-spread, spread) for _ in range(length)]


def drifting_values(seed: int, length: int) -> list[int]:
    """A rising trend with noise: long answers, where careless solutions slow down most."""
    rng = random.Random(seed)
    return [index * 3 + rng.randint(-400, 400) for index in range(length)]


CASES = {
    "smoke/rising.json": {"values": list(range(1, 11))},
    "smoke/falling.json": {"values": list(range(10, 0, -1))},
    "smoke/repeats.json": {"values": [2, 2, 2, 3, 3, 1, 1]},
    "smoke/empty.json": {"values": []},
    "cases/small.json": {"values": random_values(11, 1_500, 1_000_000_000)},
    "cases/large.json": {"values": random_values(12, 6_000, 1_000_000_000)},
    "cases/drift.json": {"values": drifting_values(13, 6_000)},
    # New in v2: public samples, seeded with the workspace (never a held-out input).
    "workspaces/base/samples/tiny.json": {"values": [5, 1, 4, 2, 3, 9, 3]},
    "workspaces/base/samples/random.json": {"values": random_values(211, 1_000, 1_000_000)},
    "workspaces/base/samples/drift.json": {"values": drifting_values(212, 1_000)},
}


def write(path: Path, document: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for rel, document in CASES.items():
        write(out / rel, document)
        write(out / rel.replace(".json", ".out"), reference(document))


if __name__ == "__main__":
    main()
