"""The catalog-wide standings at 1,000 cases × 1,000 submitters, with scores arriving.

- refresh: how long recomputing every scope takes (in-process, `refresh()`), from 1,000,000
  best entries (a submitter's best on each case's board, as the scorer keeps them);
- throughput: gunicorn serving /standings/ (page cache on) to wrk while another process stores
  20 scores a second on those cases, and one `db_worker` runs the refreshes the pages ask for
  (TASKS_BACKEND=database, STANDINGS_REFRESH_SECONDS as set); as a ratio to a trivial view
  measured under the same writes. Target: ≥ 0.5. The page's age is reported too.

`--postgres` runs it against the server DATABASE_URL names.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

from _django import ROOT, setup
from pages import free_port, requests_per_second, start_server, stop_server
from standings import WRITER


def entries(cases: int, submitters: int) -> None:
    """Each submitter's best entry on each case (a fifth of them not passing), written by the database."""
    from django.db import connection
    from django.utils import timezone

    from scoring.boards import RANKED, UNRANKED
    from scoring.models import Standing
    from tests.factories import make_cases

    versions = make_cases(cases, prefix="standing", tags=("bulk", "generated"))
    table = Standing._meta.db_table
    numbers = (f"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {submitters - 1}) "
               "SELECT i FROM n")
    low, high = versions[0].pk, versions[-1].pk
    with connection.cursor() as cursor:
        cursor.execute(f"""
            INSERT INTO {table} (version_id, variant_key, name, submission_id, board_group, board_key, submitted_at,
            engine,
                                 model)
            SELECT v.id, 0, 'solver-' || CAST(n.i AS VARCHAR(10)),
                NULL, CASE WHEN (v.id * 31 + n.i) %% 5 = 0 THEN {UNRANKED} ELSE {RANKED} END,
                CASE WHEN (v.id * 31 + n.i) %% 5 = 0 THEN -1 ELSE 1000 + (v.id * 7919 + n.i * 104729) %% 100000 END,
                %s, '', ''
            FROM catalog_caseversion v CROSS JOIN ({numbers}) AS n WHERE v.id BETWEEN %s AND %s
        """, [timezone.now(), low, high])
        cursor.execute(f"""
            UPDATE catalog_caseversion SET best_fuel = (
                SELECT MIN(board_key) FROM {table} s WHERE s.version_id = catalog_caseversion.id AND s.board_group =
                {RANKED}
                AND s.variant_key = 0) WHERE id BETWEEN %s AND %s
        """, [low, high])
    return versions


def page_age(base: str) -> float | None:
    """Seconds between now and the standings' "as of"."""
    from datetime import datetime, timezone

    document = json.loads(urllib.request.urlopen(base + "/api/v1/standings/", timeout=60).read())
    if not document["as_of"]:
        return None
    return (datetime.now(timezone.utc) - datetime.fromisoformat(document["as_of"])).total_seconds()


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--postgres", action="store_true", help="use the server DATABASE_URL names")
    parser.add_argument("--cases", type=int, default=1_000)
    parser.add_argument("--submitters", type=int, default=1_000)
    # Short, so refreshes run while the page is measured (the default setting is 60).
    parser.add_argument("--refresh-seconds", type=int, default=5)
    parser.add_argument("--load-seconds", type=int, default=5, help="how long each page is loaded (with wrk)")
    args = parser.parse_args()
    workdir = setup(os.environ["DATABASE_URL"] if args.postgres else None)
    from scoring.standings import refresh, snapshot

    started = time.monotonic()
    versions = entries(args.cases, args.submitters)
    setup_seconds = time.monotonic() - started
    refresh_seconds = refresh()
    rows = snapshot().scopes[""]["rows"]
    result = {"cases": args.cases, "submitters": args.submitters, "setup_s": setup_seconds,
              "refresh_s": refresh_seconds, "rows": rows, "refresh_interval_s": args.refresh_seconds,
              "database": "postgresql" if args.postgres else "sqlite"}
    if shutil.which("wrk"):
        env = {**os.environ, "VAR_DIR": str(workdir), "DJANGO_SETTINGS_MODULE": "config.settings",
               "WEB_CONCURRENCY": "2", "LOG_LEVEL": "ERROR", "PAGE_CACHE_SECONDS": "300", "TASKS_BACKEND": "database",
               "STANDINGS_REFRESH_SECONDS": str(args.refresh_seconds)}
        targets = versions[:50]
        script = WRITER.format(root=str(ROOT), versions=[version.pk for version in targets],
                               variants={version.pk: version.variants.first().pk for version in targets})
        port = free_port()
        server = start_server(env, port)
        worker = subprocess.Popen([sys.executable, "manage.py", "db_worker", "--interval", "0.5"], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        writer = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            time.sleep(1)
            trivial = requests_per_second(base + "/health/", f"{args.load_seconds}s")
            page = requests_per_second(base + "/standings/", f"{args.load_seconds}s")
            result["under_writes"] = {"trivial_rps": trivial, "standings_rps": page, "ratio": page / trivial,
                                      "age_s": page_age(base)}
        finally:
            writer.kill()
            writer.wait()
            worker.kill()
            worker.wait()
            stop_server(server)
    shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
