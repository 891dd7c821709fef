"""Where an entry stands in the fair queue (scoring/jobs.py queues them): reads only."""

from __future__ import annotations

from django.db.models import Q

from scoring.models import Submission


def in_flight(operator_id: int):
    """The operator's entries that are queued or being scored."""
    return Submission.objects.filter(Q(status=Submission.State.RUNNING)
                                     | Q(status=Submission.State.PENDING, queued_at__isnull=False),
                                     operator_id=operator_id)


def queue_place(submission: Submission) -> dict | None:
    """Where an unfinished entry stands: `running`; `queued` with the entries queued before it;
    or `waiting` for its operator's turn, with how many of theirs go first. None once it is done."""
    if submission.status == Submission.State.RUNNING:
        return {"state": "running", "ahead": 0}
    if submission.status != Submission.State.PENDING:
        return None
    if submission.queued_at is not None:
        ahead = Submission.objects.filter(status=Submission.State.PENDING, queued_at__lt=submission.queued_at).count()
        return {"state": "queued", "ahead": ahead}
    earlier = Q(submitted_at__lt=submission.submitted_at) | Q(submitted_at=submission.submitted_at,
                                                              pk__lt=submission.pk)
    waiting_before = Submission.objects.filter(earlier, operator_id=submission.operator_id,
                                               status=Submission.State.PENDING, queued_at__isnull=True).count()
    return {"state": "waiting", "ahead": waiting_before + in_flight(submission.operator_id).count()}
