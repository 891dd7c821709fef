"""Computing the agents matrix: one cell per agent and case, one line per agent and scope.

An *agent* is a model and the harness that drove it, as an entry's run record names them (the
harness may be empty); an entry without a model is no agent's. Every scored entry of an agent on
the latest published version of a case (experimental cases never) is a **trial**: not hidden,
in a final state, whatever its variant — excluded entries included, as trials that did not
solve the case (as the standings count them). A trial *solved* the case if it ranks (passed).

A cell is the agent on one case: its trials, how many solved, and its best entry (the fewest
fuel of a solving trial, in board order). A line sums the cells of a scope (every case, a
difficulty or a tag, as the standings' scopes): cases entered and solved, trials and solved
trials, the pass rate with its 95% Wilson interval, the **score** as the standings define it
(the case's best fuel ÷ the agent's best, summed over the cases: 1.0 per case at best), and the
cost and tokens of the trials that recorded them.

The matrix is a snapshot refreshed in the background like the standings (scoring/snapshots.py):
`refresh()` writes every cell with one INSERT … SELECT over the trials, sums the lines of each
scope from the cells in three grouped queries, and replaces both in one transaction; a difficulty
and a tag together are summed on request from the stored cells the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, FloatField, Q, Sum
from django.db.models.functions import Cast, Coalesce, Greatest
from django_tasks import task

from catalog.models import CaseVersion
from lib.stats import pareto_front, wilson_interval
from scoring import snapshots
from scoring.boards.places import RANKED
from scoring.models import Agent, AgentCell, AgentLine, StandingsSnapshot, Submission
from scoring.models.agents import CostPerTrial
from scoring.speedups import FAST_P, aggregates, at_k, geometric_mean, p_key
from scoring.standings.computing import case_counts, scope_name, version_scopes
from sitecache.models import AGENTS_SNAPSHOT

IDENTICAL = "identical"  # Verification.Outcome.IDENTICAL, as the cells keep it
SORTS = ("solved", "score", "pass_rate", "cost")


def trials():
    """Every trial: the one definition the matrix, the agent page and the tests read."""

    return Submission.objects.filter(version__latest_public=True, board_group__isnull=False).exclude(model="")


@dataclass
class Line(CostPerTrial):
    """An agent's figures in one scope, summed from its cells."""

    model: str
    harness: str
    cases_entered: int = 0
    cases_solved: int = 0
    trials: int = 0
    solved_trials: int = 0
    score: float = 0.0
    cost_trials: int = 0
    total_cost_usd: float | None = None
    input_token_trials: int = 0
    input_tokens: int | None = None
    output_token_trials: int = 0
    output_tokens: int | None = None
    verified_cases: int = 0
    reference_solved: int = 0  # the solved cases that have a reference (scoring/speedups.py)
    speedup_logs: float = 0.0
    inverse_speedups: float = 0.0
    fast: dict | None = None  # per p: Σ over cases with a reference of the share of trials (÷ those cases)
    fast_at_k: dict | None = None  # per p: Σ over those cases of the fast_p@k estimate
    by_solved: int = 0
    by_score: int = 0
    by_pass_rate: int = 0
    by_cost: int = 0
    harness_by_solved: int = 0
    harness_by_score: int = 0
    harness_by_pass_rate: int = 0
    harness_by_cost: int = 0
    on_front: bool = False
    on_harness_front: bool = False
    agent_id: int | None = None

    @property
    def pass_rate(self) -> float:
        return self.solved_trials / self.trials if self.trials else 0.0

    @property
    def pass_interval(self) -> tuple[float, float]:
        return wilson_interval(self.solved_trials, self.trials)

    @property
    def pass_low(self) -> float:
        return self.pass_interval[0]

    @property
    def pass_high(self) -> float:
        return self.pass_interval[1]

    @property
    def speedup(self) -> float | None:
        return geometric_mean(self.speedup_logs, self.reference_solved)


