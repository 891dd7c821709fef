"""One lock order (lib/locking.py): the paths that change one entry at the same moment take turns,
on PostgreSQL's row locks, and never wait on each other for ever."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from engine.progress import ScoringProgress
from engine.tests import wat
from lib.locking import ORDER, rank
from scoring.attempts import Superseded, _score
from scoring.boards.updates import set_hidden
from scoring.jobs import requeue_stale
from scoring.models import Submission
from scoring.tests.helpers import adder_answers
from tests.operators import URL, make_token

ROUNDS = 20
ROOT = Path(__file__).resolve().parents[2]


def test_every_table_the_code_locks_has_a_place_in_the_order(settings):
    """Every `select_for_update` is lib/locking.py's, and every table it is given is ranked."""
    from django.apps import apps

    found = [str(path.relative_to(ROOT)) for path in ROOT.glob("*/**/*.py")
             if not {"node_modules", "tests"} & set(path.parts)
             and not any(part.startswith(".venv") for part in path.parts)  # no virtualenv: .venv/, .venv-harbor/…
             and "select_for_update" in path.read_text()]
    assert found == ["lib/locking.py"]
    for label in ORDER:
        if label != "operator":
            assert rank(apps.get_model(label)) == ORDER.index(label)
    assert rank(apps.get_model(settings.AUTH_USER_MODEL)) == ORDER.index("operator")
    with pytest.raises(ValueError, match="no place in the lock order"):
        rank(apps.get_model("scoring.Result"))


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="row locks and deadlocks are PostgreSQL's: SQLite locks the whole database at once")
@pytest.mark.django_db(transaction=True)
def test_a_resubmission_a_requeue_a_hide_and_a_late_result_on_one_stale_entry_take_turns(imported, settings):
    """Round after round, four paths start on one stale entry at the same moment: its operator
    sends it again over the API, `requeue_stale_jobs` runs, staff hide it, and the worker that was
    given up on stores its result late. None waits on another for ever (no deadlock, no 500), the
    entry gets at most one new attempt, and it ends in a final state."""
    settings.API_SUBMISSIONS_PER_HOUR = settings.API_REQUESTS_PER_HOUR = 10_000
    settings.API_SUBMISSIONS_IN_FLIGHT = 1_000
    token = make_token()
    module = wat.lookup(adder_answers(imported))
    failures: list[str] = []
    for round_number in range(ROUNDS):
        name = f"racer-{round_number}"
        answer = _send(token, module, name)
        assert answer.status_code == 202, answer.content
        entry = Submission.objects.get(name=name)
        assert entry.status == Submission.State.SCORED
        # Its worker was lost mid-run: running, no heartbeat for ten minutes.
        Submission.objects.filter(pk=entry.pk).update(status=Submission.State.RUNNING, job_id="lost",
                                                      heartbeat_at=timezone.now() - timedelta(minutes=10))
        lost = Submission.objects.get(pk=entry.pk)

        def resubmit():
            status = _send(token, module, name).status_code
            if status not in (200, 202):
                failures.append(f"round {round_number}: the resubmission was answered {status}")

        def requeue():
            for handled, outcome in requeue_stale(stale_after=60):
                if outcome == "error":
                    failures.append(f"round {round_number}: requeueing #{handled.pk} failed")

        def hide():
            set_hidden(Submission.objects.filter(pk=entry.pk), True)

        def late_result():
            try:
                _score(lost, ScoringProgress())
            except Superseded:
                pass

        _race(round_number, failures, resubmit, requeue, hide, late_result)
        requeue_stale(stale_after=60)  # what the site runs every minute: an entry left waiting its turn is queued
        final = Submission.objects.get(pk=entry.pk)
        assert final.attempt - lost.attempt <= 1, f"round {round_number}: {final.attempt - lost.attempt} new attempts"
        assert final.status in Submission.FINAL_STATES, (round_number, final.status, final.message, failures)
        assert Submission.objects.filter(name=name).count() == 1
    assert failures == []


def _send(token: str, module: bytes, name: str):
    """What the operator's harness sends (scored in-process, when the request's transaction commits)."""
    upload = _named(module)
    return Client(raise_request_exception=False).post(
        URL, {"case": "adder", "version": "v1", "name": name, "wasm": upload}, HTTP_AUTHORIZATION=f"Bearer {token}")


def _named(data: bytes):
    import io

    upload = io.BytesIO(data)
    upload.name = "module.wasm"
    return upload


def _race(round_number: int, failures: list[str], *actions) -> None:
    """Start every action at the same moment, each in a thread of its own, and wait for them all:
    one that never finishes (a deadlock) fails the test; one that raises is added to `failures`."""
    start = threading.Barrier(len(actions))
    threads = [threading.Thread(target=_raced, args=(start, action, failures, round_number)) for action in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), f"round {round_number}: a path never finished"


