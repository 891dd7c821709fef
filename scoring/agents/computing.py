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
`refresh()` reads the trials in two grouped queries and replaces the cells and lines in one
transaction; a difficulty and a tag together are summed on request from the stored cells.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Min, Q, Sum

from lib.stats import pareto_front, wilson_interval
from scoring import snapshots
from scoring.boards.places import BOARD_ORDER, RANKED
from scoring.models.agents import CostPerTrial
from scoring.standings.computing import version_scopes

IDENTICAL = "identical"  # Verification.Outcome.IDENTICAL, as the cells keep it
SORTS = ("score", "pass_rate", "cost")


def trials():
    """Every trial: the one definition the matrix, the agent page and the tests read."""
    from scoring.models import Submission

    return Submission.objects.filter(version__latest_public=True, board_group__isnull=False).exclude(model="")


@dataclass
class Cell:
    """An agent on one case (AgentCell before it is stored, or read back for a filter)."""

    model: str
    harness: str
    version_id: int
    trials: int
    solved: int
    best_fuel: int | None
    case_best_fuel: int | None
    best_submission_id: int | None = None
    verified: str = ""
    cost_trials: int = 0
    total_cost_usd: float | None = None
    input_token_trials: int = 0
    input_tokens: int | None = None
    output_token_trials: int = 0
    output_tokens: int | None = None
    agent_id: int | None = None  # once stored

    @property
    def agent(self) -> tuple[str, str]:
        return self.model, self.harness


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
    by_score: int = 0
    by_pass_rate: int = 0
    by_cost: int = 0
    harness_by_score: int = 0
    harness_by_pass_rate: int = 0
    harness_by_cost: int = 0
    on_front: bool = False
    on_harness_front: bool = False
    agent_id: int | None = None

    def add(self, cell: Cell) -> None:
        self.cases_entered += 1
        self.trials += cell.trials
        self.solved_trials += cell.solved
        if cell.solved and cell.best_fuel is not None:
            self.cases_solved += 1
            self.score += max(cell.case_best_fuel or 1, 1) / max(cell.best_fuel, 1)
        if cell.verified == IDENTICAL:
            self.verified_cases += 1
        self.cost_trials += cell.cost_trials
        self.total_cost_usd = _plus(self.total_cost_usd, cell.total_cost_usd)
        self.input_token_trials += cell.input_token_trials
        self.input_tokens = _plus(self.input_tokens, cell.input_tokens)
        self.output_token_trials += cell.output_token_trials
        self.output_tokens = _plus(self.output_tokens, cell.output_tokens)

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



def _plus(total, value):
    if value is None:
        return total
    return value if total is None else total + value


