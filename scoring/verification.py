"""Re-measuring stored entries: the same stored source (or module), built and run again on
whichever worker takes the job, compared input by input with the stored results, which it never
touches.

Fuel is deterministic: the same module on the same engine uses the same fuel on the same input,
to the unit, on any machine. So a re-measurement that agrees on every input's status, fuel and
answer (its SHA-256) shows the entry *reproduced*; one that does not is public too ("not
reproduced: fuel differs on 2 inputs"), and listed for staff in the admin. Whether the rebuilt
module is the original byte for byte (a reproducible build) is recorded beside it: a build that
is not reproducible may still measure the same.

`manage.py verify` asks for re-measurements of each board's best entries; with
VERIFY_NEW_RECORDS, every new record is queued for one as it is set.
"""

from __future__ import annotations

import logging
import socket

from django.conf import settings
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone
from django_tasks import task

from engine.progress import ScoringProgress
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from engine.toolchain import Toolchain
from lib.text import storable
from scoring.boards import RANKED
from scoring.boards.updates import announce_versions
from scoring.locking import lock_entries
from scoring.measuring import Measurement, measure
from scoring.models import Standing, Submission, Verification
from scoring.signals import new_records

logger = logging.getLogger(__name__)
Outcome = Verification.Outcome


def best_entries(versions, top: int) -> list[int]:
    """The ids of each version's `top` best ranked entries on its every-variant board, in board order."""
    chosen: list[int] = []
    for version in versions:
        chosen += list(Standing.objects.board(version.pk).filter(board_group=RANKED, submission__isnull=False)
                       .in_board_order().values_list("submission_id", flat=True)[:top])
    return chosen


def request(submission_ids, *, enqueue: bool) -> list[Verification]:
    """A pending re-measurement of each submission that is scored (in a final state); with
    `enqueue`, each queued for a worker (when the transaction commits), else left for the caller
    to run (`run_verification`)."""
    made = []
    ids = list(submission_ids)
    final = set(Submission.objects.filter(pk__in=ids, status__in=Submission.FINAL_STATES).values_list("pk", flat=True))
    with transaction.atomic():
        for submission_id in (pk for pk in ids if pk in final):
            verification = Verification.objects.create(submission_id=submission_id)
            if enqueue:
                _enqueue(verification.pk)
            made.append(verification)
    return made


@task()
def verify_submission_job(verification_id: int) -> str:
    """Measure a stored entry again, on whichever worker takes this. Returns the outcome."""
    return run_verification(verification_id).outcome


@receiver(new_records, dispatch_uid="verify-new-records")
def _verify_new_records(submission_ids: list[int], **kwargs) -> None:
    """With VERIFY_NEW_RECORDS, a re-measurement of each new record of a board (over every
    variant), queued when the transaction that set it commits."""
    if settings.VERIFY_NEW_RECORDS:
        request(submission_ids, enqueue=True)


def _enqueue(verification_id: int) -> None:
    def send() -> None:
        result = verify_submission_job.enqueue(verification_id)
        Verification.objects.filter(pk=verification_id).update(job_id=str(result.id)[:64])

    transaction.on_commit(send)


def run_verification(verification_id: int, progress: ScoringProgress | None = None) -> Verification:
    """Measure the entry again and record how it compares. Never changes the entry's results."""
    claimed = Verification.objects.filter(pk=verification_id, outcome=Outcome.PENDING).update(outcome=Outcome.RUNNING)
    verification = Verification.objects.select_related("submission__version__case").get(pk=verification_id)
    if not claimed:
        return verification  # another worker has it (a job delivered twice), or it is done
    submission = verification.submission
    if submission.status not in Submission.FINAL_STATES:
        _record(verification, Outcome.FAILED, "not re-measured: the entry is being scored again", "",
                attempt=submission.attempt)
        return verification
    verification.host = socket.gethostname()[:255]
    verification.wasmtime_version, verification.engine_digest = WASMTIME_VERSION, ENGINE_DIGEST
    if (submission.wasmtime_version, submission.engine_digest) != (WASMTIME_VERSION, ENGINE_DIGEST):
        # Counted by another engine (one before the site's, or this worker is on other pins): fuel
        # is exact for one engine only, so a difference here would say nothing of the entry.
        _record(verification, Outcome.FAILED, f"not re-measured: wasmtime {submission.wasmtime_version} counted it "
                f"and this worker runs {WASMTIME_VERSION}", "", attempt=submission.attempt)
        return verification
    try:
        measured = measure(submission.version, submission.source_kind, bytes(submission.source),
                           progress or ScoringProgress())
    except Exception as exc:  # the scorer failed: say so, as a score would
        logger.exception("re-measuring submission %s failed", submission.pk)
        _record(verification, Outcome.FAILED, "not re-measured: the scorer failed", f"{type(exc).__name__}: {exc}",
                attempt=submission.attempt)
        return verification
    outcome, message, detail = compare(submission, measured, verification)
    _record(verification, outcome, message, detail, attempt=submission.attempt)
    return verification


