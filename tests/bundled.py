"""Which of the bundled cases a test run proves in full.

The bundled catalog is two dozen cases. `make test` reads and validates every one of them, runs
every generator against its checksum list and every validator on every input, and proves five in
full: imported, their examples built and scored on a served site, `check_case --strict` on every
version, their kits downloaded and checked at home (SUITE_CASES: one or more per difficulty, the
oldest, whose pages the other tests read). `make check-catalog` (FUELBOARD_BUNDLED=all) runs the
tests marked `catalog` on every case the same way: the whole catalog's proof, run by CI beside
`make test` (docs/contributing.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "test-cases"
SOLUTIONS = ROOT / "solutions"
SUITE_CASES = ("range-sums", "distinct", "rising", "components", "lattice")
SCOPE_VARIABLE = "FUELBOARD_BUNDLED"


def every_case() -> bool:
    """Whether this run proves every bundled case (`make check-catalog`)."""
    return os.environ.get(SCOPE_VARIABLE) == "all"


def proven(slug: str) -> bool:
    return every_case() or slug in SUITE_CASES


_copy: Path | None = None


def catalog() -> Path:
    """The bundled catalog as this run proves it: the catalog itself, or a copy of SUITE_CASES
    (made once per process; the copy's versions are the catalog's, byte for byte)."""
    global _copy
    if every_case():
        return CATALOG
    if _copy is None or not _copy.exists():
        copy = Path(tempfile.mkdtemp(prefix="fuelboard-bundled-")) / "test-cases"
        for case in sorted(CATALOG.glob("*/*/*")):
            if case.is_dir() and case.name in SUITE_CASES:
                shutil.copytree(case, copy / case.relative_to(CATALOG))
        _copy = copy
    return _copy
