"""Check that an input of life is one the rules allow, beyond what its JSON Schema says:

    python3 validator/validate.py INPUT.json

Exit 0 when it is; else exit 1 and one line saying what is wrong (the rules: specs/rules.md).
The schema's limits are checked here too, so the file stands on its own.
"""

import json
import sys

SIDE, GENERATIONS = 1024, 100_000


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def problem(document) -> str | None:
    keys = {"width", "height", "generations", "alive"}
    if not isinstance(document, dict) or set(document) != keys:
        return "the input must be an object with exactly the keys width, height, generations and alive"
    width, height, generations, alive = (document[key] for key in ("width", "height", "generations", "alive"))
    for name, value, least, most in (("width", width, 1, SIDE), ("height", height, 1, SIDE),
                                     ("generations", generations, 0, GENERATIONS)):
        if not whole(value) or not least <= value <= most:
            return f"{name} is {value!r}: it must be an integer from {least} to {most}"
    if not isinstance(alive, list):
        return "alive must be an array of cells [row, column]"
    seen = set()
    for index, cell in enumerate(alive):
        if not isinstance(cell, list) or len(cell) != 2 or not all(whole(part) for part in cell):
            return f"alive[{index}] must be [row, column], two integers"
        row, column = cell
        if not (0 <= row < height and 0 <= column < width):
            return f"alive[{index}] is {cell}: the row must be 0 … {height - 1} and the column 0 … {width - 1}"
        if (row, column) in seen:
            return f"alive[{index}] is {cell}, listed before: each live cell is listed once"
        seen.add((row, column))
    return None


with open(sys.argv[1], encoding="utf-8") as handle:
    found = problem(json.load(handle))
if found:
    print(found)
    sys.exit(1)