def compare(submission: Submission, measured: Measurement, verification: Verification) -> tuple[str, str, str]:
    """(outcome, public message, staff detail) of a measurement against what was stored; fills in
    the verification's counts and module digest."""
    verification.module_digest = measured.module_digest
    if submission.source_kind == Submission.SourceKind.SUBMISSION and measured.module_digest:
        verification.module_identical = measured.module_digest == submission.module_digest
        rebuilt_by = Toolchain.from_dict(measured.toolchain)
        if not verification.module_identical and Toolchain.from_dict(submission.toolchain) != rebuilt_by:
            # Another compiler gives another module: measuring that one says nothing of the entry.
            built_by = submission.compiler.rustc if submission.compiler else "a compiler the site did not record"
            return (Outcome.FAILED, f"not re-measured: it was built by {built_by} and the site now builds with "
                                    f"{rebuilt_by.rustc or 'no compiler'}, which gives another module", "")
    if measured.state != submission.status:
        if measured.state == Submission.State.BUILD_FAILED:
            # The stored source did not build again: a fact about the entry, shown as any other.
            return Outcome.DIFFERENT, "not reproduced: the rebuild failed", measured.message + "\n" + measured.detail
        return (Outcome.DIFFERENT,
                f"not reproduced: measured {_said(measured.state)}, stored {_said(submission.status)}",
                measured.message)
    if measured.evaluation is None:  # both failed the same way before any input ran
        same = measured.message == submission.message
        return (Outcome.IDENTICAL if same else Outcome.DIFFERENT,
                "re-measured identically" if same else "not reproduced: the module is refused for another reason",
                measured.detail)
    stored = {row.position: row for row in submission.results.all()}
    lines = []
    for position, (item, outcome) in enumerate(zip(measured.evaluation.held_out, measured.evaluation.outcomes)):
        verification.inputs += 1
        row = stored.get(position)
        if row is None or row.status != outcome.status.value:
            verification.status_differs += 1
            lines.append(f"{item.input_path}: status {row.status if row else 'missing'} → {outcome.status.value}")
        if row is None or row.fuel != outcome.fuel:
            verification.fuel_differs += 1
            lines.append(f"{item.input_path}: fuel {row.fuel if row else None} → {outcome.fuel}")
        if row is not None and not row.answer_digest:
            verification.answers_unrecorded += 1 if outcome.answer_digest else 0
        elif row is not None and row.answer_digest != outcome.answer_digest:
            verification.answer_differs += 1
            lines.append(f"{item.input_path}: answer {row.answer_digest[:12]} → {outcome.answer_digest[:12] or 'none'}")
    differences = [f"{name} differs on {count} input{'s' if count != 1 else ''}" for name, count in (
        ("the status", verification.status_differs), ("fuel", verification.fuel_differs),
        ("the answer", verification.answer_differs)) if count]
    if differences:
        return Outcome.DIFFERENT, "not reproduced: " + "; ".join(differences), "\n".join(lines)
    return Outcome.IDENTICAL, "re-measured identically", ""


def _said(state: str) -> str:
    return state.replace("_", " ")


DETAIL_MAX = 64 * 1024  # staff's detail: the inputs that differ, the rebuild's words


def _record(verification: Verification, outcome: str, message: str, detail: str, *, attempt: int) -> None:
    """Store the outcome and, when it is public (identical or different) and the entry is still the
    attempt that was measured, mark the entry and let its boards' pages (and the matrix) show it.
    An entry scored again meanwhile keeps no mark of results it no longer has."""
    with transaction.atomic():
        lock_entries([verification.submission_id])
        current = Submission.objects.only("attempt", "status", "version_id", "wasmtime_version",
                                          "engine_digest").get(pk=verification.submission_id)
        if current.attempt != attempt or current.status not in Submission.FINAL_STATES:
            outcome, message = Outcome.FAILED, "not re-measured: the entry was scored again meanwhile"
        elif outcome in Verification.PUBLIC and (current.wasmtime_version, current.engine_digest) != (
                verification.wasmtime_version, verification.engine_digest):
            # The site moved to another engine meanwhile (a switch gave the entry its figures): what
            # was measured here, and what it was compared with, says nothing of them.
            outcome, message = Outcome.FAILED, "not re-measured: the site moved the entry to another engine meanwhile"
        verification.outcome, verification.message = outcome, storable(message)[:500]
        verification.detail = storable(detail)[:DETAIL_MAX]
        verification.finished_at = timezone.now()
        verification.save()
        if outcome in Verification.PUBLIC:
            Submission.objects.filter(pk=current.pk).update(verification=outcome, verified_at=verification.finished_at,
                                                            verification_message=verification.message)
            announce_versions({current.version_id})
