"""Generate the held-out inputs of range-sums v4 (the same as v2's and v3's), the public samples
of its workspace, and every expected answer.

The reference implementation below is deliberately the plainest correct one; a Rust reference
solution (solutions/range-sums/accepted/fast) must reproduce every answer when scored.
Deterministic: running it again writes identical files, whose digests `checksums.sha256` lists.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"


def reference(document: dict) -> dict:
    values = document["values"]
    prefix = [0]
    for value in values:
        prefix.append(prefix[-1] + value)
    return {"sums": [prefix[right] - prefix[left] for left, right in document["queries"]]}


def random_case(seed: int, length: int, queries: int, *, wide: bool) -> dict:
    rng = random.Random(seed)
    values = [rng.randint(-1_000_000, 1_000_000) for _ in range(length)]
    pairs = []
    for _ in range(queries):
        if wide:
            left = rng.randint(0, length // 10)
            right = rng.randint(length - length // 10, length)
        else:
            left = rng.randint(0, length)
            right = rng.randint(left, length)
        pairs.append([left, right])
    return {"values": values, "queries": pairs}


CASES = {
    "smoke/single.json": {"values": [42], "queries": [[0, 1]]},
    "smoke/empty-range.json": {"values": [5, 6, 7], "queries": [[1, 1], [3, 3], [0, 0]]},
    "smoke/negative.json": {"values": [-3, 10, -7, 2], "queries": [[0, 4], [0, 3], [2, 4]]},
    "cases/small.json": random_case(1, 2_000, 1_000, wide=False),
    "cases/large.json": random_case(2, 20_000, 5_000, wide=False),
    # New in v2: ranges that each cover at least 80% of the array.
    "cases/wide.json": random_case(3, 30_000, 2_000, wide=True),
    # New in v4: public samples, seeded with the workspace (never a held-out input).
    f"{SAMPLES}/tiny.json": {"values": [3, -1, 4, 1, -5], "queries": [[0, 2], [1, 5], [3, 3]]},
    f"{SAMPLES}/medium.json": random_case(104, 3_000, 1_000, wide=False),
    f"{SAMPLES}/wide.json": random_case(105, 5_000, 500, wide=True),
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
