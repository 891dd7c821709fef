"""Write the held-out inputs of convex-hull v1, the public samples of its workspace, and every
expected answer, from a plain reference.

Seeded and deterministic: running it again rewrites identical files, on any machine. The
solutions beside the catalog (`check_case`) must reproduce every answer.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import functools
import json
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLES = "workspaces/base/samples"
SEED = 20261217
REACH = 1_000_000_000


def cross(o: tuple, a: tuple, b: tuple) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def reference(document: dict) -> dict:
    """The plainest correct answer: Andrew's monotone chain over the distinct points, dropping
    every point that does not make a strict left turn; then the shoelace formula (Python's
    integers are exact)."""
    points = sorted({(x, y) for x, y in document["points"]})
    if len(points) == 1:
        return {"vertices": 1, "area2": 0}

    def chain(ordered: list) -> list:
        kept: list = []
        for point in ordered:
            while len(kept) >= 2 and cross(kept[-2], kept[-1], point) <= 0:
                kept.pop()
            kept.append(point)
        return kept[:-1]

    hull = chain(points) + chain(points[::-1])
    twice = sum(hull[i][0] * hull[(i + 1) % len(hull)][1] - hull[(i + 1) % len(hull)][0] * hull[i][1]
                for i in range(len(hull)))
    return {"vertices": len(hull), "area2": abs(twice)}


def by_angle(u: tuple, v: tuple) -> int:
    """Order vectors by their angle from the positive x axis, in [0, 2π), exactly."""
    upper_u, upper_v = u[1] > 0 or (u[1] == 0 and u[0] > 0), v[1] > 0 or (v[1] == 0 and v[0] > 0)
    if upper_u != upper_v:
        return -1 if upper_u else 1
    turn = u[0] * v[1] - u[1] * v[0]
    return -1 if turn > 0 else (1 if turn < 0 else 0)


def in_disk(chooser: random.Random, count: int, radius: int) -> list:
    """Points drawn uniformly from the disk of this radius about the origin."""
    points = []
    while len(points) < count:
        x, y = chooser.randint(-radius, radius), chooser.randint(-radius, radius)
        if x * x + y * y <= radius * radius:
            points.append([x, y])
    return points


def round_polygon(chooser: random.Random, corners: int, inside: int, on_edges: int) -> dict:
    """A strictly convex lattice polygon that looks like a circle: the primitive vectors
    shortest first, taken as its edges in order of angle, scaled up to fill the coordinate
    range; then `inside` points strictly inside it and `on_edges` midpoints of its edges (on the
    hull, but not corners), all shuffled together."""
    vectors = []
    radius = 1
    while len(vectors) < corners:
        radius += 1
        vectors = [(a, b) for a in range(-radius, radius + 1) for b in range(-radius, radius + 1)
                   if a * a + b * b <= radius * radius and math.gcd(a, b) == 1]
    # Opposite vectors come in pairs, so any set closed under negation sums to zero: keep the
    # shortest, a pair at a time.
    half = sorted((v for v in vectors if v > (0, 0)), key=lambda v: (v[0] * v[0] + v[1] * v[1], v))
    chosen = half[:corners // 2]
    edges = sorted(chosen + [(-a, -b) for a, b in chosen], key=functools.cmp_to_key(by_angle))
    x = y = 0
    polygon = []
    for a, b in edges:
        polygon.append((x, y))
        x, y = x + a, y + b
    low_x, high_x = min(p[0] for p in polygon), max(p[0] for p in polygon)
    low_y, high_y = min(p[1] for p in polygon), max(p[1] for p in polygon)
    scale = 2 * ((2 * REACH) // (2 * max(high_x - low_x, high_y - low_y)))  # even: midpoints stay whole
    shift_x, shift_y = -REACH - scale * low_x, -REACH - scale * low_y
    corners_at = [(scale * px + shift_x, scale * py + shift_y) for px, py in polygon]
    points = [list(p) for p in corners_at]
    for index in chooser.sample(range(len(corners_at)), on_edges):
        (ax, ay), (bx, by) = corners_at[index], corners_at[(index + 1) % len(corners_at)]
        points.append([(ax + bx) // 2, (ay + by) // 2])
    middle_x = (min(p[0] for p in corners_at) + max(p[0] for p in corners_at)) // 2
    middle_y = (min(p[1] for p in corners_at) + max(p[1] for p in corners_at)) // 2
    span = (max(p[0] for p in corners_at) - min(p[0] for p in corners_at)) // 3  # well inside
    points.extend([middle_x + x, middle_y + y] for x, y in in_disk(chooser, inside, span))
    chooser.shuffle(points)
    return {"points": points}


def scattered(chooser: random.Random, count: int, repeats: int) -> dict:
    """Points in the disk of radius 10^9, some of them given more than once."""
    points = in_disk(chooser, count - repeats, REACH)
    points.extend(list(chooser.choice(points)) for _ in range(repeats))
    chooser.shuffle(points)
    return {"points": points}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    big = REACH
    inputs = {
        # One point, given three times: the hull is that point.
        "smoke/one-point": {"points": [[7, -3], [7, -3], [7, -3]]},
        # Every point on one line, unsorted and with repeats: the hull is a segment (2 corners).
        "smoke/collinear": {"points": [[4, 2], [-2, -1], [10, 5], [0, 0], [6, 3], [-2, -1], [2, 1], [10, 5]]},
        # A triangle with points inside it and on its edges: only the three corners count.
        "smoke/triangle": {"points": [[0, 0], [5, 5], [12, 0], [3, 1], [6, 0], [9, 3], [2, 2], [6, 2], [4, 1],
                                      [10, 2], [0, 0], [5, 3], [3, 3], [12, 0], [6, 6], [3, 0], [5, 5]]},
        # A square of side 2 * 10^9 (twice its area is 8 * 10^18, beyond 2^53) with its edges'
        # midpoints, repeated corners and the origin.
        "smoke/far-corners": {"points": [[big, -big], [0, 0], [-big, -big], [big, big], [0, big], [-big, big],
                                         [big, 0], [-big, 0], [0, -big], [big, big], [-big, -big]]},
        # Two points repeated: a segment.
        "smoke/two-points": {"points": [[-5, 9], [8, -1], [8, -1], [-5, 9], [8, -1]]},
        "cases/small": scattered(chooser, 2_000, 100),
        "cases/large": scattered(chooser, 30_000, 1_000),
        "cases/round": round_polygon(chooser, 3_400, 2_100, 500),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": {"points": [[0, 0], [4, 0], [4, 3], [2, 1], [0, 3], [2, 0], [4, 3]]},
        f"{SAMPLES}/medium": scattered(samples, 1_000, 50),
        f"{SAMPLES}/round": round_polygon(samples, 300, 200, 50),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
