"""Write the held-out inputs of range-min v1, the public samples of its workspace, and every
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
SEED = 20261303
SPREAD = 1_000_000


def reference(document: dict) -> dict:
    """The plainest correct answer: the minimum of each slice."""
    values = document["values"]
    return {"minimums": [min(values[left:right]) for left, right in document["queries"]]}


def random_values(chooser: random.Random, length: int) -> list[int]:
    return [chooser.randint(-SPREAD, SPREAD) for _ in range(length)]


def random_case(chooser: random.Random, length: int, queries: int) -> dict:
    """Ranges with both ends uniformly random."""
    ranges = []
    for _ in range(queries):
        left, right = sorted(chooser.sample(range(length + 1), 2))
        ranges.append([left, right])
    return {"values": random_values(chooser, length), "queries": ranges}


def short_case(chooser: random.Random, length: int, queries: int, longest: int) -> dict:
    """Ranges of 1 to `longest` values, short ones more often (as many of each power of two)."""
    ranges = []
    for _ in range(queries):
        size = min(length, chooser.randint(1, 1 << chooser.randint(0, longest.bit_length() - 1)))
        left = chooser.randint(0, length - size)
        ranges.append([left, left + size])
    return {"values": random_values(chooser, length), "queries": ranges}


def wide_case(chooser: random.Random, length: int, queries: int) -> dict:
    """Ranges that each cover at least 80% of the array."""
    ranges = []
    for _ in range(queries):
        size = chooser.randint(length * 4 // 5, length)
        left = chooser.randint(0, length - size)
        ranges.append([left, left + size])
    return {"values": random_values(chooser, length), "queries": ranges}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/single": {"values": [7], "queries": [[0, 1], [0, 1]]},
        # A range stops before its right end: [0, 1) holds 5 only, not the 1 after it.
        "smoke/half-open": {"values": [5, 1, 3, 2], "queries": [[0, 1], [0, 2], [2, 3], [1, 4], [2, 4], [3, 4]]},
        "smoke/negative": {"values": [3, -1, 4, -5, 9, -1000000, 1000000],
                           "queries": [[0, 7], [1, 2], [2, 3], [3, 5], [4, 5], [6, 7], [0, 3]]},
        # Lengths that are not powers of two, next to smaller values outside the range.
        "smoke/lengths": {"values": [1, 9, 8, 7, 6, 5, 4, 0],
                          "queries": [[1, 4], [1, 7], [2, 5], [1, 6], [3, 6], [1, 2], [0, 8]]},
        "cases/small": random_case(chooser, 2_000, 2_000),
        "cases/large": short_case(chooser, 30_000, 20_000, 1_024),
        "cases/wide": wide_case(chooser, 25_000, 2_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"values": [3, -1, 4, 1, -5, 9], "queries": [[0, 2], [1, 5], [3, 4], [0, 6]]},
        f"{SAMPLES}/medium": short_case(samples, 5_000, 3_000, 1_024),
        f"{SAMPLES}/wide": wide_case(samples, 3_000, 300),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
