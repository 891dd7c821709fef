"""Check that an input of lattice is one the rules allow, beyond what its JSON Schema can say:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
"""

import json
import sys

CELLS = set(".#><^vo")


def problem(document) -> str | None:
    grid, items = document["grid"], document["items"]
    if not grid or not grid[0]:
        return "the grid needs at least one row and one column"
    width = len(grid[0])
    for row, line in enumerate(grid):
        if len(line) != width:
            return f"grid[{row}] has {len(line)} cells, not {width} as the first row"
        strange = set(line) - CELLS
        if strange:
            return f"grid[{row}] holds {sorted(strange)[0]!r}, which is no cell"
    for index, (row, col) in enumerate(items):
        if not (0 <= row < len(grid) and 0 <= col < width):
            return f"items[{index}] starts at [{row}, {col}], outside the grid"
        if grid[row][col] in "#o":
            return f"items[{index}] starts on a {'wall' if grid[row][col] == '#' else 'sink'}"
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
