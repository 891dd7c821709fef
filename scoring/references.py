"""Reference entries: staff mark one entry of a version as its reference (typically the author's
accepted solution), and every speedup on that version is the reference's total fuel ÷ another
entry's (above 1: the entry used less). Speedups do not move when someone improves on the board,
as a ratio to the best entry does: a figure read last month means the same today.

A reference must be an entry that passed every input (ranked), shown and not excluded; at most
one per version (a unique index). Its fuel is kept on the version (`reference_fuel`) while it
stays ranked, so the pages, the API and the standings read it with no query of their own. When a
version's best entries are carried forward to a new version, the carried copy of its reference is
the new version's reference too (scoring/carry.py), and counts once it passes there.
"""

from __future__ import annotations

from django.db import transaction

from lib.errors import DomainError
from scoring.boards.places import RANKED
from scoring.boards.updates import announce_versions, refresh_reference_fuel
from scoring.locking import lock_entries
from scoring.models import Submission


class ReferenceRefused(DomainError):
    """The entry cannot be its version's reference (code `not_ranked`)."""


def set_reference(submission: Submission) -> Submission | None:
    """Make `submission` its version's reference (in place of any other). Returns the entry that was
    the reference before, if another was. Raises ReferenceRefused."""
    with transaction.atomic():
        lock_entries([submission.pk])  # its board first: every reference change on a version takes turns
        current = Submission.objects.get(pk=submission.pk)
        if current.board_group != RANKED:
            raise ReferenceRefused("not_ranked", f"#{current.pk} is not ranked on its board (it did not pass every "
                                                 "input, or it is hidden or excluded): a reference must be")
        before = Submission.objects.filter(version_id=current.version_id,
                                           is_reference=True).exclude(pk=current.pk).first()
        if before is not None:
            Submission.objects.filter(pk=before.pk).update(is_reference=False)
        Submission.objects.filter(pk=current.pk).update(is_reference=True)
        refresh_reference_fuel([current.version_id])
        announce_versions({current.version_id})
    return before


def clear_reference(submission: Submission) -> bool:
    """`submission` is no longer its version's reference. Returns whether it was."""
    with transaction.atomic():
        lock_entries([submission.pk])
        cleared = Submission.objects.filter(pk=submission.pk, is_reference=True).update(is_reference=False)
        if cleared:
            refresh_reference_fuel([submission.version_id])
            announce_versions({submission.version_id})
    return bool(cleared)


def reference_of(version) -> Submission | None:
    """The version's reference entry while it counts (ranked); no query when it has none."""
    if version.reference_fuel is None:
        return None
    return Submission.objects.filter(version=version, is_reference=True, board_group=RANKED).first()
