"""The fuel meter against the site's scorer, on the same module and the same inputs.

range-sums (its latest version) and its bundled examples, each built for real once: the site
scores each with `manage.py score --wasm` (a fresh compiled-module cache each time, as for a new
module), the meter runs it from the unpacked kit (`python3 meter MODULE INPUT… --expected …
--runway …`) on the version's held-out inputs with their answers; both as commands, one after
the other, REPEAT times, the median of each module's kept. Every figure must be the same. Prints JSON: the time
per input of each, and their ratio.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

from _django import ROOT, setup

COMPARED = ("status", "fuel", "fuel_limit", "ceiling", "overshoot", "message")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="(the output is JSON either way)")
    args = parser.parse_args()
    workdir = setup()
    from django.conf import settings
    from django.test import Client

    from catalog.importer import import_catalog
    from catalog.models import CaseVersion
    from engine.builds import pack_folder
    from scoring.building import build_source
    from tests.kits import held_out_files

    settings.ALLOWED_HOSTS = ["*"]
    import_catalog(ROOT / "test-cases")
    version = CaseVersion.objects.filter(case__slug="range-sums").order_by("-ordinal").first()
    kit = workdir / "kit"
    content = Client().get(f"/cases/range-sums/{version.version}/kit/{version.default_variant().slug}.zip").content
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        archive.extractall(kit)
    inputs, answers, names = held_out_files(version, kit)
    expected = [f"--expected={path}" for path in answers]
    runways = [f"--runway={name}" for name in names]
    env = {**os.environ, "LOG_LEVEL": "ERROR"}  # setup()'s database and VAR_DIR
    score_s = meter_s = 0.0
    modules = 0
    for example in sorted((ROOT / "solutions/range-sums/accepted").iterdir()):
        built = build_source(pack_folder(example, max_bytes=settings.SCORING_MAX_SOURCE_BYTES), version)
        module = kit / f"{example.name}.wasm"
        module.write_bytes(built.module)
        modules += 1
        score_times, meter_times = [], []
        for attempt in range(args.repeat):
            started = time.perf_counter()
            scored = subprocess.run(
                [sys.executable, "manage.py", "score", "range-sums", "--version", version.version, "--wasm",
                 str(module), "--name", f"{example.name}-{attempt}", "--json"], cwd=ROOT, capture_output=True,
                text=True, check=True, env={**env, "SCORING_CACHE_DIR": tempfile.mkdtemp(dir=workdir)})
            score_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            metered = subprocess.run([sys.executable, "meter", str(module), *inputs, *expected, *runways, "--json"],
                                     cwd=kit, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
            meter_times.append(time.perf_counter() - started)
            site = [{key: result[key] for key in COMPARED} for result in json.loads(scored.stdout)["results"]]
            measured = [{key: result[key] for key in COMPARED} for result in json.loads(metered.stdout)["results"]]
            if site != measured:
                sys.exit(f"{example.name}: the meter read {measured}, the site stored {site}")
        score_s += statistics.median(score_times)
        meter_s += statistics.median(meter_times)
    count = len(inputs)
    score_s, meter_s = score_s / (count * modules), meter_s / (count * modules)
    json.dump({"version": f"range-sums {version.version}", "modules": modules, "inputs": count,
               "repeat": args.repeat, "score_per_input_s": score_s, "meter_per_input_s": meter_s,
               "ratio": meter_s / score_s, "identical": True}, sys.stdout)


if __name__ == "__main__":
    main()
