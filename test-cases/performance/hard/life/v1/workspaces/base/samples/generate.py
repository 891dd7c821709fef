"""Make a life input of any size, to measure a solution on more than the samples:

    python3 samples/generate.py --width 256 --height 256 --generations 120 [--density 0.4] [--seed 7] > soup.json

A random soup: each cell of the board alive with probability `--density`. The site's held-out
inputs are made the same way, with seeds of their own.
"""

import argparse
import json
import random

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--width", type=int, default=256, help="columns (1 to 1,024)")
parser.add_argument("--height", type=int, default=256, help="rows (1 to 1,024)")
parser.add_argument("--generations", type=int, default=120, help="generations to run (0 to 100,000)")
parser.add_argument("--density", type=float, default=0.4, help="the share of cells alive at first")
parser.add_argument("--seed", type=int, default=0)
arguments = parser.parse_args()
rng = random.Random(arguments.seed)
width = max(1, min(arguments.width, 1024))
height = max(1, min(arguments.height, 1024))
generations = max(0, min(arguments.generations, 100_000))
alive = [[row, column] for row in range(height) for column in range(width) if rng.random() < arguments.density]
print(json.dumps({"width": width, "height": height, "generations": generations, "alive": alive}, separators=(",", ":")))
