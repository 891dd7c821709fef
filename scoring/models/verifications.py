"""Re-measurements of stored entries (scoring/verification.py): the same source, built and run
again on whichever worker took the job, compared input by input with what was stored."""

from __future__ import annotations

from django.db import models

from scoring.models.submissions import Submission


class Verification(models.Model):
    class Outcome(models.TextChoices):
        PENDING = "pending"  # queued
        RUNNING = "running"  # claimed by a worker
        IDENTICAL = "identical"  # every input's status, fuel and answer as stored
        DIFFERENT = "different"  # some input's status, fuel or answer differs: not reproduced
        # It could not be measured again (the rebuild failed, the scorer failed, the entry was
        # scored again meanwhile): staff see it; the entry's public mark does not change.
        FAILED = "failed"

    # The outcomes an entry's public mark shows (Submission.verification).
    PUBLIC = (Outcome.IDENTICAL, Outcome.DIFFERENT)

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="verifications")
    requested_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.PENDING)
    # Where and with what it was measured again.
    host = models.CharField(max_length=255, blank=True)
    wasmtime_version = models.CharField(max_length=30, blank=True)
    engine_digest = models.CharField(max_length=20, blank=True)
    # The module measured: rebuilt from the stored source (or the stored module itself).
    module_digest = models.CharField(max_length=64, blank=True)
    # True: the rebuilt module is the original byte for byte (a reproducible build); None: not built.
    module_identical = models.BooleanField(null=True)
    inputs = models.PositiveIntegerField(default=0)  # inputs compared
    status_differs = models.PositiveIntegerField(default=0)
    fuel_differs = models.PositiveIntegerField(default=0)
    answer_differs = models.PositiveIntegerField(default=0)
    answers_unrecorded = models.PositiveIntegerField(default=0)  # scored before answers were digested
    message = models.CharField(max_length=500, blank=True)  # public: what the mark says
    detail = models.TextField(blank=True)  # staff only: which inputs, what the rebuild said
    job_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]
        indexes = [models.Index(fields=["outcome", "finished_at"], name="verification_outcome")]

    def __str__(self) -> str:
        return f"re-measurement of #{self.submission_id}: {self.outcome}"