def _raced(start: threading.Barrier, action, failures: list[str], round_number: int) -> None:
    try:
        start.wait(timeout=60)
        action()
    except Exception as error:  # a deadlock, say: the test fails with it
        failures.append(f"round {round_number}: {action.__name__}: {type(error).__name__}: {error}")
    finally:
        connection.close()  # this thread's own connection


@pytest.mark.django_db
def test_deleting_an_operator_locks_their_boards_tokens_and_entries_in_order_first(imported):
    """Their tokens go and their entries stay, with no operator: on PostgreSQL the boards, the
    operator, the tokens and the entries are locked in the house's order before any is changed."""
    from django.contrib.auth import get_user_model
    from django.test.utils import CaptureQueriesContext

    from catalog.models import CaseVersion
    from scoring.models import ApiToken
    from scoring.recording import record_submission

    make_token("leaving")
    operator = get_user_model().objects.get(username="leaving")
    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    entry = record_submission(version, version.default_variant(), "leaver", "wasm", "out.wasm", b"\0asm\1\0\0\0",
                              operator=operator)
    token = ApiToken.objects.get(user=operator)
    with CaptureQueriesContext(connection) as queries:
        operator.delete()
    entry.refresh_from_db()
    assert entry.operator_id is None and not ApiToken.objects.filter(pk=token.pk).exists()
    if connection.vendor == "postgresql":
        statements = [query["sql"] for query in queries.captured_queries]
        locked = [next(n for n, sql in enumerate(statements) if f'FROM "{table}"' in sql and "FOR NO KEY UPDATE" in sql)
                  for table in ("scoring_boardsummary", "auth_user", "scoring_apitoken", "scoring_submission")]
        changed = min(n for n, sql in enumerate(statements) if sql.startswith(("UPDATE", "DELETE")))
        assert locked == sorted(locked) and locked[-1] < changed, statements


