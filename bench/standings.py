"""Results at scale: pages cost what their page shows, however many submissions there are.

- growth: with the page cache off, the leaderboard, its API, the case page and `?all=1&page=3`
  on a version of 1,000 submissions and on one of 1,000,000 (in-process, median of repeated
  requests); and the case list at 1,000 and 10,000 cases. Target: each at most 2x slower.
- under writes: gunicorn serving a leaderboard (page cache on) to wrk while another process
  stores 20 scores a second, on other versions, then on the same version; throughput as a
  ratio to a trivial view measured under the same writes. Target: ≥ 0.5 for other versions.

`--postgres` runs it against the server DATABASE_URL names (bench/run.py starts one).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from _django import ROOT, setup
from pages import free_port, requests_per_second, start_server, stop_server

WRITER = """
import os, sys, time
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from django.db import transaction
from scoring.boards.updates import update_boards
from scoring.models import Result, Submission
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
versions = {versions!r}
index = 0
while True:
    started = time.monotonic()
    version_id = versions[index % len(versions)]
    with transaction.atomic():  # what storing a score writes: the submission, its results, its boards
        submission = Submission.objects.create(
            version_id=version_id, variant_id={variants!r}[version_id], name=f"writer-{{index % 500}}",
            source_kind="wasm", source=b"", wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
            status="scored", passed=True, total_fuel=500 + index % 997, passed_count=2, input_count=2)
        Result.objects.bulk_create([Result(submission=submission, position=p, kind="stress", input_path="x",
                                           status="passed", fuel=1, fuel_limit=1, ceiling=1) for p in range(2)])
        update_boards([submission.pk])
    index += 1
    time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))
"""


def median_ms(client, url: str, repeat: int) -> float:
    for _ in range(3):
        assert client.get(url).status_code == 200, url
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def settle() -> None:
    """After a bulk load on PostgreSQL: vacuum and analyze now, as autovacuum would soon after, so
    the timings are of the steady state (current planner statistics, no maintenance running
    beside the requests) rather than of the minutes after a million rows arrived at once."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def growth(small: int, large: int, repeat: int) -> dict:
    from django.conf import settings
    from django.test import Client

    from tests.factories import make_cases, make_many_submissions, make_submissions

    settings.PAGE_CACHE_SECONDS = 0
    few, many = make_cases(2, prefix="board")
    started = time.monotonic()
    make_submissions(few, small, keep=False)
    make_many_submissions(many, large)
    settle()
    setup_seconds = time.monotonic() - started
    client = Client(SERVER_NAME="localhost")
    pages = {
        "leaderboard": "/cases/{slug}/leaderboard/",
        "leaderboard_api": "/api/v1/cases/{slug}/leaderboard/",
        "case_page": "/cases/{slug}/",
        "all_page_3": "/cases/{slug}/leaderboard/?all=1&page=3",
    }
    results = {}
    for name, url in pages.items():
        low = median_ms(client, url.format(slug=few.case.slug), repeat)
        high = median_ms(client, url.format(slug=many.case.slug), repeat)
        results[name] = {"small_ms": low, "large_ms": high, "ratio": high / low}
    make_cases(998, prefix="some")  # 1,000 cases with the two boards
    settle()
    list_small = median_ms(client, "/cases/?difficulty=easy&tag=bulk", repeat)
    make_cases(9_000, prefix="more")
    settle()
    list_large = median_ms(client, "/cases/?difficulty=easy&tag=bulk", repeat)
    results["case_list"] = {"small_ms": list_small, "large_ms": list_large, "ratio": list_large / list_small}
    return {"small": small, "large": large, "setup_s": setup_seconds, "pages": results,
            "board": many, "others": [few]}


def under_writes(workdir, board, others) -> dict:
    from tests.factories import make_cases, make_submissions

    extra = make_cases(2, prefix="written")
    for version in extra:
        make_submissions(version, 100, keep=False)
    env = {**os.environ, "VAR_DIR": str(workdir), "DJANGO_SETTINGS_MODULE": "config.settings",
           "WEB_CONCURRENCY": "2", "LOG_LEVEL": "ERROR", "PAGE_CACHE_SECONDS": "300"}
    port = free_port()
    server = start_server(env, port)
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/cases/{board.case.slug}/leaderboard/"
    figures = {}
    try:
        for label, targets in (("other_versions", extra), ("same_version", [board])):
            variants = {version.pk: version.variants.first().pk for version in targets}
            script = WRITER.format(root=str(ROOT), versions=[version.pk for version in targets], variants=variants)
            writer = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.DEVNULL)
            try:
                time.sleep(1)
                trivial = requests_per_second(base + "/health/")
                page = requests_per_second(url)
            finally:
                writer.kill()
                writer.wait()
            figures[label] = {"trivial_rps": trivial, "leaderboard_rps": page, "ratio": page / trivial}
    finally:
        stop_server(server)
    return figures


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--postgres", action="store_true", help="use the server DATABASE_URL names")
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=25)
    args = parser.parse_args()
    workdir = setup(os.environ["DATABASE_URL"] if args.postgres else None)
    result = growth(1_000, args.large, args.repeat)
    board, others = result.pop("board"), result.pop("others")
    if shutil.which("wrk"):
        result["under_writes"] = under_writes(workdir, board, others)
    result["database"] = "postgresql" if args.postgres else "sqlite"
    if args.json:
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
