"""Write the held-out inputs of @SLUG@, the public samples of its workspace, and every expected
answer, from a plain reference.

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
SEED = 20261205


def answer(document: dict) -> dict:
    """The reference: the plainest correct answer."""
    return {"total": sum(document["values"])}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/three": {"values": [1, -2, 40]},
        "cases/large": {"values": [chooser.randint(-1_000_000, 1_000_000) for _ in range(20_000)]},
        # Public: every kit carries these, so none may be a held-out input.
        f"{SAMPLES}/tiny": {"values": [7, -3, 5, 0]},
        f"{SAMPLES}/medium": {"values": [chooser.randint(-1_000_000, 1_000_000) for _ in range(1_000)]},
    }
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", answer(document))


if __name__ == "__main__":
    main()
