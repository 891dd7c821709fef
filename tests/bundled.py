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

import hashlib
import os
import pickle
import shutil
import tempfile
from pathlib import Path

from tests.runfolder import kept_once, made_once, run_folder

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


def _copy_suite(target: Path) -> None:
    for case in sorted(CATALOG.glob("*/*/*")):
        if case.is_dir() and case.name in SUITE_CASES:
            shutil.copytree(case, target / case.relative_to(CATALOG))


def catalog() -> Path:
    """The bundled catalog as this run proves it: the catalog itself, or a copy of SUITE_CASES
    (made once per test run, in its folder, and read by every process; the copy's versions are
    the catalog's, byte for byte)."""
    global _copy
    if every_case():
        return CATALOG
    if _copy is None or not _copy.exists():
        run = run_folder()
        if run is None:
            copy = Path(tempfile.mkdtemp(prefix="fuelboard-bundled-")) / "test-cases"
            _copy_suite(copy)
        else:
            copy = made_once(run / "bundled-catalog", lambda part: _copy_suite(part / "test-cases")) / "test-cases"
        _copy = copy
    return _copy


def _scan_once(root: Path, options: dict):
    """`scan_catalog(root, **options)`, validated once per test run: the first process to ask
    validates (a few seconds) and keeps the result in the run's folder, and the others read it.
    Outside a run, validated here."""
    from catalog.manifest import FileLimits, scan_catalog  # here: conftest.py imports this module first

    options = {"limits": FileLimits(), **options}  # the same caps, however named, are one scan
    run = run_folder()
    if run is None:
        return scan_catalog(root, **options)
    key = hashlib.sha256(repr((str(root), sorted(options.items()))).encode()).hexdigest()[:16]
    return kept_once(run / f"catalog-scan-{key}.pickle", lambda: scan_catalog(root, **options),
                     lambda scan: pickle.dumps(scan, protocol=pickle.HIGHEST_PROTOCOL), pickle.loads)


def whole_catalog_scan(**options):
    """`scan_catalog(CATALOG, **options)` (every bundled case, nothing held elsewhere), once per run."""
    return _scan_once(CATALOG, options)


def catalog_scan(**options):
    """`scan_catalog(catalog(), **options)` (the cases this run proves), once per run."""
    return _scan_once(catalog(), options)
