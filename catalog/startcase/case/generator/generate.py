"""Write the held-out inputs of @SLUG@ and their expected answers, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py        # from the version folder
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SEED = 20261205


def answer(document: dict) -> dict:
    """The reference: the plainest correct answer."""
    return {"total": sum(document["values"])}


def write(rel: str, document: dict) -> None:
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n")


def main() -> None:
    chooser = random.Random(SEED)
    inputs = {
        "smoke/three": {"values": [1, -2, 40]},
        "cases/large": {"values": [chooser.randint(-1_000_000, 1_000_000) for _ in range(20_000)]},
    }
    for stem, document in inputs.items():
        write(f"{stem}.json", document)
        write(f"{stem}.out", answer(document))


if __name__ == "__main__":
    main()
