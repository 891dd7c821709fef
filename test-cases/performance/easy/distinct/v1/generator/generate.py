"""Generate the held-out inputs of distinct v1 and their expected answers (a Python set).

    python3 generator/generate.py        # from the version folder
"""

from __future__ import annotations

import json
import random
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
}


def write(path: Path, document: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    for rel, document in CASES.items():
        write(HERE / rel, document)
        write(HERE / rel.replace(".json", ".out"), reference(document))


if __name__ == "__main__":
    main()