def order_keys(line: Line) -> dict[str, tuple]:
    """The page's orders: by score (then cases solved, pass rate), by pass rate (then trials,
    score), by mean cost per trial, cheapest first (agents that recorded none last; then score);
    each ends with the agent's names, so no two lines tie."""
    names = (line.model, line.harness)
    cost = line.mean_cost_usd
    return {
        "score": (-round(line.score, 9), -line.cases_solved, -line.pass_rate, *names),
        "pass_rate": (-line.pass_rate, -line.trials, -round(line.score, 9), *names),
        "cost": (cost is None, cost if cost is not None else 0.0, -round(line.score, 9), *names),
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
    return sorted(lines, key=lambda line: line.by_score)


def front_of(lines: list[Line]) -> list[Line]:
    """The lines that recorded a cost and that no other such line beats on both cost and score."""
    costed = {id(line): line for line in lines if line.mean_cost_usd is not None}
    return [costed[key] for key in pareto_front((id(line), line.mean_cost_usd, line.score) for line in costed.values())]


def lines_of(cells, scopes_of) -> dict[str, list[Line]]:
    """Each scope's lines, placed: `scopes_of(version_id)` names the scopes a case counts in."""
    scopes: dict[str, dict[tuple[str, str], Line]] = {}
    for cell in cells:
        for scope in scopes_of(cell.version_id):
            found = scopes.setdefault(scope, {})
            line = found.get(cell.agent)
            if line is None:
                line = found[cell.agent] = Line(cell.model, cell.harness, agent_id=cell.agent_id)
            line.add(cell)
    return {scope: placed(list(found.values())) for scope, found in scopes.items()}


def compute_cells() -> list[Cell]:
    """Every agent's cell on every case it tried, read from the trials."""
    from catalog.models import CaseVersion

    best_fuel = dict(CaseVersion.objects.filter(latest_public=True).values_list("pk", "best_fuel"))
    figures = (trials().values("model", "harness", "version_id").order_by()
               .annotate(count=Count("id"), solved=Count("id", filter=Q(board_group=RANKED)),
                         best=Min("board_key", filter=Q(board_group=RANKED)),
                         cost_trials=Count("cost_usd"), total_cost=Sum("cost_usd"),
                         input_token_trials=Count("input_tokens"), input_tokens=Sum("input_tokens"),
                         output_token_trials=Count("output_tokens"), output_tokens=Sum("output_tokens")))
    cells = {
        (row["model"], row["harness"], row["version_id"]): Cell(
            row["model"], row["harness"], row["version_id"], row["count"], row["solved"], row["best"],
            best_fuel.get(row["version_id"]), cost_trials=row["cost_trials"], total_cost_usd=row["total_cost"],
            input_token_trials=row["input_token_trials"], input_tokens=row["input_tokens"],
            output_token_trials=row["output_token_trials"], output_tokens=row["output_tokens"])
        for row in figures
    }
    # Each cell's best entry: the first solving trial in board order.
    solving = (trials().filter(board_group=RANKED).order_by("model", "harness", "version_id", *BOARD_ORDER)
               .values_list("model", "harness", "version_id", "pk", "verification"))
    for model, harness, version_id, pk, verification in solving.iterator(chunk_size=5000):
        cell = cells.get((model, harness, version_id))
        if cell is not None and cell.best_submission_id is None:
            cell.best_submission_id, cell.verified = pk, verification
    return list(cells.values())


def refresh() -> float:
    """Recompute every cell and every precomputed scope's lines, and replace them in one
    transaction. Returns seconds."""
    from scoring.models import Agent, AgentCell, AgentLine
    from sitecache.models import AGENTS_SNAPSHOT

    started = time.perf_counter()
    source = snapshots.current_source()  # before reading: a score landing meanwhile makes the next check refresh again
    cells = compute_cells()
    scopes = version_scopes()
    lines = lines_of(cells, lambda version_id: scopes.get(version_id, []))
    cases = {"": len(scopes)}
    for names in scopes.values():
        for scope in names[1:]:
            cases[scope] = cases.get(scope, 0) + 1
    with transaction.atomic():
        agents = _agent_ids({cell.agent for cell in cells})
        AgentCell.objects.all().delete()
        AgentLine.objects.all().delete()
        AgentCell.objects.bulk_create((_stored_cell(cell, agents[cell.agent]) for cell in cells), batch_size=2000)
        AgentLine.objects.bulk_create(
            (_stored_line(scope, line, agents[(line.model, line.harness)])
             for scope, found in lines.items() for line in found), batch_size=2000)
        Agent.objects.exclude(pk__in=list(agents.values())).delete()  # no trial left
        return snapshots.store(snapshots.AGENTS, source, started, {
            scope: {"cases": count, "rows": len(lines.get(scope, []))} for scope, count in cases.items()},
            AGENTS_SNAPSHOT)


def _agent_ids(keys: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The id of each agent, made if it is new (ids stay as they were for the others)."""
    from scoring.models import Agent

    Agent.objects.bulk_create([Agent(model=model, harness=harness) for model, harness in keys],
                              ignore_conflicts=True, batch_size=2000)
    return {(model, harness): pk for pk, model, harness in Agent.objects.values_list("pk", "model", "harness")
            if (model, harness) in keys}


def _stored_cell(cell: Cell, agent_id: int):
    from scoring.models import AgentCell

    return AgentCell(agent_id=agent_id, version_id=cell.version_id, trials=cell.trials, solved=cell.solved,
                     best_fuel=cell.best_fuel, case_best_fuel=cell.case_best_fuel,
                     best_submission_id=cell.best_submission_id, verified=cell.verified,
                     cost_trials=cell.cost_trials, total_cost_usd=cell.total_cost_usd,
                     input_token_trials=cell.input_token_trials, input_tokens=cell.input_tokens,
                     output_token_trials=cell.output_token_trials, output_tokens=cell.output_tokens)


def _stored_line(scope: str, line: Line, agent_id: int):
    from scoring.models import AgentLine

    low, high = line.pass_interval
    return AgentLine(scope=scope, agent_id=agent_id, harness=line.harness, by_score=line.by_score,
                     by_pass_rate=line.by_pass_rate, by_cost=line.by_cost, harness_by_score=line.harness_by_score,
                     harness_by_pass_rate=line.harness_by_pass_rate, harness_by_cost=line.harness_by_cost,
                     on_front=line.on_front, on_harness_front=line.on_harness_front, cases_entered=line.cases_entered,
                     cases_solved=line.cases_solved, trials=line.trials, solved_trials=line.solved_trials,
                     pass_rate=line.pass_rate, pass_low=low, pass_high=high, score=line.score,
                     cost_trials=line.cost_trials, total_cost_usd=line.total_cost_usd,
                     input_token_trials=line.input_token_trials, input_tokens=line.input_tokens,
                     output_token_trials=line.output_token_trials, output_tokens=line.output_tokens,
                     verified_cases=line.verified_cases)


def snapshot():
    return snapshots.snapshot(snapshots.AGENTS)


def request_refresh() -> bool:
    """Queue a refresh of the matrix if it is behind the scores and old enough (snapshots)."""
    from scoring.jobs import refresh_agents_job

    return snapshots.request_refresh(snapshots.AGENTS, refresh_agents_job.enqueue)


def stored_cells(version_ids) -> list[Cell]:
    """The stored cells of these versions, as computed at the last refresh (for a filter summed on request)."""
    from scoring.models import AgentCell

    return [Cell(model, harness, version_id, count, solved, best, case_best, best_id, verified, cost_trials, cost,
                 input_trials, input_tokens, output_trials, output_tokens, agent_id)
            for (model, harness, version_id, count, solved, best, case_best, best_id, verified, cost_trials, cost,
                 input_trials, input_tokens, output_trials, output_tokens, agent_id)
            in AgentCell.objects.filter(version_id__in=list(version_ids)).values_list(
                "agent__model", "agent__harness", "version_id", "trials", "solved", "best_fuel", "case_best_fuel",
                "best_submission_id", "verified", "cost_trials", "total_cost_usd", "input_token_trials",
                "input_tokens", "output_token_trials", "output_tokens", "agent_id").iterator(chunk_size=5000)]