def compared(score: float) -> float:
    """A score as the orders and the front compare it: a sum of ratios comes out of the database
    in whatever order it added them, so two agents whose scores are the same number can differ in
    the last bits; to nine places they are equal. (Costs are compared as they are: a run may record
    a cost far below a billionth of a dollar, and a cheaper agent must stay cheaper.)"""
    return round(score, 9)


def order_keys(line: Line) -> dict[str, tuple]:
    """The page's orders: by cases solved (then score, pass rate; the default: solving one more
    case counts for more than any fuel saved), by score (then cases solved, pass rate), by pass
    rate (then trials, score), by mean cost per trial, cheapest first (agents that recorded none
    last; then score); each ends with the agent's names, so no two lines tie."""
    names = (line.model, line.harness)
    cost = line.mean_cost_usd
    score = compared(line.score)
    return {
        "solved": (-line.cases_solved, -score, -line.pass_rate, *names),
        "score": (-score, -line.cases_solved, -line.pass_rate, *names),
        "pass_rate": (-line.pass_rate, -line.trials, -score, *names),
        "cost": (cost is None, cost if cost is not None else 0.0, -score, *names),
    }


def placed(lines: list[Line]) -> list[Line]:
    """The lines with their place in every order, over all of them and among their harness's, and
    whether each is on the Pareto front of cost against score (the same two ways); in score order."""
    keys = {id(line): order_keys(line) for line in lines}
    harnesses: dict[str, list[Line]] = {}
    for line in lines:
        harnesses.setdefault(line.harness, []).append(line)
    for sort in SORTS:
        for position, line in enumerate(sorted(lines, key=lambda line: keys[id(line)][sort]), 1):
            setattr(line, f"by_{sort}", position)
        for group in harnesses.values():
            for position, line in enumerate(sorted(group, key=lambda line: keys[id(line)][sort]), 1):
                setattr(line, f"harness_by_{sort}", position)
    for line in front_of(lines):
        line.on_front = True
    for group in harnesses.values():
        for line in front_of(group):
            line.on_harness_front = True
    return sorted(lines, key=lambda line: line.by_solved)


def front_of(lines: list[Line]) -> list[Line]:
    """The lines that recorded a cost and that no other such line beats on both cost and score
    (scores compared as the orders compare them: two agents with the same score and the same
    cost are both on it)."""
    costed = {id(line): line for line in lines if line.mean_cost_usd is not None}
    return [costed[key] for key in pareto_front((id(line), line.mean_cost_usd, compared(line.score))
                                                for line in costed.values())]


# One row per cell: each (model, harness, version) group of trials with its counts and sums
# over the group (window functions over the partition), and its first trial in board order,
# which is the best entry when it ranks. Standard SQL with window functions: SQLite 3.28 or later
# (named windows) and PostgreSQL.
CELLS_SQL = """
    INSERT INTO {cell} (agent_id, version_id, trials, solved, best_fuel, case_best_fuel, reference_fuel,
                        best_submission_id, verified, cost_trials, total_cost_usd, input_token_trials, input_tokens,
                        output_token_trials, output_tokens, {fast_columns})
    SELECT a.id, t.version_id, t.trials, t.solved, t.best_fuel, t.case_best_fuel, t.reference_fuel,
           CASE WHEN t.board_group = {ranked} THEN t.id END,
           CASE WHEN t.board_group = {ranked} THEN t.verification ELSE '' END,
           t.cost_trials, t.total_cost_usd, t.input_token_trials, t.input_tokens, t.output_token_trials,
           t.output_tokens, {fast_values}
    FROM (
        SELECT s.id, s.model, s.harness, s.version_id, s.board_group, s.verification, v.best_fuel AS case_best_fuel,
               v.reference_fuel,
               ROW_NUMBER() OVER board AS place,
               COUNT(*) OVER cell AS trials,
               COUNT(CASE WHEN s.board_group = {ranked} THEN 1 END) OVER cell AS solved,
               MIN(CASE WHEN s.board_group = {ranked} THEN s.board_key END) OVER cell AS best_fuel,
               COUNT(s.cost_usd) OVER cell AS cost_trials, SUM(s.cost_usd) OVER cell AS total_cost_usd,
               COUNT(s.input_tokens) OVER cell AS input_token_trials, SUM(s.input_tokens) OVER cell AS input_tokens,
               COUNT(s.output_tokens) OVER cell AS output_token_trials, SUM(s.output_tokens) OVER cell AS output_tokens,
               {fast_counts}
        FROM {submission} s JOIN {version} v ON v.id = s.version_id
        WHERE v.latest_public = %s AND s.board_group IS NOT NULL AND s.model <> ''
        WINDOW cell AS (PARTITION BY s.model, s.harness, s.version_id),
               board AS (PARTITION BY s.model, s.harness, s.version_id
                         ORDER BY s.board_group, s.board_key, s.submitted_at, s.id)
    ) t JOIN {agent} a ON a.model = t.model AND a.harness = t.harness
    WHERE t.place = 1
"""


