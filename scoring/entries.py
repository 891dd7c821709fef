"""Taking an entry in once: the rule `score_many` and the submissions API share.

An entry is a version, a variant, a submitter name and a source digest. Submitting one that
already stands (recorded, or scored in any state but a failure of the scorer) records nothing
and answers with it; one that a stopped run left unfinished (`error`, or stale) is taken over by
a new attempt, up to SCORING_MAX_ATTEMPTS; anything else is recorded now. The check and the
write happen under the board's lock (the one every score on the version takes first, so no
other order of locks is possible): two identical submissions at the same moment make one entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from catalog.models import CaseVersion, Variant
from scoring.jobs import new_attempt
from scoring.locking import lock_board
from scoring.models import Submission
from scoring.recording import record_submission, refuse_retired, source_digest

NEW, RETRIED, STANDING, EXHAUSTED = "new", "retried", "standing", "exhausted"


@dataclass(frozen=True)
class Claim:
    submission: Submission
    outcome: str  # NEW, RETRIED (a new attempt of one left unfinished), STANDING, EXHAUSTED

    @property
    def to_score(self) -> bool:
        return self.outcome in (NEW, RETRIED)


def earlier(version: CaseVersion, variant: Variant, name: str, digest: str) -> tuple[Submission | None,
                                                                                     Submission | None]:
    """(an earlier submission of the entry that stands, the latest one left unfinished).

    Unfinished: the scorer failed on it (`error`), or a run that stopped left it stale
    (`Submission.objects.stale()`, the rule `requeue_stale_jobs` follows too)."""
    same = Submission.objects.filter(version=version, variant=variant, name=name, source_digest=digest).defer("source")
    unfinished = set(same.unfinished().values_list("pk", flat=True))
    found = list(same.order_by("pk"))
    standing = next((submission for submission in found if submission.pk not in unfinished), None)
    return standing, (found[-1] if found and standing is None else None)


def claim_entry(version: CaseVersion, variant: Variant, name: str, source: tuple[str, str, bytes], *,
                run: dict | None = None, operator=None, retried_by: str = "score_many",
                before_recording=None, after_claim=None) -> Claim:
    """The entry's submission: the one standing, or one recorded (or taken over) now.

    `before_recording(version)`, if given, runs under the lock before a new submission is
    recorded (the submissions API checks its quotas and takes the name there); `after_claim(claim)`
    runs in the same transaction once the claim is known (the API records its Idempotency-Key
    there). Either may raise, and then nothing of the claim is stored."""

    with transaction.atomic():
        lock_board(version.pk)
        claim = _claim(version, variant, name, source, run=run, operator=operator, retried_by=retried_by,
                       before_recording=before_recording)
        if after_claim is not None:
            after_claim(claim)
        return claim


def _claim(version: CaseVersion, variant: Variant, name: str, source: tuple[str, str, bytes], *, run, operator,
           retried_by: str, before_recording) -> Claim:
    refuse_retired(version)  # under the board's lock
    standing, left = earlier(version, variant, name, source_digest(source[2]))
    if standing is not None:
        return Claim(standing, STANDING)
    if left is not None and left.out_of_attempts:
        return Claim(left, EXHAUSTED)
    if before_recording is not None:
        before_recording(version)
    if left is None:
        return Claim(record_submission(version, variant, name, *source, run=run, operator=operator), NEW)
    taken = new_attempt(left, message=f"scored again by {retried_by}", enqueue=False,
                        only_if=Submission.objects.unfinished())
    if taken is None:  # its scorer spoke again meanwhile: it stands
        return Claim(Submission.objects.defer("source").get(pk=left.pk), STANDING)
    Submission.objects.filter(pk=taken.pk).update(heartbeat_at=timezone.now())  # claimed: not stale
    return Claim(taken, RETRIED)
