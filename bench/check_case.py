"""`check_case` on the whole bundled catalog against what it replaces: building and scoring the
same solutions on the same versions with `score`, one after the other. Both in this process, both
building every source for real (each with a compiled-module cache of its own, empty). check_case
does more per solution — every input twice (in parallel, then alone), a slow solution again at
1.5× the limit — but builds each source once for every version that shares its build. Prints JSON.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from _django import ROOT, setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="(the output is JSON either way)")
    parser.parse_args()
    workdir = setup()
    from django.conf import settings
    from django.core.management import call_command

    from catalog.importer import import_catalog
    from catalog.models import CaseVersion
    from scoring.attempts import score
    from scoring.recording import submit
    from scoring.workbench.solutions import case_solutions

    import_catalog(ROOT / "test-cases")
    settings.SCORING_CACHE_DIR = Path(tempfile.mkdtemp(dir=workdir))
    started = time.perf_counter()
    scored = 0
    for version in CaseVersion.objects.select_related("case").order_by("case__slug", "ordinal"):
        for solution in case_solutions(ROOT / "solutions", version.case.slug).for_version(version.version):
            if solution.is_source:
                entry = submit(version, version.default_variant(), solution.stem, folder=solution.path)
            else:
                module = Path(tempfile.mkdtemp(dir=workdir)) / "solution.wasm"
                module.write_bytes(solution.module(settings.SCORING_MAX_MODULE_BYTES))
                entry = submit(version, version.default_variant(), solution.stem, wasm_file=module)
            score(entry)
            scored += 1
    score_seconds = time.perf_counter() - started
    settings.SCORING_CACHE_DIR = Path(tempfile.mkdtemp(dir=workdir))
    started = time.perf_counter()
    out = io.StringIO()
    call_command("check_case", str(ROOT / "test-cases"), "--json", stdout=out, stderr=io.StringIO())
    check_seconds = time.perf_counter() - started
    document = json.loads(out.getvalue())
    json.dump({"versions": len(document["versions"]), "runs": scored, "score_s": score_seconds,
               "check_case_s": check_seconds, "ratio": check_seconds / score_seconds,
               "errors": sum(len(version["errors"]) for version in document["versions"])}, sys.stdout)


if __name__ == "__main__":
    main()
