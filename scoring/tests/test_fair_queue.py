"""The queue as workers see it (the database backend, a real `db_worker` in this process): one
operator's entries wait their turn while others' go first; a job that meets no build sandbox goes
back to the queue without spending an attempt or writing `error`; a worker without a capped
sandbox does not start."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from scoring import attempts, jobs
from scoring.models import Submission
from scoring.queue import queue_place
from scoring.recording import submit
from tests.operators import make_token, post

# Real commits: the queue is filled when each request's transaction commits.
pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def workers(settings):
    """Jobs wait in the database for `db_worker`, as under `make serve`."""
    settings.TASKS_BACKEND = "database"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.SCORING_OPERATOR_JOBS = 1
    yield settings


@pytest.fixture
def module(imported):
    """A correct module for adder v1 (each entry below is another name, so each is an entry of its own)."""
    from engine.tests import wat
    from scoring.tests.helpers import adder_answers

    return wat.lookup(adder_answers(imported))


def run_worker(*arguments: str) -> None:
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", "--interval", "0", *arguments,
                 stdout=io.StringIO(), stderr=io.StringIO())


def queued_jobs() -> int:
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.filter(status="READY").count()


def queued_priorities() -> list[int]:
    from django_tasks_db.models import DBTaskResult

    return list(DBTaskResult.objects.filter(status="READY").values_list("priority", flat=True))


def test_one_operators_entries_wait_their_turn_while_anothers_go_first(client, imported, module, workers):
    first, second = make_token("op-a"), make_token("op-b")
    sent = [post(client, first, case="adder", version="v1", name=f"a-{index}", wasm=module).json()["submission"]
            for index in range(3)]
    other = post(client, second, case="adder", version="v1", name="b-0", wasm=module).json()["submission"]
    # One of the first operator's in the queue, the others waiting behind it; the other operator's queued at once.
    assert queued_jobs() == 2
    places = [queue_place(Submission.objects.get(pk=pk)) for pk in sent]
    assert places == [{"state": "queued", "ahead": 0}, {"state": "waiting", "ahead": 1}, {"state": "waiting",
                                                                                          "ahead": 2}]
    assert queue_place(Submission.objects.get(pk=other)) == {"state": "queued", "ahead": 1}
    assert client.get(f"/api/v1/submissions/{sent[2]}/").json()["queue"] == {"state": "waiting", "ahead": 2}
    run_worker()
    order = list(Submission.objects.order_by("scored_at").values_list("pk", flat=True))
    assert order == [sent[0], other, sent[1], sent[2]]  # the other operator's went before the waiting ones
    assert set(Submission.objects.values_list("status", flat=True)) == {"scored"}
    assert client.get(f"/api/v1/submissions/{sent[2]}/").json()["queue"] is None


def test_a_lost_hand_on_is_made_good_by_requeue_stale_jobs(client, imported, module, workers):
    """A worker killed between a job's end and handing on the operator's next entry leaves it waiting:
    `requeue_stale_jobs`, run every minute, queues it."""
    token = make_token("op-a")
    sent = [post(client, token, case="adder", version="v1", name=f"a-{index}", wasm=module).json()["submission"]
            for index in range(2)]
    Submission.objects.filter(pk=sent[0]).update(status="scored")  # ended, without handing on
    assert queue_place(Submission.objects.get(pk=sent[1]))["state"] == "waiting"
    call_command("requeue_stale_jobs", stdout=io.StringIO())
    assert queue_place(Submission.objects.get(pk=sent[1]))["state"] == "queued"


def queued_without_a_sandbox(version, module, workers, tmp_path, name: str, retry_seconds: float) -> Submission:
    """An entry (built from a folder) queued where the build launcher cannot be reached; the
    worker still starts (unconfined builds allowed), and the build then finds no sandbox."""
    workers.SCORING_BUILD_LAUNCHER = str(tmp_path / "no-launcher.sock")
    workers.SCORING_SANDBOX_RETRY_SECONDS = retry_seconds
    workers.SCORING_ALLOW_UNCONFINED_BUILDS = True
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(module, folder / "solution.wasm")
    entry = submit(version, version.default_variant(), name, folder=folder)
    jobs.enqueue_scoring(entry)
    return entry


def test_a_job_without_a_sandbox_goes_back_to_the_queue_and_the_next_run_builds_it(adder_v1, correct_wasm, workers,
                                                                                  tmp_path, client, caplog):
    entry = queued_without_a_sandbox(adder_v1, correct_wasm, workers, tmp_path, "waits", retry_seconds=0.2)
    run_worker("--max-tasks", "1")
    entry.refresh_from_db()
    assert (entry.status, entry.attempt, entry.sandbox_waits) == ("pending", 0, 1)  # no attempt spent, no error
    assert entry.message == "waiting for a build sandbox"
    assert "cannot be reached" in entry.detail
    assert str(tmp_path) not in client.get(f"/submissions/{entry.pk}/").content.decode()
    assert queued_priorities() == [jobs.RETRY_PRIORITY]  # back in the queue, behind fresh jobs,
    assert jobs.RETRY_PRIORITY < 0  # and this worker waited before it would take another
    assert "a build found no sandbox: this worker takes no job for 0.2 s" in caplog.text
    assert queue_place(entry)["state"] == "queued"
    # Taken up again: what it waited for is over, so its page no longer says it waits.
    attempts._start(entry)
    started = Submission.objects.filter(pk=entry.pk).values_list("status", "message", "detail").get()
    assert started == ("running", "", ""), started
    Submission.objects.filter(pk=entry.pk).update(status="pending")
    workers.SCORING_BUILD_LAUNCHER = ""  # the sandbox is back: builds as root, confined
    time.sleep(0.3)
    run_worker()
    entry.refresh_from_db()
    assert (entry.status, entry.passed, entry.attempt, entry.build_confinement) == ("scored", True, 0, "confined")


def test_a_job_that_never_finds_a_sandbox_ends_in_error_after_the_most_waits(adder_v1, correct_wasm, workers,
                                                                             tmp_path):
    workers.SCORING_SANDBOX_MAX_WAITS = 2
    entry = queued_without_a_sandbox(adder_v1, correct_wasm, workers, tmp_path, "bounces", retry_seconds=0.1)
    run_worker("--max-tasks", "1")
    assert Submission.objects.get(pk=entry.pk).status == "pending" and queued_jobs() == 1
    time.sleep(0.2)
    run_worker("--max-tasks", "1")
    entry.refresh_from_db()
    assert (entry.status, entry.sandbox_waits, queued_jobs()) == ("error", 2, 0)
    assert entry.message == "no build sandbox could be had (2 tries); staff can score it again"


def test_a_worker_that_cannot_confine_builds_refuses_to_start(workers, tmp_path):
    workers.SCORING_BUILD_LAUNCHER = str(tmp_path / "no-launcher.sock")
    with pytest.raises(CommandError,
                       match="(?s)cannot give a build its capped sandbox: the build launcher at .* cannot be "
                                           "reached.*To fix it: start the build launcher as root"):
        run_worker()


def test_as_the_sites_account_without_a_launcher_the_worker_says_how_to_fix_it():
    state = Path(tempfile.mkdtemp(prefix="fuelboard-worker-"))  # pytest's own folders are private to root
    state.chmod(0o755)
    os.chown(state, 65534, 65534)
    try:
        done = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", sys.executable, "manage.py", "db_worker",
                               "--batch"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={"PATH": "/usr/bin:/bin", "SECRET_KEY": "x" * 50, "VAR_DIR": str(state),
                                   "HOME": str(state), "TASKS_BACKEND": "database"})
    finally:
        shutil.rmtree(state)
    assert done.returncode != 0
    assert "this worker cannot give a build its capped sandbox: this process does not run as root" in done.stderr
    assert "SCORING_BUILD_LAUNCHER" in done.stderr and "Traceback" not in done.stderr
