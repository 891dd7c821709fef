"""Generate the held-out inputs of kth-smallest v1, the public samples of its workspace, and
every expected answer.

The reference implementation below is deliberately the plainest correct one (sort a copy, index
it); the Rust reference solution (solutions/kth-smallest/accepted/reference) must reproduce
every answer when scored. Deterministic: running it again writes identical files, whose digests
`checksums.sha256` lists.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SPREAD = 1_000_000_000


def reference(document: dict) -> dict:
    ordered = sorted(document["values"])
    return {"answers": [ordered[k - 1] for k in document["queries"]]}


def random_case(seed: int, length: int, queries: int, spread: int = SPREAD) -> dict:
    """`length` values drawn from [-spread, spread] and `queries` ranks drawn from [1, length]."""
    rng = random.Random(seed)
    values = [rng.randint(-spread, spread) for _ in range(length)]
    ranks = [rng.randint(1, length) for _ in range(queries)]
    return {"values": values, "queries": ranks}


def few_queries(seed: int, length: int) -> dict:
    """A long array and a handful of queries: the smallest, the median, the largest, one at random."""
    document = random_case(seed, length, 0)
    rng = random.Random(seed + 1)
    document["queries"] = [1, (length + 1) // 2, length, rng.randint(1, length)]
    return document


CASES = {
    "smoke/single.json": {"values": [7], "queries": [1, 1]},
    "smoke/repeats.json": {"values": [5, 1, 5, 3, 1], "queries": [2, 3, 5, 1]},
    "smoke/negative.json": {"values": [-3, 10, -7, 2, 0, -1_000_000_000, 1_000_000_000], "queries": [1, 7, 4, 2]},
    "smoke/empty.json": {"values": [], "queries": []},
    # Many queries against a short array: work repeated per query is paid 1,200 times.
    "cases/small.json": random_case(41, 2_000, 1_200),
    # A long array with a handful of queries: the cost is reading and ordering the values.
    "cases/large.json": few_queries(42, 50_000),
    # Public samples, seeded with the workspace (never a held-out input).
    f"{SAMPLES}/tiny.json": {"values": [40, -2, 17, 40, 8], "queries": [1, 3, 5, 4]},
    f"{SAMPLES}/medium.json": random_case(141, 3_000, 300, spread=1_000),
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
