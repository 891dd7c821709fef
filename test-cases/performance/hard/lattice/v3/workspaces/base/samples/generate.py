"""Make a lattice input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --size 128 --items 2000 --ticks 60000 [--seed 7] > big.json

(a square floor with scattered walls, rectangular belt loops and long winding belts into sinks,
items mostly on belts). The site's held-out inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

MOVES = {">": (0, 1), "<": (0, -1), "^": (-1, 0), "v": (1, 0)}


def random_grid(rng: random.Random, height: int, width: int, loops: int, snakes: int) -> list[list[str]]:
    """Floor with scattered walls, rectangular belt loops, and long winding belts into sinks."""
    grid = [["." if rng.random() > 0.06 else "#" for _ in range(width)] for _ in range(height)]
    for _ in range(loops):
        top, left = rng.randrange(height - 3), rng.randrange(width - 3)
        bottom = min(height - 1, top + rng.randint(2, 12))
        right = min(width - 1, left + rng.randint(2, 12))
        for col in range(left, right):
            grid[top][col] = ">"
            grid[bottom][col + 1] = "<"
        for row in range(top, bottom):
            grid[row][right] = "v"
            grid[row + 1][left] = "^"
    for _ in range(snakes):
        row, col = rng.randrange(height), rng.randrange(width)
        for _ in range(rng.randint(20, 400)):
            direction = rng.choice("><^v")
            d_row, d_col = MOVES[direction]
            if not (0 <= row + d_row < height and 0 <= col + d_col < width):
                break
            grid[row][col] = direction
            row, col = row + d_row, col + d_col
        grid[row][col] = "o"
    return grid


def random_case(seed: int, height: int, width: int, items: int, ticks: int, loops: int, snakes: int) -> dict:
    rng = random.Random(seed)
    grid = random_grid(rng, height, width, loops, snakes)
    starts = [(row, col) for row in range(height) for col in range(width) if grid[row][col] not in "#o"]
    belts = [cell for cell in starts if grid[cell[0]][cell[1]] in MOVES]
    chosen = [list(rng.choice(belts if rng.random() < 0.9 else starts)) for _ in range(items)]
    return {"grid": ["".join(line) for line in grid], "items": chosen, "ticks": ticks}



parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--size", type=int, default=128, help="rows and columns")
parser.add_argument("--items", type=int, default=2_000)
parser.add_argument("--ticks", type=int, default=60_000)
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
loops = snakes = max(1, arguments.size * arguments.size // 270)
print(json.dumps(random_case(arguments.seed, arguments.size, arguments.size, items=arguments.items,
                             ticks=arguments.ticks, loops=loops, snakes=snakes), separators=(",", ":")))
