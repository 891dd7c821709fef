"""What the results app does when other parts of the site speak: a submission deleted (its boards
change in the same transaction), versions published (the previous version's best entries carried
forward), new records set (each queued for a re-measurement, with VERIFY_NEW_RECORDS: connected in
scoring/verification.py), the database migrated (the site's epoch recorded: scoring/epochs/).
Imported once the app registry is ready (scoring/apps.py)."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_delete, pre_delete
from django.dispatch import receiver

from catalog.signals import versions_published
from scoring import epochs, verification  # noqa: F401  (connect their receivers: migrated, new records)
from scoring.boards.updates import forget_submission
from scoring.carry import carry_after_import
from scoring.locking import lock_entries
from scoring.models import ApiToken, RecordStep, Submission


@receiver(pre_delete, sender=Submission, dispatch_uid="submission-deleting")
def _submission_deleting(instance, **kwargs) -> None:
    # Its board before the entry, which the delete is about to lock (lib/locking.py); deleting
    # many at once, lock them all first (scoring/admin.py does).
    lock_entries([instance.pk])
    # Whether it was a record: its steps are gone (cascaded) by the time post_delete runs.
    instance._was_record = RecordStep.objects.filter(submission_id=instance.pk).exists()


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="operator-deleting")
def _operator_deleting(instance, **kwargs) -> None:
    # Deleting an operator deletes their tokens and leaves their entries without one (SET_NULL):
    # their entries' boards, then the operator, tokens and entries, in the house's order, before
    # the delete changes any of them (lib/locking.py).
    entries = Submission.objects.filter(operator_id=instance.pk).values_list("pk", flat=True)
    tokens = ApiToken.objects.filter(user_id=instance.pk).values_list("pk", flat=True)
    lock_entries(entries, operators=[instance.pk], tokens=tokens)


@receiver(post_delete, sender=Submission, dispatch_uid="submission-deleted")
def _submission_deleted(instance, **kwargs) -> None:
    forget_submission(instance)


@receiver(versions_published, dispatch_uid="carry-forward")
def _versions_published(versions, report=None, **kwargs) -> None:
    carry_after_import(versions, report)
