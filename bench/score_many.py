"""Batch scoring: `score_many FILE.jsonl` against one `score` process per line.

A sweep of LINES runs (each a correct module of its own, for adder v1 of the test catalog) is
scored twice into fresh SQLite files, each from the command line as an operator would: first
with one `manage.py score … --json` process per run, one after the other; then with a single
`manage.py score_many --jobs <cores>`. Both store the same entries (checked); the figure is
runs per second, and the ratio of the two. A second `score_many` of the same file (every line
skipped) is timed too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CATALOG = ROOT / "catalog/tests/data/valid"


def environment(workdir: Path) -> dict:
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "VAR_DIR": str(workdir),
            "DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}", "LOG_LEVEL": "ERROR"}


def manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)


def fresh(workdir: Path, template: Path | None = None) -> dict:
    """A database with the catalog imported: made with the commands, or a copy of `template`'s."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = environment(workdir)
    if template is not None:
        for suffix in ("", "-wal"):  # (the last connection to close folds its log in: no -wal, as a rule)
            if (template / f"bench.sqlite3{suffix}").exists():
                shutil.copyfile(template / f"bench.sqlite3{suffix}", workdir / f"bench.sqlite3{suffix}")
        return env
    manage(env, "migrate", "--noinput")
    manage(env, "import_catalog", str(CATALOG))
    return env


def modules(folder: Path, lines: int) -> list[Path]:
    """Distinct correct modules (a different amount of busy work each, so distinct sources)."""
    from catalog.tests.trees import CatalogTree
    from engine.tests import wat
    from scoring.tests.helpers import adder_answers

    answers = adder_answers(CatalogTree(CATALOG))
    paths = []
    for index in range(lines):
        path = folder / f"run-{index:03d}.wasm"
        path.write_bytes(wat.lookup(answers, iterations=index * 10))
        paths.append(path)
    return paths


def stored(env: dict) -> list[tuple]:
    done = manage(env, "leaderboard", "adder", "--version", "v1", "--json")
    return sorted((entry["name"], entry["total_fuel"]) for entry in json.loads(done.stdout)["entries"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=24)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-score-many-"))
    try:
        paths = modules(workdir, args.lines)
        fresh(workdir / "template")
        one_by_one = fresh(workdir / "one", template=workdir / "template")
        started = time.perf_counter()
        for index, path in enumerate(paths):
            manage(one_by_one, "score", "adder", "--version", "v1", "--wasm", str(path), "--name", f"run-{index:03d}",
                   "--json")
        separate_s = time.perf_counter() - started

        batch = fresh(workdir / "many", template=workdir / "template")
        sweep = workdir / "sweep.jsonl"
        sweep.write_text("".join(json.dumps({"slug": "adder", "version": "v1", "name": f"run-{index:03d}",
                                             "wasm": path.name, "meta": {"model": "bench"}}) + "\n"
                                 for index, path in enumerate(paths)))
        jobs = os.cpu_count() or 1
        started = time.perf_counter()
        report = json.loads(manage(batch, "score_many", str(sweep), "--jobs", str(jobs), "--json").stdout)
        batch_s = time.perf_counter() - started
        assert report["scored"] == args.lines, report
        started = time.perf_counter()
        again = json.loads(manage(batch, "score_many", str(sweep), "--jobs", str(jobs), "--json").stdout)
        rerun_s = time.perf_counter() - started
        assert again["skipped"] == args.lines, again
        assert stored(one_by_one) == stored(batch)  # the same entries, the same fuel
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = {"lines": args.lines, "jobs": jobs, "separate_s": separate_s, "batch_s": batch_s, "rerun_s": rerun_s,
              "separate_per_s": args.lines / separate_s, "batch_per_s": args.lines / batch_s,
              "speedup": separate_s / batch_s}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.lines} runs: one `score` per run {separate_s:.1f} s ({result['separate_per_s']:.2f}/s), "
              f"score_many --jobs {jobs} {batch_s:.1f} s ({result['batch_per_s']:.2f}/s): {result['speedup']:.1f}x; "
              f"re-run (all skipped) {rerun_s:.1f} s")


if __name__ == "__main__":
    main()
