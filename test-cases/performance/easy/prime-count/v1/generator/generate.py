"""Generate the held-out inputs of prime-count v1, the public samples of its workspace, and every
expected answer.

The reference implementation below is deliberately plain (a sieve of Eratosthenes up to the
largest query, then a count); the Rust reference solution
(solutions/prime-count/accepted/reference) must reproduce every answer when scored.
Deterministic: running it again writes identical files, whose digests `checksums.sha256` lists.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from itertools import accumulate
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
LIMIT = 2_000_000


def reference(document: dict) -> dict:
    queries = document["queries"]
    top = max(queries, default=0)
    prime = [True] * (top + 1)
    prime[:2] = [False] * min(2, top + 1)
    for factor in range(2, int(top**0.5) + 1):
        if prime[factor]:
            prime[factor * factor :: factor] = [False] * len(range(factor * factor, top + 1, factor))
    count = list(accumulate(int(flag) for flag in prime))  # count[n]: the primes <= n
    return {"counts": [count[n] for n in queries]}


def random_queries(seed: int, queries: int, top: int) -> dict:
    """`queries` numbers drawn from [0, top], with `top` itself and a few tiny ones among them."""
    rng = random.Random(seed)
    numbers = [rng.randint(0, top) for _ in range(queries - 4)] + [top, 0, 1, 2]
    rng.shuffle(numbers)
    return {"queries": numbers}


CASES = {
    "smoke/edges.json": {"queries": [0, 1, 2]},
    "smoke/small-numbers.json": {"queries": [3, 4, 5, 10, 11, 30, 97, 100]},
    "smoke/unordered.json": {"queries": [1000, 2, 7919, 0, 1000, 7918]},
    "smoke/empty.json": {"queries": []},
    "cases/small.json": random_queries(61, 1_000, 100_000),
    "cases/large.json": random_queries(62, 2_000, LIMIT),
    # Public samples, seeded with the workspace (never a held-out input).
    f"{SAMPLES}/tiny.json": {"queries": [10, 0, 2, 100, 30]},
    f"{SAMPLES}/medium.json": random_queries(161, 500, 300_000),
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
