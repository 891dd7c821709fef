"""Generate the held-out inputs of lattice v3 (the same as v1's and v2's), the public samples of its
workspace, and every expected answer. `checksums.sha256` lists the digests of what it writes.

The reference follows each item on its own, detecting the loop it falls into (if any) from the
tick it first revisits a cell; the Rust examples (examples/submissions/lattice) use a tick-by-tick
simulation and binary lifting instead. Deterministic.

    python3 generator/generate.py [OUT]   # from the version folder; OUT defaults to it
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
MOVES = {">": (0, 1), "<": (0, -1), "^": (-1, 0), "v": (1, 0)}


def step(grid: list[str], row: int, col: int) -> tuple[int, int] | None:
    """Where an item on (row, col) is after one tick; None when it cannot move again."""
    cell = grid[row][col]
    if cell not in MOVES:
        return None  # floor: at rest
    d_row, d_col = MOVES[cell]
    target_row, target_col = row + d_row, col + d_col
    if not (0 <= target_row < len(grid) and 0 <= target_col < len(grid[0])):
        return None  # the belt runs off the grid: blocked
    if grid[target_row][target_col] == "#":
        return None  # a wall: blocked
    return target_row, target_col


def reference(document: dict) -> dict:
    grid, ticks = document["grid"], document["ticks"]
    sinks = {(row, col): 0 for row, line in enumerate(grid) for col, cell in enumerate(line) if cell == "o"}
    finals: list[list[int] | None] = []
    for row, col in document["items"]:
        first_seen: dict[tuple[int, int], int] = {}
        position, tick, absorbed = (row, col), 0, False
        path: list[tuple[int, int]] = []
        while tick < ticks:
            if position in first_seen:  # a loop: jump to the answer
                start = first_seen[position]
                cycle = path[start:]
                position = cycle[(ticks - start) % len(cycle)]
                break
            first_seen[position] = tick
            path.append(position)
            moved = step(grid, *position)
            if moved is None:
                break
            position = moved
            tick += 1
            if grid[position[0]][position[1]] == "o":
                absorbed = True
                sinks[position] += 1
                break
        finals.append(None if absorbed else list(position))
    return {"items": finals, "sinks": [[row, col, count] for (row, col), count in sorted(sinks.items())]}


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


CASES = {
    "smoke/belt-transport.json": {"grid": [">>>>."], "items": [[0, 0]], "ticks": 3},
    "smoke/floor-rest.json": {"grid": [".>."], "items": [[0, 0], [0, 1]], "ticks": 5},
    "smoke/wall-block.json": {"grid": [">>#"], "items": [[0, 0]], "ticks": 5},
    "smoke/edge-stop.json": {"grid": [">>"], "items": [[0, 0]], "ticks": 5},
    "smoke/sink-absorb.json": {"grid": [">>o", "..o"], "items": [[0, 0], [0, 1]], "ticks": 1},
    "smoke/belt-loop.json": {"grid": [">v", "^<"], "items": [[0, 0]], "ticks": 7},
    "cases/small.json": random_case(21, 48, 48, items=400, ticks=5_000, loops=12, snakes=10),
    "cases/large.json": random_case(22, 128, 128, items=2_000, ticks=60_000, loops=60, snakes=60),
    # New in v2: public samples, seeded with the workspace (never a held-out input).
    "workspaces/base/samples/rules-example.json": {"grid": [">>v", "#.o"], "items": [[0, 0], [1, 1]], "ticks": 10},
    "workspaces/base/samples/factory.json": random_case(221, 32, 32, items=200, ticks=3_000, loops=8, snakes=6),
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
