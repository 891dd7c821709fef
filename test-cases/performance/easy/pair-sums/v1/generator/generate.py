"""Write the held-out inputs of pair-sums v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261212


def reference(document: dict) -> dict:
    """The plainest correct answer: how often each value occurs, then, for each target, every
    value paired with its partner (`target - value`) once, from the smaller end."""
    occurrences = Counter(document["values"])
    counts = []
    for target in document["targets"]:
        pairs = 0
        for value, count in occurrences.items():
            partner = target - value
            if value < partner:
                pairs += count * occurrences.get(partner, 0)
            elif value == partner:
                pairs += count * (count - 1) // 2
        counts.append(pairs)
    return {"counts": counts}


def random_case(chooser: random.Random, length: int, targets: int, spread: int) -> dict:
    """Values from [-spread, spread] (so some repeat); most targets are the sum of two values at
    different indices, some are twice a value, the rest are drawn at random (often no pair)."""
    values = [chooser.randint(-spread, spread) for _ in range(length)]
    chosen = []
    for _ in range(targets):
        roll = chooser.random()
        if roll < 0.7:
            i, j = chooser.sample(range(length), 2)
            chosen.append(values[i] + values[j])
        elif roll < 0.8:
            chosen.append(2 * chooser.choice(values))
        else:
            chosen.append(chooser.randint(-2 * spread - 5, 2 * spread + 5))
    return {"values": values, "targets": chosen}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/empty": {"values": [], "targets": [0, 1]},
        # Each pair counts once: 1 + 4 and 2 + 3, not also 4 + 1 and 3 + 2.
        "smoke/pairs-once": {"values": [1, 2, 3, 4], "targets": [5, 3, 7, 10]},
        # A value never pairs with itself: three 3s make three pairs for 6; a lone 5 none for 10.
        "smoke/own-partner": {"values": [3, 5, 3, 3, 2, 2], "targets": [6, 10, 4, 5]},
        # Sums beyond 32 bits, negative values and targets, zeros.
        "smoke/wide": {"values": [1000000000, 999999999, -1000000000, 0, 0, -7, 1000000000],
                       "targets": [2000000000, 1999999999, 0, -7, -2000000000]},
        "smoke/no-targets": {"values": [4, 4], "targets": []},
        "cases/small": random_case(chooser, 60, 1_000, 300),
        "cases/large": random_case(chooser, 120, 4_000, 1_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"values": [1, 5, 3, 3, 7, -1], "targets": [6, 8, 2, 100]},
        f"{SAMPLES}/medium": random_case(samples, 80, 1_000, 500),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
