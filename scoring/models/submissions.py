"""Submissions, their per-input results, and staff's annotations of them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from catalog.models import CaseVersion, Variant
from engine.builds import CONFINED
from engine.sandbox import Status
from engine.toolchain import Toolchain
from scoring.boards.places import BOARD_ORDER
from scoring.verdicts import verdict_of


class SubmissionQuerySet(models.QuerySet):
    def with_carried_copies(self) -> "SubmissionQuerySet":
        """These submissions and every copy carried forward from them, and from those copies
        (a copy stands for its source on a later version: what staff decide of one, they
        decide of all)."""
        found = set(self.values_list("pk", flat=True))
        frontier = found
        while frontier:
            frontier = set(Submission.objects.filter(carried_from__in=frontier).values_list("pk", flat=True)) - found
            found |= frontier
        return Submission.objects.filter(pk__in=found)

    def in_board_order(self) -> "SubmissionQuerySet":
        return self.order_by(*BOARD_ORDER)

    def stale(self, after: float | None = None) -> "SubmissionQuerySet":
        """Attempts that will not finish by themselves: running with a heartbeat (or, before the
        first, a submission time) older than `after` seconds (SCORING_STALE_SECONDS), and pending
        ones that never got a job in as long. The one rule of `requeue_stale_jobs` and `score_many`."""
        from datetime import timedelta


        cutoff = timezone.now() - timedelta(seconds=settings.SCORING_STALE_SECONDS if after is None else after)
        # An operator's entry waiting for its turn (not yet queued) is not stale: it is queued
        # when one of theirs finishes (scoring/jobs.py `dispatch`).
        return self.annotate(claimed_at=Coalesce("heartbeat_at", "submitted_at"),
                             handed_at=Coalesce("queued_at", "submitted_at")).filter(
            Q(status=Submission.State.RUNNING, claimed_at__lt=cutoff)
            | Q(status=Submission.State.PENDING, job_id="", handed_at__lt=cutoff)
            & (Q(operator__isnull=True) | Q(queued_at__isnull=False)))

    def unfinished(self) -> "SubmissionQuerySet":
        """Entries a stopped run left unfinished: the scorer failed on them (`error`), or they are
        stale. One that is submitted again is taken over by a new attempt (scoring/entries.py)."""
        return self.filter(pk__in=self.stale().values("pk")) | self.filter(status=Submission.State.ERROR)

    def public(self) -> "SubmissionQuerySet":
        """Submissions on versions the site shows (experimental ones only when enabled)."""
        return self.filter(version__in=CaseVersion.objects.public())

    def shown(self) -> "SubmissionQuerySet":
        """What a submission's page and document read: public ones, with their version and variant,
        without the stored source."""
        return self.public().select_related("version__case", "variant").defer("source")


# The indexes of a submission's table (Submission.Meta): the boards' orders and the queue's.
SUBMISSION_INDEXES = [
    models.Index(fields=["version", "status", "passed"]),
    # Every entry of a board, in its order (?all=1), for a version and for one variant.
    models.Index(fields=["version", "board_group", "board_key", "submitted_at", "id"], name="board_all"),
    models.Index(fields=["version", "variant", "board_group", "board_key", "submitted_at", "id"],
                 name="board_all_variant"),
    # A submitter's entries on a version: where the best one is found.
    models.Index(fields=["version", "name", "board_group", "board_key", "submitted_at", "id"],
                 name="board_by_name"),
    # Every entry of one model on a board (?all=1&model=).
    models.Index(fields=["version", "model", "board_group", "board_key", "submitted_at", "id"],
                 name="board_all_model"),
    # An operator's entries in flight, and where a queued one stands (scoring/jobs.py).
    models.Index(fields=["operator", "status", "queued_at"], name="operator_in_flight"),
    models.Index(fields=["status", "queued_at"], name="queue_order"),
]
SUBMISSION_CONSTRAINTS = [
    models.UniqueConstraint(fields=["version", "carried_from"], name="carried_once",
                            condition=models.Q(carried_from__isnull=False)),
    models.UniqueConstraint(fields=["version"], name="one_reference", condition=models.Q(is_reference=True)),
]


class Submission(models.Model):
    class SourceKind(models.TextChoices):
        SUBMISSION = "submission", "source folder"
        WASM = "wasm", "wasm module"

    class State(models.TextChoices):
        PENDING = "pending"  # recorded, not started
        RUNNING = "running"
        SCORED = "scored"
        BUILD_FAILED = "build_failed"
        INVALID_MODULE = "invalid_module"
        ERROR = "error"  # the scorer itself failed; the submission can be scored again

    FINAL_STATES = (State.SCORED, State.BUILD_FAILED, State.INVALID_MODULE)

    version = models.ForeignKey(CaseVersion, on_delete=models.PROTECT, related_name="submissions")
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="submissions")
    name = models.CharField(max_length=100)
    source_kind = models.CharField(max_length=20, choices=SourceKind.choices)
    source_label = models.CharField(max_length=500, blank=True)  # the folder or file given
    # What was submitted, so any machine can (re)score it: a tar.gz of the folder, or the module.
    source = models.BinaryField()
    source_size = models.PositiveBigIntegerField(default=0)
    source_digest = models.CharField(max_length=64, blank=True)  # SHA-256 of `source`
    module_digest = models.CharField(max_length=64, blank=True)
    module_size = models.PositiveBigIntegerField(null=True, blank=True)
    # The compiler its build ran with (engine.toolchain: release, commit, date, cargo), beside
    # the module it gave; {} when nothing was built (a module was submitted) or before it was recorded.
    toolchain = models.JSONField(default=dict, db_default={}, blank=True, editable=False)
    # Its result on each public sample of its variant (catalog.samples): unscored, for a solver
    # to set beside what the kit's meter gives at home ([] when there are none or it was refused).
    sample_results = models.JSONField(default=list, db_default=[], blank=True, editable=False)
    wasmtime_version = models.CharField(max_length=30)
    # The engine configuration it was scored under (engine.sandbox.ENGINE_DIGEST).
    engine_digest = models.CharField(max_length=20, blank=True)
    status = models.CharField(max_length=20, choices=State.choices, default=State.PENDING)
    message = models.TextField(blank=True)  # why a build failed or a module is invalid (public)
    # The same with what the submission itself chose (file, import names; the compiler's words): staff only.
    detail = models.TextField(blank=True)
    build_log = models.TextField(blank=True)
    passed = models.BooleanField(default=False)
    total_fuel = models.BigIntegerField(null=True, blank=True)
    overshoot = models.BigIntegerField(default=0)
    passed_count = models.PositiveIntegerField(default=0)
    input_count = models.PositiveIntegerField(default=0)
    hidden = models.BooleanField(default=False, help_text="Hidden submissions stay off leaderboards.")
    # Its place on the boards (scoring/boards/places.py): group and key in ranking order, NULL while
    # it is hidden or not finished scoring. Written with every change of what they depend on.
    board_group = models.SmallIntegerField(null=True, blank=True, editable=False)
    board_key = models.BigIntegerField(null=True, blank=True, editable=False)
    submitted_at = models.DateTimeField(auto_now_add=True)
    scored_at = models.DateTimeField(null=True, blank=True)
    # Each (re)scoring is an attempt; only the current attempt may write results, so a worker
    # that was given up on cannot double-count when it wakes up.
    attempt = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # refreshed while scoring runs
    job_id = models.CharField(max_length=64, blank=True)  # the task queue's id for the attempt
    # When the attempt's job was handed to the task queue (scoring/jobs.py); NULL while an
    # operator's entry waits for its turn (at most SCORING_OPERATOR_JOBS of one operator's go at once).
    queued_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Times this attempt went back to the queue because no build sandbox could be had (no
    # attempt spent); the reason is in `detail`, for staff.
    sandbox_waits = models.PositiveIntegerField(default=0, db_default=0, editable=False)
    # How its build was held (engine.builds: confined, unconfined, unsandboxed); "" when nothing
    # was built (a module was submitted). Anything but "confined" is said wherever it is shown.
    build_confinement = models.CharField(max_length=12, blank=True, default="", db_default="", editable=False)
    # Carry-forward (scoring/carry.py): the entry on an earlier version whose source this is,
    # scored again against this version. At most one carried copy per source and version.
    carried_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="carried_to", editable=False)
    # Provenance (scoring/provenance.py): the run that produced it, as its run record's `run`
    # object or `score --meta` gave it, validated and bounded; `model` copied out to filter by.
    run = models.JSONField(default=dict, blank=True, editable=False)
    model = models.CharField(max_length=100, blank=True, editable=False)
    # The rest of what the agents matrix groups and sums by (scoring/agents/), copied out of `run`
    # the same way: the harness, and what the run cost (NULL: not recorded).
    harness = models.CharField(max_length=100, blank=True, editable=False)
    cost_usd = models.FloatField(null=True, blank=True, editable=False)
    input_tokens = models.BigIntegerField(null=True, blank=True, editable=False)
    output_tokens = models.BigIntegerField(null=True, blank=True, editable=False)
    # Its latest re-measurement (scoring/verification.py), copied here so a board row shows it
    # with no query of its own: "" never re-measured, else Verification.Outcome.
    verification = models.CharField(max_length=20, blank=True, editable=False)
    verified_at = models.DateTimeField(null=True, blank=True, editable=False)
    verification_message = models.CharField(max_length=500, blank=True, editable=False)  # public
    # A staff annotation, public: shown wherever the entry is. Excluded entries stay visible on
    # the boards, below the ranked ones (scoring/boards/places.py EXCLUDED).
    annotation = models.CharField(max_length=500, blank=True,
                                  help_text="Public note shown with this entry wherever it appears.")
    excluded = models.BooleanField(default=False, help_text="Excluded from ranking: listed below the "
                                   "ranked entries with the annotation as its reason.")
    # Its version's reference entry (scoring/references.py): a speedup is its fuel ÷ another's.
    is_reference = models.BooleanField(default=False, db_default=False, editable=False)
    # The operator whose API token sent it (None: scored from the shell, or carried forward).
    operator = models.ForeignKey("auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                 editable=False)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-submitted_at", "-pk"]
        permissions = [("submit_entry", "Can submit entries over the API (with a token)")]
        indexes = SUBMISSION_INDEXES
        constraints = SUBMISSION_CONSTRAINTS

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} on {self.version}"

    @property
    def verdict(self):

        return verdict_of(status=self.status, passed=self.passed, total_fuel=self.total_fuel,
                          passed_count=self.passed_count, input_count=self.input_count)

    @property
    def attempts_used(self) -> int:
        return self.attempt + 1

    @property
    def out_of_attempts(self) -> bool:
        """Its current attempt is the last SCORING_MAX_ATTEMPTS allows: no new one may start."""

        return self.attempts_used >= settings.SCORING_MAX_ATTEMPTS

    @property
    def confined(self) -> bool:
        """Whether its build (if it had one) was held as production holds every build."""
        return self.build_confinement in ("", CONFINED)

    @property
    def compiler(self) -> Toolchain | None:
        """The compiler its build ran with; None when nothing was built here or it was not recorded."""
        found = Toolchain.from_dict(self.toolchain)
        return found if found.release else None

    @property
    def job_state(self) -> str:
        """queued, running, done or failed: where the scoring job stands."""
        return {
            self.State.PENDING: "queued",
            self.State.RUNNING: "running",
            self.State.ERROR: "failed",
        }.get(self.status, "done")


class Result(models.Model):
    """The outcome of one held-out input for one submission."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="results")
    position = models.PositiveIntegerField()  # manifest order
    kind = models.CharField(max_length=10)
    input_path = models.CharField(max_length=300)
    status = models.CharField(max_length=20, choices=[(status.value, status.value) for status in Status])
    fuel = models.BigIntegerField(null=True, blank=True)
    fuel_limit = models.BigIntegerField()
    ceiling = models.BigIntegerField()
    overshoot = models.BigIntegerField(default=0)
    message = models.TextField(blank=True)  # public: never quotes the answer
    detail = models.TextField(blank=True)  # the full message (a whole JSON pointer…): staff only
    wall_ms = models.FloatField(default=0)
    output_size = models.PositiveBigIntegerField(null=True, blank=True)
    answer_digest = models.CharField(max_length=64, blank=True)  # SHA-256 of the answer returned, if one was read

    class Meta:
        ordering = ["submission", "position"]
        constraints = [models.UniqueConstraint(fields=["submission", "position"], name="unique_result_position")]

    def __str__(self) -> str:
        return f"{self.submission_id} {self.input_path} {self.status}"



class AnnotationChange(models.Model):
    """The audit trail of a submission's annotation: every change, by whom, when."""

    # SET_NULL: the trail outlives the submission; `submission_number` still says whose it was.
    submission = models.ForeignKey(Submission, null=True, on_delete=models.SET_NULL, related_name="annotation_changes")
    submission_number = models.PositiveBigIntegerField()
    annotation = models.CharField(max_length=500, blank=True)
    excluded = models.BooleanField(default=False)
    changed_by = models.ForeignKey("auth.User", null=True, on_delete=models.SET_NULL, related_name="+")
    changed_by_name = models.CharField(max_length=150, blank=True)  # kept if the account goes
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]

    def __str__(self) -> str:
        return f"annotation of #{self.submission_number} at {self.changed_at}"