# A trial at least p times as cheap as the reference: fuel × 10p ≤ reference × 10 (scoring/speedups.py).
FAST_COUNT = ("COUNT(CASE WHEN s.board_group = {ranked} AND v.reference_fuel IS NOT NULL "
              "AND s.board_key * {tenths} <= v.reference_fuel * 10 THEN 1 END) OVER cell AS fast_{index}")


def _insert_cells() -> None:
    indexes = range(len(FAST_P))
    sql = CELLS_SQL.format(
        cell=AgentCell._meta.db_table, submission=Submission._meta.db_table, version=CaseVersion._meta.db_table,
        agent=Agent._meta.db_table, ranked=RANKED,
        fast_columns=", ".join(f"fast_trials_{index}" for index in indexes),
        fast_values=", ".join(f"t.fast_{index}" for index in indexes),
        fast_counts=", ".join(FAST_COUNT.format(ranked=RANKED, tenths=round(p * 10), index=index)
                              for index, p in enumerate(FAST_P)))
    with connection.cursor() as cursor:
        cursor.execute(sql, [True])


def line_sums(cells, by: str | None = None):
    """Per agent (and per `by`, a field of the cell's version: its difficulty, or a tag), the sums
    a line is made of, from these cells in one grouped query."""
    ratio = (Cast(Greatest(Coalesce("case_best_fuel", 1), 1), FloatField())
             / Cast(Greatest("best_fuel", 1), FloatField()))
    solved = Q(solved__gt=0, best_fuel__isnull=False)
    referenced = Q(reference_fuel__isnull=False, trials__gt=0)
    trial_shares = {f"trial_share_{index}": Sum(Cast(f"fast_trials_{index}", FloatField())
                                                / Cast("trials", FloatField()), filter=referenced)
                    for index in range(len(FAST_P))}
    return (cells.values("agent_id", *([by] if by else [])).order_by()
            .annotate(**aggregates("best_fuel", "reference_fuel", solved), **trial_shares,
                      entered=Count("id"), cases_solved=Count("id", filter=solved), trials_=Sum("trials"),
                      solved_trials=Sum("solved"), score=Sum(ratio, filter=solved),
                      verified=Count("id", filter=Q(verified=IDENTICAL)), cost_trials=Sum("cost_trials"),
                      total_cost=Sum("total_cost_usd"), input_token_trials=Sum("input_token_trials"),
                      input_tokens=Sum("input_tokens"), output_token_trials=Sum("output_token_trials"),
                      output_tokens=Sum("output_tokens")))


