"""Write the held-out inputs of recurrence v1, the public samples of its workspace, and every
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
SEED = 20261229
MODULUS = 998_244_353
LARGEST = 10 ** 18
# The 59-bit number with every bit set, and the 60-bit one below 10^18 with the most bits set.
WIDEST_59, WIDEST_60 = (1 << 59) - 1, (1 << 60) - 1 - (1 << 57) - (1 << 56)


def term(n: int, coefficients: list, initial: list) -> int:
    """a_n as Σ r_i a_i, where x^n mod f(x) = Σ r_i x^i and f(x) = x^d - Σ c_i x^(d-i): shifting
    by x is one step of the recurrence. x^n by squaring, each square folded back below x^d."""
    d = len(coefficients)
    if n < d:
        return initial[n]

    def reduce(wide: list) -> list:
        for power in range(len(wide) - 1, d - 1, -1):
            top = wide[power]
            for i, c in enumerate(coefficients):
                wide[power - 1 - i] = (wide[power - 1 - i] + top * c) % MODULUS
        return wide[:d]

    r = [1] + [0] * (d - 1)
    for bit in bin(n)[2:]:
        wide = [0] * (2 * d - 1)
        for i, left in enumerate(r):
            if left:
                for j, right in enumerate(r):
                    wide[i + j] += left * right
        r = reduce([w % MODULUS for w in wide])
        if bit == "1":
            r = reduce([0] + r)
    return sum(ri * ai for ri, ai in zip(r, initial)) % MODULUS


def reference(document: dict) -> dict:
    """The plainest correct answer: each query on its own, by polynomial powers."""
    coefficients, initial = document["coefficients"], document["initial"]
    return {"terms": [term(int(n), coefficients, initial) for n in document["queries"]]}


def random_case(chooser: random.Random, d: int, queries: int, small: int) -> dict:
    """A random recurrence of order d; `small` queries below 1,000 (some among the initial
    terms), the rest drawn from 0 … 10^18 with an even spread of sizes (their number of digits
    uniform)."""
    wanted = [chooser.randrange(1_000) for _ in range(small)]
    while len(wanted) < queries:
        digits = chooser.randint(4, 19)
        wanted.append(min(LARGEST, chooser.randrange(10 ** (digits - 1), 10 ** digits)))
    chooser.shuffle(wanted)
    return {"coefficients": [chooser.randrange(MODULUS) for _ in range(d)],
            "initial": [chooser.randrange(MODULUS) for _ in range(d)],
            "queries": [str(n) for n in wanted]}


def dense_case(chooser: random.Random, d: int, queries: int) -> dict:
    """Queries with 59 or 60 bits, nearly all of them set (two bits below the 50th cleared): the
    most doublings and multiplications any n up to 10^18 needs."""
    wanted = []
    for _ in range(queries):
        below = chooser.choice((WIDEST_59, WIDEST_60))
        wanted.append(below - sum(1 << chooser.randrange(50) for _ in range(2)))
    return {"coefficients": [chooser.randrange(MODULUS) for _ in range(d)],
            "initial": [chooser.randrange(MODULUS) for _ in range(d)],
            "queries": [str(n) for n in wanted]}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    top = MODULUS - 1
    inputs = {
        # Order 1: a_n = 3 a_(n-1), a_0 = 5, so a_n = 5 · 3^n.
        "smoke/geometric": {"coefficients": [3], "initial": [5], "queries": ["0", "1", "2", "10", "100", "1000"]},
        # Fibonacci: F_90 is beyond 64 bits, so only its residue fits.
        "smoke/fibonacci": {"coefficients": [1, 1], "initial": [0, 1],
                            "queries": ["0", "1", "2", "10", "90", "1000", "2", "0"]},
        # Lopsided coefficients: queries among the initial terms and just past them.
        "smoke/lopsided": {"coefficients": [2, 0, 0, 0, 7], "initial": [1, 2, 3, 4, 5],
                           "queries": ["4", "0", "5", "6", "7", "9", "10", "11", "3", "500"]},
        # a_n = a_(n-3): a cycle of three, with residues near the modulus.
        "smoke/cycle": {"coefficients": [0, 0, 1], "initial": [top, 1, top - 1],
                        "queries": ["0", "1", "2", "3", "4", "5", "299", "1000", "1001"]},
        # Order 30, every value the largest residue: sums of products must be reduced.
        "smoke/largest": {"coefficients": [top] * 30, "initial": [top] * 30,
                          "queries": ["0", "29", "30", "31", "100", "2000"]},
        "cases/small": random_case(chooser, 8, 100, 10),
        "cases/large": random_case(chooser, 30, 60, 4),
        "cases/dense": dense_case(chooser, 20, 20),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"coefficients": [1, 1], "initial": [2, 1], "queries": ["0", "1", "5", "10", "100"]},
        f"{SAMPLES}/medium": random_case(samples, 10, 30, 5),
        f"{SAMPLES}/small-n": random_case(samples, 6, 20, 20),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
