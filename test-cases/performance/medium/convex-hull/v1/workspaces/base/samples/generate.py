"""Make a convex-hull input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --points 30000 [--repeats 1000] [--seed 7] > big.json
    python3 samples/generate.py --round 3000 --points 5500 > round.json

Points drawn uniformly from the disk of radius 10^9 (a few of them given twice, with
`--repeats`); or, with `--round CORNERS`, a lattice polygon with that many corners that looks
like a circle, scaled to fill the coordinate range, with midpoints of some of its edges and
points inside it making up `--points` in all, as `cases/round.json` is made. The site's held-out
inputs are made the same way, with seeds of their own.
"""

import argparse
import functools
import json
import math
import random

REACH = 1_000_000_000

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--points", type=int, default=30_000, help="points in all (1 to 200,000)")
parser.add_argument("--repeats", type=int, default=0, help="how many of them repeat another point")
parser.add_argument("--round", type=int, default=0, help="make a round hull with about this many corners")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)


def in_disk(count: int, radius: int) -> list:
    points = []
    while len(points) < count:
        x, y = rng.randint(-radius, radius), rng.randint(-radius, radius)
        if x * x + y * y <= radius * radius:
            points.append([x, y])
    return points


def by_angle(u: tuple, v: tuple) -> int:
    upper_u, upper_v = u[1] > 0 or (u[1] == 0 and u[0] > 0), v[1] > 0 or (v[1] == 0 and v[0] > 0)
    if upper_u != upper_v:
        return -1 if upper_u else 1
    turn = u[0] * v[1] - u[1] * v[0]
    return -1 if turn > 0 else (1 if turn < 0 else 0)


count = max(1, arguments.points)
if arguments.round:
    wanted = max(4, arguments.round)
    radius, vectors = 1, []
    while len(vectors) < wanted:
        radius += 1
        vectors = [(a, b) for a in range(-radius, radius + 1) for b in range(-radius, radius + 1)
                   if a * a + b * b <= radius * radius and math.gcd(a, b) == 1]
    half = sorted((v for v in vectors if v > (0, 0)), key=lambda v: (v[0] * v[0] + v[1] * v[1], v))
    chosen = half[:wanted // 2]
    edges = sorted(chosen + [(-a, -b) for a, b in chosen], key=functools.cmp_to_key(by_angle))
    x = y = 0
    polygon = []
    for a, b in edges:
        polygon.append((x, y))
        x, y = x + a, y + b
    low_x, low_y = min(p[0] for p in polygon), min(p[1] for p in polygon)
    width = max(max(p[0] for p in polygon) - low_x, max(p[1] for p in polygon) - low_y)
    scale = 2 * ((2 * REACH) // (2 * width))
    corners = [(scale * (px - low_x) - REACH, scale * (py - low_y) - REACH) for px, py in polygon]
    points = [list(p) for p in corners]
    extra = max(0, count - len(points))
    for index in rng.sample(range(len(corners)), min(len(corners), extra // 5)):
        (ax, ay), (bx, by) = corners[index], corners[(index + 1) % len(corners)]
        points.append([(ax + bx) // 2, (ay + by) // 2])
    middle = (scale * width) // 2 - REACH
    points.extend([middle + px, middle + py] for px, py in in_disk(max(0, count - len(points)), scale * width // 3))
else:
    points = in_disk(count - min(arguments.repeats, count - 1), REACH)
    points.extend(list(rng.choice(points)) for _ in range(count - len(points)))
rng.shuffle(points)
print(json.dumps({"points": points}, separators=(",", ":")))