def line_of(row: dict, names: dict[int, tuple[str, str]]) -> Line:
    """A line from its sums (PostgreSQL sums big integers as decimals: read back as integers)."""
    def whole(value) -> int | None:
        return int(value) if value is not None else None

    model, harness = names[row["agent_id"]]
    return Line(model, harness, cases_entered=row["entered"], cases_solved=row["cases_solved"],
                trials=whole(row["trials_"]), solved_trials=whole(row["solved_trials"]), score=row["score"] or 0.0,
                cost_trials=whole(row["cost_trials"]) or 0, total_cost_usd=row["total_cost"],
                input_token_trials=whole(row["input_token_trials"]) or 0, input_tokens=whole(row["input_tokens"]),
                output_token_trials=whole(row["output_token_trials"]) or 0, output_tokens=whole(row["output_tokens"]),
                verified_cases=row["verified"], agent_id=row["agent_id"], reference_solved=row["reference_solved"],
                speedup_logs=row["speedup_logs"] or 0.0, inverse_speedups=row["inverse_speedups"] or 0.0,
                fast={p_key(p): row[f"trial_share_{index}"] or 0.0 for index, p in enumerate(FAST_P)})


def at_k_sums(cells, by: str | None = None) -> dict[tuple, dict[str, float]]:
    """Per agent (and per `by`, as line_sums), per p: Σ over its cells with a reference of the
    fast_p@k estimate from the cell's trials (scoring/speedups.py)."""
    sums: dict[tuple, dict[str, float]] = {}
    columns = [f"fast_trials_{index}" for index in range(len(FAST_P))]
    for row in cells.filter(reference_fuel__isnull=False).values_list("agent_id", *([by] if by else []),
                                                                       "trials", *columns).order_by():
        key, trials, counts = row[:-len(columns) - 1], row[-len(columns) - 1], row[-len(columns):]
        found = sums.setdefault(tuple(key), {p_key(p): 0.0 for p in FAST_P})
        for p, count in zip(FAST_P, counts):
            found[p_key(p)] += at_k(trials, count)
    return sums


def agent_names() -> dict[int, tuple[str, str]]:

    return {pk: (model, harness) for pk, model, harness in Agent.objects.values_list("pk", "model", "harness")}


def scope_lines() -> dict[str, list[Line]]:
    """Every precomputed scope's lines, placed: every case, each difficulty, each tag."""

    cells, names = AgentCell.objects.filter(version__latest_public=True), agent_names()
    scopes: dict[str, list[Line]] = {"": with_at_k([line_of(row, names) for row in line_sums(cells)],
                                                   at_k_sums(cells), lambda line: (line.agent_id,))}
    by_difficulty = at_k_sums(cells, "version__difficulty")
    for row in line_sums(cells, "version__difficulty"):
        line = line_of(row, names)
        line.fast_at_k = by_difficulty.get((line.agent_id, row["version__difficulty"]), {})
        scopes.setdefault(scope_name(difficulty=row["version__difficulty"]), []).append(line)
    tagged = cells.filter(version__tags__isnull=False)
    by_tag = at_k_sums(tagged, "version__tags__name")
    for row in line_sums(tagged, "version__tags__name"):
        line = line_of(row, names)
        line.fast_at_k = by_tag.get((line.agent_id, row["version__tags__name"]), {})
        scopes.setdefault(scope_name(tag=row["version__tags__name"]), []).append(line)
    return {scope: placed(lines) for scope, lines in scopes.items()}


def with_at_k(lines: list[Line], sums: dict[tuple, dict[str, float]], key) -> list[Line]:
    for line in lines:
        line.fast_at_k = sums.get(key(line), {})
    return lines


# How many times a filtered matrix is read again when a refresh replaced the cells meanwhile.
CONSISTENT_READS = 3


