"""The fuel meter of this kit: `python3 meter MODULE INPUT…` from the kit's folder (README.md).

This folder holds the site's own engine code, unchanged, and `contract.json`, this version's
contract as the site measures it; `requirements.txt` is all it needs.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from engine.meter.cli import main  # noqa: E402  (after the path above)

sys.exit(main(contract=HERE / "contract.json", prog="python3 meter", kit=HERE.parent))
