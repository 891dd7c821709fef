"""Scoring jobs on real worker processes (`manage.py db_worker`) sharing one database.

Eight jobs, two workers, one of them killed with SIGKILL in the middle of a job: every
submission still ends scored exactly once. The workers run against a database of their own —
a fresh PostgreSQL database on the server the suite uses, or a SQLite file.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time

import pytest

from catalog.tests.trees import ADDER_V1, VALID_CATALOG, CatalogTree
from engine.tests import wat
from scoring.tests.helpers import adder_answers
from tests.helpers import ROOT, SubprocessDatabase, command_env, manage

JOBS = 4  # enough for both workers to be busy when one dies, and for the other to go on
pytestmark = pytest.mark.slow


@pytest.fixture
def worker_env(tmp_path):
    database = SubprocessDatabase.migrated(tmp_path)
    env = command_env(database, tmp_path, TASKS_BACKEND="database", SCORING_HEARTBEAT_SECONDS="0.2",
                      SCORING_THREADS="1")
    yield database, env
    database.drop()


@pytest.mark.long
def test_a_worker_killed_mid_job_loses_nothing_and_counts_nothing_twice(worker_env, tmp_path):
    database, env = worker_env
    # A catalog whose one case takes about a second of real work per job.
    tree = CatalogTree(tmp_path / "catalog")
    shutil.copytree(VALID_CATALOG / ADDER_V1, tree.root / ADDER_V1)
    tree.edit("fuel_limit = 1_000_000", "fuel_limit = 100_000_000_000")
    wasm = tmp_path / "slow.wasm"
    wasm.write_bytes(wat.lookup(adder_answers(tree), iterations=600_000_000))

    manage(env, "import_catalog", str(tree.root))
    manage(env, "shell", "-c", (
        "from django.db import transaction\n"
        "from catalog.models import CaseVersion\n"
        "from scoring.jobs import enqueue_scoring\n"
        "from scoring.recording import submit\n"
        "from pathlib import Path\n"
        "version = CaseVersion.objects.get(case__slug='adder')\n"
        f"for index in range({JOBS}):\n"
        "    with transaction.atomic():\n"
        f"        enqueue_scoring(submit(version, version.default_variant(), f'solver-{{index}}', "
        f"wasm_file=Path({str(wasm)!r})))\n"
    ))
    assert database.query("SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'READY'") == [(JOBS,)]

    workers = {
        name: subprocess.Popen([sys.executable, "manage.py", "db_worker", "--worker-id", name, "--interval", "0.1",
                                "--no-startup-delay", "--no-reload"], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for name in ("w1", "w2")
    }
    try:
        # Kill w1 while it is in the middle of a job.
        deadline = time.monotonic() + 60
        victim = None
        while victim is None and time.monotonic() < deadline:
            for job_id, worker_ids in database.query(
                "SELECT id, worker_ids FROM django_tasks_database_dbtaskresult WHERE status = 'RUNNING'"
            ):
                ids = worker_ids if isinstance(worker_ids, list) else json.loads(worker_ids)
                if ids == ["w1"]:
                    victim = str(job_id)
            time.sleep(0.05)
        assert victim, "w1 never picked up a job"
        time.sleep(0.3)  # well inside the job (each takes about a second)
        workers["w1"].send_signal(signal.SIGKILL)
        workers["w1"].wait(timeout=10)

        # The recovery command notices the silent attempt and queues a new one (run as cron would,
        # now and then, not on every look at the table: each run is a whole Django start).
        deadline = time.monotonic() + 120
        recovered_at = time.monotonic() + 2.5  # the killed attempt's heartbeat is 2 s old by then
        while time.monotonic() < deadline:
            if time.monotonic() >= recovered_at:
                manage(env, "requeue_stale_jobs", "--stale-after", "2")
                recovered_at = time.monotonic() + 3
            unfinished = database.query("SELECT count(*) FROM scoring_submission WHERE status NOT IN ('scored')")
            if unfinished == [(0,)]:
                break
            time.sleep(0.3)
    finally:
        for process in workers.values():
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)

    rows = database.query("SELECT id, status, passed, attempt FROM scoring_submission ORDER BY id")
    assert len(rows) == JOBS
    assert all(status == "scored" and passed for _, status, passed, _ in rows), rows
    # Exactly one set of results per submission: nothing lost, nothing counted twice.
    counts = database.query("SELECT submission_id, count(*) FROM scoring_result GROUP BY submission_id ORDER BY "
                            "submission_id")
    assert counts == [(submission_id, 3) for submission_id, *_ in rows]
    # The job that died was retried (a second attempt), and its old job is visibly failed.
    assert sorted(attempt for *_, attempt in rows)[-1] == 1
    assert [attempt for *_, attempt in rows].count(1) == 1
    lost = database.query(f"SELECT status FROM django_tasks_database_dbtaskresult WHERE id = '{victim}'")
    assert lost == [("FAILED",)]