def summed_lines(version_ids) -> list[Line]:
    """The lines over just these versions, placed, summed from the stored cells (a filter that is
    not precomputed: a difficulty and a tag together).

    The sums, the estimates and the agents' names are three reads, and on PostgreSQL each sees what
    was committed when it ran: a refresh committed between them (new agents, or agents gone) is
    seen by the refresh time it leaves, and all three are read again. An agent still missing then
    is left out, never a failed page."""
    version_ids = list(version_ids)
    for _ in range(CONSISTENT_READS):
        before = _refreshed_at()
        cells = AgentCell.objects.filter(version_id__in=version_ids)
        sums, estimates, names = list(line_sums(cells)), at_k_sums(cells), agent_names()
        if _refreshed_at() == before and all(row["agent_id"] in names for row in sums):
            break
    return placed(with_at_k([line_of(row, names) for row in sums if row["agent_id"] in names], estimates,
                            lambda line: (line.agent_id,)))


def _refreshed_at():
    return StandingsSnapshot.objects.filter(pk=snapshots.AGENTS).values_list("computed_at", flat=True).first()


def refresh() -> float:
    """Recompute every cell and every precomputed scope's lines, and replace them in one
    transaction. Returns seconds."""

    started = time.perf_counter()
    source = snapshots.current_source()  # before reading: a score landing meanwhile makes the next check refresh again
    cases = case_counts(version_scopes())
    with transaction.atomic():
        kept = _make_agents()
        AgentCell.objects.all().delete()
        AgentLine.objects.all().delete()
        _insert_cells()
        lines = scope_lines()
        AgentLine.objects.bulk_create((_stored_line(scope, line) for scope, found in lines.items() for line in found),
                                      batch_size=2000)
        Agent.objects.exclude(pk__in=kept).delete()  # no trial left
        return snapshots.store(snapshots.AGENTS, source, started, {
            scope: {**counts, "rows": len(lines.get(scope, []))} for scope, counts in cases.items()},
            AGENTS_SNAPSHOT)


def _make_agents() -> list[int]:
    """The ids of the agents with a trial, each made if it is new (the others keep theirs)."""

    keys = set(trials().values_list("model", "harness").distinct().order_by())
    Agent.objects.bulk_create([Agent(model=model, harness=harness) for model, harness in keys],
                              ignore_conflicts=True, batch_size=2000)
    return [pk for pk, model, harness in Agent.objects.values_list("pk", "model", "harness") if (model,
                                                                                                 harness) in keys]


def _stored_line(scope: str, line: Line):

    low, high = line.pass_interval
    return AgentLine(scope=scope, agent_id=line.agent_id, harness=line.harness, by_solved=line.by_solved,
                     by_score=line.by_score, by_pass_rate=line.by_pass_rate, by_cost=line.by_cost,
                     harness_by_solved=line.harness_by_solved, harness_by_score=line.harness_by_score,
                     harness_by_pass_rate=line.harness_by_pass_rate, harness_by_cost=line.harness_by_cost,
                     on_front=line.on_front, on_harness_front=line.on_harness_front, cases_entered=line.cases_entered,
                     cases_solved=line.cases_solved, trials=line.trials, solved_trials=line.solved_trials,
                     pass_rate=line.pass_rate, pass_low=low, pass_high=high, score=line.score,
                     cost_trials=line.cost_trials, total_cost_usd=line.total_cost_usd,
                     input_token_trials=line.input_token_trials, input_tokens=line.input_tokens,
                     output_token_trials=line.output_token_trials, output_tokens=line.output_tokens,
                     verified_cases=line.verified_cases, fast=line.fast or {}, fast_at_k=line.fast_at_k or {},
                     reference_solved=line.reference_solved, speedup=line.speedup,
                     inverse_speedups=line.inverse_speedups)


def snapshot():
    return snapshots.snapshot(snapshots.AGENTS)


@task()
def refresh_agents_job() -> float:
    """Recompute the agents matrix, on whichever worker takes this. Returns seconds."""
    return refresh()


def request_refresh() -> bool:
    """Queue a refresh of the matrix if it is behind the scores and old enough (snapshots)."""
    return snapshots.request_refresh(snapshots.AGENTS, refresh_agents_job.enqueue)
