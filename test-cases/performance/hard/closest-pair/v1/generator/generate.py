"""Write the held-out inputs of closest-pair v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import bisect
import json
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261402
REACH = 1_000_000_000


def reference(document: dict) -> dict:
    """A plain sweep: take the points by x, keeping those within the best distance of the sweep
    line in a list sorted by y, and compare each new point only with the kept ones whose y is
    that close too. Exact integers throughout."""
    points = sorted((x, y) for x, y in document["points"])
    best = (points[1][0] - points[0][0]) ** 2 + (points[1][1] - points[0][1]) ** 2
    kept: list[tuple[int, int]] = []  # (y, x), sorted
    oldest = 0
    for x, y in points:
        while (x - points[oldest][0]) ** 2 > best:
            gone = points[oldest]
            del kept[bisect.bisect_left(kept, (gone[1], gone[0]))]
            oldest += 1
        reach = math.isqrt(best) + 1
        at = bisect.bisect_left(kept, (y - reach, -REACH - 1))
        while at < len(kept) and kept[at][0] <= y + reach:
            other_y, other_x = kept[at]
            best = min(best, (x - other_x) ** 2 + (y - other_y) ** 2)
            at += 1
        bisect.insort(kept, (y, x))
    return {"distance": best}


def uniform(chooser: random.Random, count: int, reach: int = REACH) -> list[list[int]]:
    """Different points drawn uniformly from the square [-reach, reach]²."""
    seen: set[tuple[int, int]] = set()
    while len(seen) < count:
        seen.add((chooser.randint(-reach, reach), chooser.randint(-reach, reach)))
    points = [list(point) for point in seen]
    points.sort()
    chooser.shuffle(points)
    return points


def lines(chooser: random.Random, count: int, columns: int) -> list[list[int]]:
    """Different points on a few vertical lines (the same x for many points), y uniform: a sweep
    by x alone sees every earlier point on its line as a candidate."""
    xs = [chooser.randint(-REACH, REACH) for _ in range(columns)]
    seen: set[tuple[int, int]] = set()
    while len(seen) < count:
        seen.add((chooser.choice(xs), chooser.randint(-REACH, REACH)))
    points = [list(point) for point in seen]
    points.sort()
    chooser.shuffle(points)
    return points


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/two": {"points": [[-3, 7], [1, 4]]},
        # The same point twice (among others): the distance is 0.
        "smoke/duplicates": {"points": [[5, 5], [-2, 8], [9, -1], [-2, 8], [0, 0], [7, 3]]},
        # On one line, out of order: the closest pair is not the first two.
        "smoke/collinear": {"points": [[0, 0], [30, 15], [12, 6], [-8, -4], [20, 10], [26, 13]]},
        # Every x the same: only y tells them apart.
        "smoke/vertical": {"points": [[4, 100], [4, -7], [4, 61], [4, 0], [4, 90], [4, -50]]},
        # Opposite corners: an odd squared distance of about 8·10^18, beyond a double's 53 bits.
        "smoke/far": {"points": [[-1_000_000_000, -1_000_000_000], [999_999_999, 999_999_998]]},
        "cases/small": {"points": uniform(chooser, 3_000)},
        "cases/large": {"points": uniform(chooser, 25_000)},
        "cases/lines": {"points": lines(chooser, 20_000, 3)},
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"points": [[0, 0], [5, 4], [3, 1], [9, 9], [4, 6]]},
        f"{SAMPLES}/medium": {"points": uniform(samples, 2_000)},
        f"{SAMPLES}/lines": {"points": lines(samples, 2_000, 2)},
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
