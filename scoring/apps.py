from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from django.core import checks
        from django.db.models.signals import post_delete, pre_delete

        from scoring.checks import build_cgroups

        from catalog.signals import versions_published
        from scoring.models import Submission

        # Deleting a submission (the admin's delete action, or any other path) changes the boards
        # that showed it, in the same transaction.
        pre_delete.connect(_submission_deleting, sender=Submission, weak=False, dispatch_uid="submission-deleting")
        post_delete.connect(_submission_deleted, sender=Submission, weak=False, dispatch_uid="submission-deleted")
        # A new latest version starts with the previous version's best entries (scoring/carry.py).
        versions_published.connect(_versions_published, weak=False, dispatch_uid="carry-forward")
        checks.register(build_cgroups)


def _submission_deleting(instance, **kwargs) -> None:
    from scoring.models import RecordStep

    # Whether it was a record: its steps are gone (cascaded) by the time post_delete runs.
    instance._was_record = RecordStep.objects.filter(submission_id=instance.pk).exists()


def _submission_deleted(instance, **kwargs) -> None:
    from scoring.boards import forget_submission

    forget_submission(instance)


def _versions_published(versions, report=None, **kwargs) -> None:
    from scoring.carry import carry_after_import

    carry_after_import(versions, report)
