"""What the boards keep: each submitter's best entry, the record steps, a board's summary, and the
catalog-wide standings' snapshot."""

from __future__ import annotations

from django.db import models

from catalog.models import CaseVersion
from scoring import boards
from scoring.models.submissions import Submission


class StandingQuerySet(models.QuerySet):
    def board(self, version_id: int, key: int = boards.ALL_VARIANTS) -> "StandingQuerySet":
        """The rows of one board: a version's, over every variant (or one variant's `key`)."""
        return self.filter(version_id=version_id, variant_key=key)

    def in_board_order(self) -> "StandingQuerySet":
        return self.order_by(*boards.STANDING_ORDER)


class Standing(models.Model):
    """A submitter's best entry on one version's board: for one variant, or (`variant_key` 0)
    over all of them. The ordering columns are the submission's, copied so the board is one
    index. The variant is a plain key, never NULL: "= 0" lets the database read the index in
    board order, where "IS NULL" would not (PostgreSQL sorts then)."""

    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="+")
    variant_key = models.BigIntegerField()  # the variant's id, or 0 for every variant
    name = models.CharField(max_length=100)
    # SET_NULL: a deleted best entry leaves the row for forget_submission() to refill or remove.
    submission = models.ForeignKey(Submission, null=True, on_delete=models.SET_NULL, related_name="+")
    board_group = models.SmallIntegerField()
    board_key = models.BigIntegerField()
    submitted_at = models.DateTimeField()
    engine = models.CharField(max_length=60)  # boards.engine_label of the submission
    model = models.CharField(max_length=100, blank=True)  # the submission's, for ?model=

    objects = StandingQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "variant_key", "name"], name="one_standing")]
        indexes = [models.Index(fields=["version", "variant_key", "board_group", "board_key", "submitted_at",
                                        "submission"],
                                name="standing_order"),
                   models.Index(fields=["version", "variant_key", "model", "board_group", "board_key", "submitted_at",
                                        "submission"], name="standing_model_order")]

    def __str__(self) -> str:
        return f"{self.name} on {self.version_id}/{self.variant_key or 'all'}"


class RecordStep(models.Model):
    """One step of a board's record progression (scoring/boards/records.py): an entry that,
    when it was scored, used less fuel than every passing entry scored before it. Per version and
    variant (`variant_key` 0: every variant), rebuilt in the transaction that changes the board."""

    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="+")
    variant_key = models.BigIntegerField()
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    scored_at = models.DateTimeField()
    total_fuel = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "variant_key", "submission"], name="one_step")]
        indexes = [models.Index(fields=["version", "variant_key", "scored_at", "submission"], name="record_order"),
                   models.Index(fields=["scored_at", "id"], name="record_feed")]

    def __str__(self) -> str:
        return f"record {self.total_fuel} by {self.submission_id} on {self.version_id}/{self.variant_key or 'all'}"



class BoardSummary(models.Model):
    """What a board's pages need besides their rows: counts, and the engines seen."""

    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="+")
    variant_key = models.BigIntegerField(default=0)  # the variant's id, or 0 for every variant
    entries = models.PositiveIntegerField(default=0)  # standings: each submitter's best
    submissions = models.PositiveIntegerField(default=0)  # every submission on the board
    entry_engines = models.JSONField(default=dict)  # engine label -> count, over the standings
    submission_engines = models.JSONField(default=dict)  # the same over the submissions

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "variant_key"], name="one_summary")]

    def __str__(self) -> str:
        return f"board of {self.version_id}/{self.variant_key or 'all'}"


class StandingsRow(models.Model):
    """One submitter's line of the catalog-wide standings (scoring/standings.py), in one
    scope: every case (""), one difficulty ("difficulty:easy") or one tag ("tag:prefix-sums"),
    as of the last refresh. `position` is the order of the page: score, then cases solved, then name."""

    scope = models.CharField(max_length=150)
    position = models.PositiveIntegerField()
    # The place it shares with every line of the same score and cases solved (the first one's
    # position: "=3" on the page), as a leaderboard's equal fuel shares a place.
    shared_position = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=100)
    entered = models.PositiveIntegerField()  # cases with an entry of theirs
    solved = models.PositiveIntegerField()  # cases they passed
    score = models.FloatField()  # the sum over the scope's cases of best fuel ÷ their fuel
    geometric_mean = models.FloatField(null=True)  # of their fuel ÷ the best, over the cases they solved
    breakdown = models.JSONField(default=dict)  # difficulty → {"entered", "solved", "score"}
    # Over their entries in the scope: {"models": [...], "annotations": [{"case", "submission", "text"}]}
    provenance = models.JSONField(default=dict)
    # Against the references (scoring/speedups.py): p → cases solved at least p times as cheaply;
    # the cases solved that have a reference, and the geometric mean of the speedups on them.
    fast = models.JSONField(default=dict)
    reference_solved = models.PositiveIntegerField(default=0)
    speedup = models.FloatField(null=True)
    # Σ over those solved cases of their fuel ÷ the reference's: the harmonic mean's denominator,
    # each case with a reference not solved counting 1 (scoring/speedups.py).
    inverse_speedups = models.FloatField(default=0.0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "position"], name="one_standings_position")]

    def __str__(self) -> str:
        return f"{self.scope or 'all'} #{self.position} {self.name}"


class StandingsSnapshot(models.Model):
    """When a table computed in the background was computed, from what, and whether a refresh is
    under way: one row per table, its key naming it (scoring/snapshots.py: 1 the catalog-wide
    standings, 2 the agents matrix)."""

    source = models.CharField(max_length=100, blank=True)  # the generations they were computed from
    computed_at = models.DateTimeField(null=True)
    duration_ms = models.FloatField(default=0)
    claimed_at = models.DateTimeField(null=True)  # a refresh was asked for (and not yet finished)
    scopes = models.JSONField(default=dict)  # scope → {"cases": n, "rows": m}

    def __str__(self) -> str:
        return f"standings as of {self.computed_at}"
