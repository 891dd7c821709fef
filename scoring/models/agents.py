"""What the agents matrix keeps (scoring/agents/): each agent, its summary per scope, and its cell
per case, as of the last refresh."""

from __future__ import annotations

from django.db import models

from catalog.models import CaseVersion
from scoring.models.submissions import Submission


class Agent(models.Model):
    """A model and the harness that drove it (harness may be empty), as entries' run records name
    them. Kept across refreshes, so the id the matrix's lines and cells share never moves under a
    reader between two queries."""

    model = models.CharField(max_length=100)
    harness = models.CharField(max_length=100, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["model", "harness"], name="one_agent")]

    def __str__(self) -> str:
        return f"{self.model} ({self.harness})" if self.harness else self.model


class CostPerTrial:
    """What a line's trials cost, per trial that recorded it: of an AgentLine, and of a line summed
    on request (scoring/agents/computing.py), from the same sums and counts."""

    @property
    def mean_cost_usd(self) -> float | None:
        return self.total_cost_usd / self.cost_trials if self.cost_trials and self.total_cost_usd is not None else None

    @property
    def input_tokens_per_trial(self) -> float | None:
        return self.input_tokens / self.input_token_trials if self.input_token_trials else None

    @property
    def output_tokens_per_trial(self) -> float | None:
        return self.output_tokens / self.output_token_trials if self.output_token_trials else None


class AgentLine(CostPerTrial, models.Model):
    """An agent's summary in one scope (every case "", "difficulty:<d>" or "tag:<t>", as the
    standings' scopes), and its place in each order the page offers."""

    scope = models.CharField(max_length=150)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    harness = models.CharField(max_length=100, blank=True)  # the agent's: ?harness= reads an index
    by_solved = models.PositiveIntegerField(default=0)
    by_score = models.PositiveIntegerField()
    by_pass_rate = models.PositiveIntegerField()
    by_cost = models.PositiveIntegerField()
    # The same places among the scope's lines of its harness (?harness= pages through these).
    harness_by_solved = models.PositiveIntegerField(default=0)
    harness_by_score = models.PositiveIntegerField()
    harness_by_pass_rate = models.PositiveIntegerField()
    harness_by_cost = models.PositiveIntegerField()
    # On the Pareto front of cost against score: among the scope's lines, and among its harness's.
    on_front = models.BooleanField(default=False)
    on_harness_front = models.BooleanField(default=False)
    cases_entered = models.PositiveIntegerField()
    cases_solved = models.PositiveIntegerField()  # cases where a trial passed
    trials = models.PositiveIntegerField()
    solved_trials = models.PositiveIntegerField()
    pass_rate = models.FloatField()
    pass_low = models.FloatField()  # the 95% Wilson interval of the pass rate
    pass_high = models.FloatField()
    score = models.FloatField()  # as the standings: best fuel ÷ the agent's best, summed over the cases
    cost_trials = models.PositiveIntegerField(default=0)  # trials that recorded their cost
    total_cost_usd = models.FloatField(null=True)
    input_token_trials = models.PositiveIntegerField(default=0)
    input_tokens = models.BigIntegerField(null=True)  # summed over those trials
    output_token_trials = models.PositiveIntegerField(default=0)
    output_tokens = models.BigIntegerField(null=True)
    verified_cases = models.PositiveIntegerField(default=0)  # cells whose best entry was re-measured identically
    # Against the references (scoring/speedups.py): p → cases solved at least p times as cheaply;
    # the solved cases that have a reference, and the geometric mean of the speedups on them.
    # Over the scope's cases with a reference, per p (keys as scoring.speedups.p_key): the sum of
    # each case's share of the agent's trials that solved it at least p times as cheaply as the
    # reference (÷ those cases: fast_p), and of the fast_p@k estimate (FAST_K trials).
    fast = models.JSONField(default=dict)
    fast_at_k = models.JSONField(default=dict)
    reference_solved = models.PositiveIntegerField(default=0)
    speedup = models.FloatField(null=True)  # geometric mean over the solved cases with a reference
    # Σ over those solved cases of the agent's best fuel ÷ the reference's (the harmonic mean's
    # denominator, with the unsolved and untried cases counting 1 each).
    inverse_speedups = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "agent"], name="one_agent_line"),
            models.UniqueConstraint(fields=["scope", "by_solved"], name="agent_line_by_solved"),
            models.UniqueConstraint(fields=["scope", "harness", "harness_by_solved"], name="agent_line_harness_solved"),
            models.UniqueConstraint(fields=["scope", "by_score"], name="agent_line_by_score"),
            models.UniqueConstraint(fields=["scope", "by_pass_rate"], name="agent_line_by_pass_rate"),
            models.UniqueConstraint(fields=["scope", "by_cost"], name="agent_line_by_cost"),
            models.UniqueConstraint(fields=["scope", "harness", "harness_by_score"], name="agent_line_harness_score"),
            models.UniqueConstraint(fields=["scope", "harness", "harness_by_pass_rate"],
                                    name="agent_line_harness_rate"),
            models.UniqueConstraint(fields=["scope", "harness", "harness_by_cost"], name="agent_line_harness_cost"),
        ]

    def __str__(self) -> str:
        return f"{self.scope or 'all'} #{self.by_score} {self.agent_id}"

    @property
    def model(self) -> str:
        return self.agent.model


