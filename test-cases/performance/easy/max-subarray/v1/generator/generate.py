"""Generate the held-out inputs of max-subarray v1, the public samples of its workspace, and every
expected answer.

The reference implementation below is deliberately plain (one scan, with the tie rules written
out); the Rust reference solution (solutions/max-subarray/accepted/reference) must reproduce
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
    """The largest sum of a non-empty run values[start..=end]; of the runs with that sum, the one
    with the earliest start, then the earliest end."""
    values = document["values"]
    best = None
    run_sum, run_start = 0, 0
    for index, value in enumerate(values):
        # The best run ending here starts as early as it can: keep the run before it while its
        # sum is not negative (a zero-sum prefix keeps the earlier start).
        if index > 0 and run_sum >= 0:
            run_sum += value
        else:
            run_sum, run_start = value, index
        # Only a strictly larger sum replaces the best: a later run with the same sum starts
        # no earlier, and at the same start it is longer.
        if best is None or run_sum > best[0]:
            best = (run_sum, run_start, index)
    total, start, end = best
    return {"sum": total, "start": start, "end": end}


def random_values(seed: int, length: int, low: int = -SPREAD, high: int = SPREAD) -> dict:
    rng = random.Random(seed)
    return {"values": [rng.randint(low, high) for _ in range(length)]}


CASES = {
    "smoke/single.json": {"values": [-5]},
    "smoke/all-negative.json": {"values": [-3, -1, -2, -1, -4]},
    "smoke/whole.json": {"values": [1_000_000_000, 1_000_000_000, -1, 1_000_000_000]},
    "smoke/inner.json": {"values": [-1, 4, -1, 5, -20, 3]},
    "smoke/ties.json": {"values": [2, -2, 3, 0, -9, 1]},
    "cases/small.json": random_values(51, 3_000),
    "cases/large.json": random_values(52, 60_000),
    # Values in [-1, 1]: a great many runs share the largest sum, so the tie rules decide.
    "cases/flat.json": random_values(53, 30_000, -1, 1),
    # Public samples, seeded with the workspace (never a held-out input).
    f"{SAMPLES}/tiny.json": {"values": [3, -4, 5, -1, 2, -6, 1]},
    f"{SAMPLES}/medium.json": random_values(151, 3_000),
    f"{SAMPLES}/flat.json": random_values(155, 2_000, -1, 1),
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