@pytest.mark.django_db
def test_a_token_revoked_while_its_request_is_counted_lets_that_request_in(imported):
    from scoring.models import ApiToken

    make_token("revoking")
    token = ApiToken.objects.get(user__username="revoking")
    ApiToken.objects.filter(pk=token.pk).delete()
    assert token.spend_request(10) is None


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="row locks and deadlocks are PostgreSQL's: SQLite locks the whole database at once")
@pytest.mark.django_db(transaction=True)
def test_retiring_a_version_while_entries_arrive_and_staff_hide_one_takes_turns(imported, settings, tmp_path):
    """Round after round, at the same moment: a harness sends an entry over the API, the shell
    records one (`score`'s path), staff hide an entry, and `retire` runs on the versions. None
    waits on another for ever; an entry is either recorded before the version is retired (and then
    retiring waited for it, or was refused while it was unsettled) or refused after, and no entry
    is recorded on a version already retired."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from catalog.models import CaseVersion
    from scoring.attempts import score
    from scoring.recording import ScoringError, submit

    settings.API_SUBMISSIONS_PER_HOUR = settings.API_REQUESTS_PER_HOUR = 10_000
    settings.API_SUBMISSIONS_IN_FLIGHT = 1_000
    token = make_token()
    module = wat.lookup(adder_answers(imported))
    shelled = tmp_path / "module.wasm"
    shelled.write_bytes(module)
    adder = CaseVersion.objects.get(case__slug="adder", version="v1")
    together = ("adder", "v1", "v2", "v10", "--with", "counter/1.0")
    failures: list[str] = []
    retired_rounds = 0
    for round_number in range(ROUNDS):
        CaseVersion.objects.update(retired_at=None)  # every round from a current version
        kept = _send(token, module, f"kept-{round_number}")
        assert kept.status_code == 202, kept.content

        def api():
            status = _send(token, module, f"api-{round_number}").status_code
            if status not in (202, 409):
                failures.append(f"round {round_number}: the API answered {status}")

        def shell():
            try:
                score(submit(adder, adder.default_variant(), f"shell-{round_number}", wasm_file=shelled))
            except ScoringError as refused:
                if refused.code != "version_retired":
                    raise

        def hide():
            set_hidden(Submission.objects.filter(name=f"kept-{round_number}"), True)

        def retire():
            time.sleep(0.2 * (round_number % 4))  # at once, or as the entries are being scored, or after
            try:
                call_command("retire", *together, stdout=open("/dev/null", "w"))
            except CommandError as refused:
                if "still to be scored" not in str(refused):
                    raise

        _race(round_number, failures, api, shell, hide, retire)
        adder.refresh_from_db()
        if adder.retired_at is not None:
            retired_rounds += 1
            late = Submission.objects.filter(version=adder, submitted_at__gt=adder.retired_at)
            assert not late.exists(), f"round {round_number}: recorded after the version was retired"
            assert not Submission.objects.filter(version=adder, status__in=(
                Submission.State.PENDING, Submission.State.RUNNING)).exists(), round_number
    assert failures == []
    assert retired_rounds > 0  # the race was run against retirements that happened


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="row locks and deadlocks are PostgreSQL's: SQLite locks the whole database at once")
@pytest.mark.django_db(transaction=True)
def test_an_import_and_a_retirement_that_share_a_held_out_file_never_both_happen(imported):
    """Round after round, at the same moment: a new version that holds out adder v1's inputs is
    imported, and adder v1 is retired (publishing them). One of the two goes first under the
    catalog's publishing lock and the other is refused: never a current version holding out what a
    retired one published."""
    import shutil

    from catalog.importer import import_catalog
    from catalog.models import CaseVersion
    from scoring.retiring import RetireRefused, retire

    new = imported.root / "performance/easy/adder/v99"
    shutil.copytree(imported.root / "performance/easy/adder/v1", new)
    (new / "changelog.md").write_text("# Changelog\n\n## v99\n\nThe same inputs again.\n")
    together = [("adder", "v1"), ("adder", "v2"), ("adder", "v10"), ("counter", "1.0")]
    failures: list[str] = []
    outcomes = set()
    for round_number in range(ROUNDS):
        CaseVersion.objects.filter(version="v99").delete()
        CaseVersion.objects.update(retired_at=None)
        said = {}

        def importing():
            time.sleep(0.05 * (round_number % 3))  # at once, or as the other has begun
            said["import"] = [result.code for result in import_catalog(imported.root).results
                              if result.label.endswith("v99")]

        def retiring():
            if round_number % 4 == 3:
                time.sleep(1.0)  # now and then well after: the import goes first, and must be seen
            try:
                retire(together)
                said["retire"] = "retired"
            except RetireRefused as refused:
                said["retire"] = refused.code

        _race(round_number, failures, importing, retiring)
        imported_now = CaseVersion.objects.filter(case__slug="adder", version="v99").exists()
        retired_now = CaseVersion.objects.get(case__slug="adder", version="v1").retired_at is not None
        assert imported_now != retired_now, f"round {round_number}: {said}"
        outcomes.add("imported" if imported_now else "retired")
    assert failures == []
    assert outcomes == {"imported", "retired"}  # both orders were raced


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="row locks and deadlocks are PostgreSQL's: SQLite locks the whole database at once")
@pytest.mark.django_db(transaction=True)
def test_an_epoch_switch_while_entries_arrive_and_staff_hide_one_takes_turns(imported, settings):
    """Round after round, at the same moment: the site switches to a measured candidate epoch, a
    harness sends an entry over the API and staff hide an entry. None waits for ever or fails; the
    boards' locks survive the switch's rebuild (their rows are written over, never deleted), and
    the standings kept equal a rebuild from scratch."""
    from django.utils import timezone

    from scoring import epochs
    from scoring.boards.rebuilding import rebuild
    from scoring.models import BoardSummary, Epoch, Standing

    settings.API_SUBMISSIONS_PER_HOUR = settings.API_REQUESTS_PER_HOUR = 10_000
    settings.API_SUBMISSIONS_IN_FLIGHT = 1_000
    token = make_token()
    module = wat.lookup(adder_answers(imported))
    failures: list[str] = []

    def standings() -> list[tuple]:
        return sorted(Standing.objects.values_list("version_id", "variant_key", "name", "submission_id",
                                                   "board_group", "board_key", "engine"))

    for round_number in range(ROUNDS // 2):
        kept = _send(token, module, f"kept-{round_number}")
        assert kept.status_code == 202, kept.content
        Epoch.objects.all().delete()  # the site counts with an older engine; this process is its candidate
        Epoch.objects.create(wasmtime_version="49.0.0", engine_digest="0123456789ab", state=Epoch.State.CURRENT,
                             switched_at=timezone.now())
        candidate, queued = epochs.prepare(enqueue=False)
        for measurement_id in queued:
            epochs.run_measurement(measurement_id)

        def switch():
            epochs.switch(candidate)

        def api():
            status = _send(token, module, f"api-{round_number}").status_code
            if status != 202:
                failures.append(f"round {round_number}: the API answered {status}")

        def hide():
            set_hidden(Submission.objects.filter(name=f"kept-{round_number}"), True)

        _race(round_number, failures, switch, api, hide)
        assert Epoch.objects.get(pk=candidate.pk).state == "current", round_number
        assert BoardSummary.objects.filter(version__case__slug="adder", version__version="v1", variant_key=0).exists()
        kept_standings = standings()
        rebuild()
        assert standings() == kept_standings, f"round {round_number}: the standings kept differ from a rebuild"
    assert failures == []
