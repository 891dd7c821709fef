"""A qualitative read of an entry: a reviewer's verdict on one of the review items its version
declares (`[[review_item]]`), with a note, who and when (scoring/reviews.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from scoring.models.submissions import Submission


class ReviewRead(models.Model):
    """One read. It belongs to the module it read (`module_digest`): re-measuring the entry keeps
    it; a new entry, or the entry built again into another module, does not show it."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="reviews")
    item = models.CharField(max_length=100)  # the review item's slug
    verdict = models.CharField(max_length=40)
    text = models.TextField(blank=True)
    module_digest = models.CharField(max_length=64)
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    reviewer_name = models.CharField(max_length=150)  # kept when the account goes
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["recorded_at", "pk"]
        indexes = [models.Index(fields=["submission", "item"], name="review_reads_of_an_entry")]
        permissions = [("review_entry", "Can record review reads of entries (over the API, with a token)")]

    def __str__(self) -> str:
        return f"#{self.submission_id} {self.item}: {self.verdict}"
