"""`python -m engine.meter --contract FILE MODULE INPUT…`: the fuel meter from a checkout."""

import sys

from engine.meter.cli import main

sys.exit(main())
