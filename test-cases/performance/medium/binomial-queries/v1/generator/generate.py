"""Write the held-out inputs of binomial-queries v1, the public samples of its workspace, and
every expected answer, from a plain reference.

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
SEED = 20261219
MODULUS = 1_000_000_007
LARGEST = 1_000_000


def reference(document: dict) -> dict:
    """The plainest correct answer: n! / (k! (n - k)!) from a table of factorials, the division
    done by Fermat's little theorem, one power per query."""
    queries = document["queries"]
    top = max(n for n, _ in queries)
    factorial = [1] * (top + 1)
    for i in range(1, top + 1):
        factorial[i] = factorial[i - 1] * i % MODULUS
    answers = []
    for n, k in queries:
        if k > n:
            answers.append(0)
        else:
            below = factorial[k] * factorial[n - k] % MODULUS
            answers.append(factorial[n] * pow(below, MODULUS - 2, MODULUS) % MODULUS)
    return {"answers": answers}


def random_queries(chooser: random.Random, count: int, top: int, beyond: int) -> dict:
    """`count` queries with n drawn from 0 … top and k from 0 … n; `beyond` of them ask for
    k > n instead (the answer 0)."""
    queries = []
    for index in range(count):
        n = chooser.randint(0, top)
        k = chooser.randint(n + 1, LARGEST) if index < beyond and n < LARGEST else chooser.randint(0, n)
        queries.append([n, k])
    chooser.shuffle(queries)
    return {"queries": queries}


def central_queries(chooser: random.Random, count: int, top: int) -> dict:
    """`count` queries with n drawn from top / 2 … top and k within 1% of n / 2: the middle of
    Pascal's triangle, where neither k nor n - k is small."""
    queries = []
    for _ in range(count):
        n = chooser.randint(top // 2, top)
        k = n // 2 + chooser.randint(-(n // 100), n // 100)
        queries.append([n, k])
    return {"queries": queries}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        # k = 0: one way to choose nothing, whatever n is (n = 0 included).
        "smoke/choose-none": {"queries": [[0, 0], [1, 0], [7, 0], [LARGEST, 0]]},
        # k = n: one way to choose everything.
        "smoke/choose-all": {"queries": [[0, 0], [3, 3], [999_999, 999_999], [LARGEST, LARGEST]]},
        # k > n: no way at all.
        "smoke/too-many": {"queries": [[0, 1], [3, 4], [10, LARGEST], [999_999, LARGEST], [5, 6]]},
        # Pascal's triangle up to n = 12, with k = n + 1 on every row.
        "smoke/pascal": {"queries": [[n, k] for n in range(13) for k in range(n + 2)]},
        # Large n and k: every product of two residues must be reduced before the next.
        "smoke/large": {"queries": [[LARGEST, 500_000], [LARGEST, 1], [LARGEST, 999_999], [999_983, 123_456],
                                    [66, 33], [500_000, 250_000], [123_456, 654]]},
        "cases/small": random_queries(chooser, 5_000, 5_000, 100),
        "cases/large": random_queries(chooser, 30_000, LARGEST, 500),
        "cases/central": central_queries(chooser, 5_000, 200_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"queries": [[5, 2], [10, 3], [4, 0], [3, 5], [40, 20]]},
        f"{SAMPLES}/medium": random_queries(samples, 1_000, 2_000, 20),
        f"{SAMPLES}/wide": random_queries(samples, 200, LARGEST, 5),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
