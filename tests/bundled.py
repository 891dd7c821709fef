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

import fcntl
import hashlib
import os
import pickle
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "test-cases"
SOLUTIONS = ROOT / "solutions"
SUITE_CASES = ("range-sums", "distinct", "rising", "components", "lattice")
SCOPE_VARIABLE = "FUELBOARD_BUNDLED"
# The folder every process of a test run shares (set by conftest.py for the run).
RUN_VARIABLE = "TEST_RUN_FOLDER"


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


def whole_catalog_scan(**options):
    """`scan_catalog(CATALOG, **options)` (every bundled case, nothing held elsewhere), validated
    once per test run: the first process to ask validates the catalog (a few seconds) and keeps
    the result in the run's folder, and the others read it. Outside a run, validated here."""
    from catalog.manifest import FileLimits, scan_catalog  # here: conftest.py imports this module first

    options = {"limits": FileLimits(), **options}  # the same caps, however named, are one scan
    run = os.environ.get(RUN_VARIABLE)
    if not run or not Path(run).is_dir():
        return scan_catalog(CATALOG, **options)
    key = hashlib.sha256(repr(sorted(options.items())).encode()).hexdigest()[:16]
    kept = Path(run) / f"catalog-scan-{key}.pickle"
    with open(f"{kept}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one validation at a time, across the processes
        if kept.exists():
            return pickle.loads(kept.read_bytes())
        scan = scan_catalog(CATALOG, **options)
        part = kept.with_suffix(".part")
        part.write_bytes(pickle.dumps(scan, protocol=pickle.HIGHEST_PROTOCOL))
        part.rename(kept)
        return scan
