"""Write the held-out inputs of life v1, the public samples of its workspace, and every expected
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
SEED = 20261403


def reference(document: dict) -> dict:
    """The whole board as one Python integer, a bit per cell, row after row; each row is followed
    by one always-dead bit, so that shifting by a column never carries a cell into the next row.
    The eight neighbour boards are the board shifted by a row and/or a column; adding them bit by
    bit (a counter of three bits per cell: ones, twos, four-or-more) gives every cell's count at
    once. Cells off the board are dead: what a shift moves off it is masked away."""
    width, height = document["width"], document["height"]
    stride = width + 1
    row_bits = (1 << width) - 1
    board_mask = sum(row_bits << (row * stride) for row in range(height))
    board = 0
    for row, column in document["alive"]:
        board |= 1 << (row * stride + column)
    for _ in range(document["generations"]):
        ones = twos = many = 0
        for shift in (-stride - 1, -stride, -stride + 1, -1, 1, stride - 1, stride, stride + 1):
            neighbour = (board << shift if shift > 0 else board >> -shift) & board_mask
            carry = ones & neighbour
            ones ^= neighbour
            many |= twos & carry
            twos ^= carry
        # Three neighbours (ones and twos), or two (twos only) for a live cell; never four or more.
        board = twos & ~many & (ones | board) & board_mask
    alive = checksum = 0
    position = 0
    while board:
        if board & 1:
            row, column = divmod(position, stride)
            alive += 1
            checksum += row * width + column
        board >>= 1
        position += 1
    return {"alive": alive, "checksum": checksum}


def soup(chooser: random.Random, width: int, height: int, density: float, generations: int) -> dict:
    """A random soup: each cell alive with probability `density`."""
    alive = [[row, column] for row in range(height) for column in range(width) if chooser.random() < density]
    return {"width": width, "height": height, "generations": generations, "alive": alive}


def board(rows: list[str], generations: int) -> dict:
    """A small board drawn with `#` for a live cell and `.` for a dead one."""
    alive = [[row, column] for row, line in enumerate(rows) for column, cell in enumerate(line) if cell == "#"]
    return {"width": len(rows[0]), "height": len(rows), "generations": generations, "alive": alive}


def write(out: Path, rel: str, document: dict) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    chooser = random.Random(SEED)
    inputs = {
        "smoke/empty": {"width": 8, "height": 5, "generations": 3, "alive": []},
        "smoke/still": board(["##...", "##...", ".....", "...##", "...##"], 0),
        # A blinker turns from a row into a column: updating the board in place breaks it.
        "smoke/blinker": board([".....", ".....", ".###.", ".....", "....."], 1),
        # A glider runs into the corner and, the cells beyond the edge being dead, ends as a block
        # (on a torus it would come round again).
        "smoke/corner": board([".#......", "..#.....", "###.....", "........", "........", "........"], 20),
        # A blinker across the boundary of two 64-cell words, on a board 70 cells wide.
        "smoke/word-edge": {"width": 70, "height": 3, "generations": 3, "alive": [[1, 62], [1, 63], [1, 64]]},
        "cases/small": soup(chooser, 64, 64, 0.35, 500),
        "cases/large": soup(chooser, 256, 256, 0.4, 120),
        "cases/long": soup(chooser, 80, 72, 0.35, 1_000),
    }
    # Public: every kit carries these, so none may be a held-out input.
    samples = random.Random(SEED + 1)
    inputs.update({
        f"{SAMPLES}/tiny": board(["......", "..#...", "...#..", ".###..", "......", "......"], 4),
        f"{SAMPLES}/medium": soup(samples, 48, 40, 0.35, 200),
    })
    for stem, document in inputs.items():
        write(out, f"{stem}.json", document)
        write(out, f"{stem}.out", reference(document))


if __name__ == "__main__":
    main()
