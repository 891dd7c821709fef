"""Generate the held-out inputs of distinct v3 (the same as v1's and v2's), the public samples of its
workspace, and every expected answer (a Python set). Deterministic: `checksums.sha256` lists the
digests of what it writes.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def reference(document: dict) -> dict:
    return {"distinct": len(set(document["values"]))}


def random_values(seed: int, length: int, spread: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(-spread, spread) for _ in range(length)]


CASES = {
    "smoke/all-same.json": {"values": [4, 4, 4, 4]},
    "smoke/all-different.json": {"values": [3, -1, 2, 0]},
    "smoke/empty.json": {"values": []},
    "cases/small.json": {"values": random_values(31, 2_000, 1_000)},
    "cases/large.json": {"values": random_values(32, 8_000, 5_000)},
    # New in v2: public samples, seeded with the workspace (never a held-out input).
    "workspaces/base/samples/tiny.json": {"values": [4, -2, 4, 7, -2]},
    "workspaces/base/samples/medium.json": {"values": random_values(203, 3_000, 2_000)},
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
