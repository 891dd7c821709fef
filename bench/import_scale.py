"""Import scale: a generated catalog of 1,000 case versions, imported, then re-imported unchanged.

Prints the two times and their ratio (target: re-import ≤ 10% of the first import).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time

from _django import setup


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--versions", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    workdir = setup()
    from catalog.importer import import_catalog
    from catalog.models import CaseVersion
    from tests.helpers import generate_catalog

    catalog = workdir / "catalog"
    generate_catalog(catalog, args.versions)

    started = time.perf_counter()
    first = import_catalog(catalog)
    first_seconds = time.perf_counter() - started
    assert first.ok and first.count("imported") == args.versions, "the generated catalog must import"

    started = time.perf_counter()
    again = import_catalog(catalog)
    again_seconds = time.perf_counter() - started
    assert again.count("unchanged") == args.versions
    assert CaseVersion.objects.count() == args.versions

    result = {
        "benchmark": "import scale",
        "versions": args.versions,
        "first_import_s": round(first_seconds, 2),
        "reimport_s": round(again_seconds, 2),
        "ratio": round(again_seconds / first_seconds, 3),
        "target": "re-import <= 0.10 x first import",
    }
    shutil.rmtree(workdir)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"import {args.versions} versions: first {first_seconds:.2f} s, "
              f"re-import {again_seconds:.2f} s, ratio {again_seconds / first_seconds:.3f} (target <= 0.10)")
    return result


if __name__ == "__main__":
    main()
