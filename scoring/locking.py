"""Locking what an operation on entries changes, in the house's one order (lib/locking.py): the
boards of the entries' versions, then their operators, then the entries themselves.

Every path that changes an entry (a score stored, a new attempt, staff hiding or deleting it, a
re-measurement's mark, a reference) starts here, so a late result, `requeue_stale_jobs`, a
resubmission and a staff action on one entry take turns instead of waiting on each other."""

from __future__ import annotations

from typing import Iterable

from django.contrib.auth import get_user_model

from lib.locking import lock_rows
from scoring.boards.places import ALL_VARIANTS
from scoring.models import ApiToken, BoardSummary, Submission


def board_summary(version_id: int, key: int) -> BoardSummary:
    """A board's summary row (made if missing), locked: the version's every-variant row is the
    board's lock; a variant's row is only ever taken under it."""
    summary, _ = BoardSummary.objects.get_or_create(version_id=version_id, variant_key=key)
    return lock_rows(BoardSummary.objects.filter(pk=summary.pk))[0][0]


def lock_board(version_id: int) -> None:
    """Take the lock every change to a version's boards takes first (its every-variant summary row)."""
    board_summary(version_id, ALL_VARIANTS)


def lock_entries(submission_ids: Iterable[int], *, operators: Iterable[int] = (),
                 versions: Iterable[int] = (), tokens: Iterable[int] = ()) -> None:
    """Lock the boards of these entries' versions (and of `versions`), then `operators`, their
    `tokens`, then the entries. A version is an entry's for its whole life, so reading it first,
    unlocked, is safe."""
    ids = sorted(set(submission_ids))
    boards = set(versions) | set(Submission.objects.filter(pk__in=ids).values_list("version_id", flat=True))
    for version_id in sorted(boards):
        BoardSummary.objects.get_or_create(version_id=version_id, variant_key=ALL_VARIANTS)
    lock_rows(BoardSummary.objects.filter(version_id__in=boards, variant_key=ALL_VARIANTS).only("pk"),
              get_user_model().objects.filter(pk__in=set(operators)).only("pk"),
              ApiToken.objects.filter(pk__in=set(tokens)).only("pk"),
              Submission.objects.filter(pk__in=ids).only("pk"))


def lock_operator(operator_id: int) -> None:
    """Hold an operator's row (their quotas and their share of the queue are counted under it)."""
    lock_rows(get_user_model().objects.filter(pk=operator_id).only("pk"))