class AgentCell(models.Model):
    """An agent on one case: its trials on the case's latest published version, how many passed,
    and its best entry (the fewest fuel of a passing trial)."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(CaseVersion, on_delete=models.CASCADE, related_name="+")
    trials = models.PositiveIntegerField()
    solved = models.PositiveIntegerField()
    best_fuel = models.BigIntegerField(null=True)
    # The version's best fuel when this was computed: the agent's best ÷ it is the cell's share.
    case_best_fuel = models.BigIntegerField(null=True)
    # The version's reference fuel when this was computed (its speedups divide it), NULL without one.
    reference_fuel = models.BigIntegerField(null=True)
    best_submission = models.ForeignKey(Submission, null=True, on_delete=models.SET_NULL, related_name="+")
    verified = models.CharField(max_length=20, blank=True)  # the best entry's latest re-measurement
    # What its trials recorded of their cost (sums over the trials that recorded each), so a
    # filter's summary can be summed from cells alone.
    cost_trials = models.PositiveIntegerField(default=0)
    total_cost_usd = models.FloatField(null=True)
    input_token_trials = models.PositiveIntegerField(default=0)
    input_tokens = models.BigIntegerField(null=True)
    output_token_trials = models.PositiveIntegerField(default=0)
    output_tokens = models.BigIntegerField(null=True)
    # Its trials that solved the case at least p times as cheaply as the reference, for each p of
    # scoring.speedups.FAST_P in order (a column each: the refresh's INSERT … SELECT counts them).
    fast_trials_0 = models.PositiveIntegerField(default=0)  # p = 0.5
    fast_trials_1 = models.PositiveIntegerField(default=0)  # p = 0.8
    fast_trials_2 = models.PositiveIntegerField(default=0)  # p = 1
    fast_trials_3 = models.PositiveIntegerField(default=0)  # p = 1.5
    fast_trials_4 = models.PositiveIntegerField(default=0)  # p = 2
    fast_trials_5 = models.PositiveIntegerField(default=0)  # p = 5
    fast_trials_6 = models.PositiveIntegerField(default=0)  # p = 10

    class Meta:
        constraints = [models.UniqueConstraint(fields=["agent", "version"], name="one_agent_cell")]

    def __str__(self) -> str:
        return f"{self.agent_id} on {self.version_id}: {self.solved}/{self.trials}"

    @property
    def share(self) -> float | None:
        """The agent's best fuel ÷ the case's best (1.0: the agent holds the case's best)."""
        if self.best_fuel is None or not self.case_best_fuel:
            return None
        return max(self.best_fuel, 1) / max(self.case_best_fuel, 1)
