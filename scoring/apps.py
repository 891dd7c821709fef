from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from catalog.models import ContentGeneration
        from scoring.models import Submission

        # Deleting a submission (the admin's delete action, or any other path) changes the pages
        # that showed it, in the same transaction.
        post_delete.connect(lambda **kwargs: ContentGeneration.bump(), sender=Submission, weak=False,
                            dispatch_uid="submission-deleted")
