"""Measurement epochs (scoring/epochs/, docs/epochs.md): the engine the site counts fuel with —
a wasmtime release and an engine configuration digest — and what each entry measured under each.

One epoch is current: the engine the site's hosts run. A candidate is measured on a host of its
own before the site moves to it; a past epoch is one the site counted with before. An entry's
figures under an epoch the site has left are kept in an EpochMeasurement, so its board can still
be read as that epoch counted it."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from scoring.models.submissions import Submission


class Epoch(models.Model):
    class State(models.TextChoices):
        CANDIDATE = "candidate"  # being measured, or measured and waiting for the switch
        CURRENT = "current"  # what the site counts with
        PAST = "past"  # what it counted with before
        DROPPED = "dropped"  # a candidate staff gave up on

    wasmtime_version = models.CharField(max_length=30)
    engine_digest = models.CharField(max_length=20)
    state = models.CharField(max_length=12, choices=State.choices)
    prepared_at = models.DateTimeField(auto_now_add=True)
    switched_at = models.DateTimeField(null=True, blank=True)  # when it became current
    ended_at = models.DateTimeField(null=True, blank=True)  # when the site left it
    # Said with the switch on the site's changes page: what moved (entries, boards reordered).
    summary = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-prepared_at", "-pk"]
        permissions = [("switch_epoch", "Can switch the site to a candidate epoch")]
        constraints = [
            models.UniqueConstraint(fields=["state"], condition=Q(state="current"), name="one_current_epoch"),
            models.UniqueConstraint(fields=["state"], condition=Q(state="candidate"), name="one_candidate_epoch"),
        ]

    def __str__(self) -> str:
        return f"wasmtime {self.wasmtime_version} ({self.engine_digest})"

    @property
    def engine(self) -> tuple[str, str]:
        return self.wasmtime_version, self.engine_digest


class EpochMeasurement(models.Model):
    """An entry's figures under one epoch: measured by a candidate's host, or kept from the
    entry's own when the site left the epoch it was counted by."""

    class Outcome(models.TextChoices):
        PENDING = "pending"  # queued for a host of the epoch's engine
        RUNNING = "running"  # claimed by one
        MEASURED = "measured"
        FAILED = "failed"  # the scorer failed, or the host ran another engine: staff see why

    epoch = models.ForeignKey(Epoch, on_delete=models.CASCADE, related_name="measurements")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="epoch_measurements")
    outcome = models.CharField(max_length=10, choices=Outcome.choices, default=Outcome.PENDING)
    attempt = models.PositiveIntegerField(default=0)  # the entry's scoring attempt its figures are of
    status = models.CharField(max_length=20, blank=True)  # Submission.State
    passed = models.BooleanField(default=False)
    total_fuel = models.BigIntegerField(null=True, blank=True)
    overshoot = models.BigIntegerField(default=0)
    passed_count = models.PositiveIntegerField(default=0)
    input_count = models.PositiveIntegerField(default=0)
    # Per input, in manifest order: {"status", "fuel", "overshoot", "answer_digest"}.
    inputs = models.JSONField(default=list, blank=True)
    module_digest = models.CharField(max_length=64, blank=True)
    # False: the stored source rebuilt to another module (its figures measure that one, not the entry).
    module_identical = models.BooleanField(null=True)
    message = models.CharField(max_length=500, blank=True)
    detail = models.TextField(blank=True)  # staff only
    host = models.CharField(max_length=255, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)  # when a host took it (RUNNING)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # refreshed while it runs (scoring/heartbeats.py)
    measured_at = models.DateTimeField(null=True, blank=True)
    job_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["epoch", "submission"]
        constraints = [models.UniqueConstraint(fields=["epoch", "submission"], name="one_measurement_per_epoch")]

    def __str__(self) -> str:
        return f"#{self.submission_id} under {self.epoch}: {self.outcome}"
