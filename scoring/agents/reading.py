"""Reading the agents matrix for a page or the API: the filter, its lines a slice at a time, the
case columns a slice at a time, the cells where the two cross, and the cost × score chart."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django import forms
from django.core.cache import cache
from django.db.models import Q

from catalog.manifest import DIFFICULTIES
from catalog.models import CaseVersion, Tag
from lib.stats import wilson_interval
from scoring.agents.computing import SORTS, front_of, snapshot, summed_lines
from scoring.models import Agent, AgentCell, AgentLine
from scoring.speedups import BadP, p_key, parse_p
from scoring.standings.computing import scope_name
from scoring.standings.reading import BadFilter
from sitecache.models import AGENTS_SNAPSHOT, CATALOG, Generation

CHART_POINTS = 60  # the most points the chart draws: the whole front, then the best by score


class AgentsFilterForm(forms.Form):
    # Form fields refuse NUL characters and overlong values before any query sees them.
    difficulty = forms.ChoiceField(required=False, choices=[("", "any")] + [(d, d) for d in DIFFICULTIES])
    tag = forms.CharField(required=False, max_length=100)
    # Stripped, as the page cache's key reads it (sitecache.pages.text): one value, one page.
    harness = forms.CharField(required=False, max_length=100)
    sort = forms.ChoiceField(required=False, choices=[(sort, sort) for sort in SORTS])
    since = forms.DateField(required=False, input_formats=["%Y-%m-%d"],
                            error_messages={"invalid": "a date, as YYYY-MM-DD"})


class LineSlice:
    """A scope's stored lines in one order (optionally one harness's), sliced like a list for a
    Paginator: one indexed range of places per slice."""

    def __init__(self, scope: str, sort: str, harness: str | None, count: int | None):
        self.scope, self.sort, self.harness = scope, sort, harness
        self._count = count
        # The places this slice pages through: over every line, or among one harness's.
        self.place = f"by_{sort}" if harness is None else f"harness_by_{sort}"

    def _rows(self):

        rows = AgentLine.objects.filter(scope=self.scope)
        return rows if self.harness is None else rows.filter(harness=self.harness)

    def count(self) -> int:
        if self._count is None:
            self._count = self._rows().count()
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice):
        return list(self._rows().filter(**{f"{self.place}__gt": index.start or 0, f"{self.place}__lte": index.stop})
                    .select_related("agent").order_by(self.place))

    def batches(self, size: int):
        for start in range(0, self.count(), size):
            yield self[start:min(start + size, self.count())]

    def chart_rows(self) -> tuple[list[tuple], int]:
        """The lines the chart draws, (agent id, model, harness, mean cost, score, index in this
        order, on the front), and how many lines recorded a cost: the front and the best by score,
        read through their stored flags and places, never every line."""

        front, by_score = ("on_front", "by_score") if self.harness is None else ("on_harness_front", "harness_by_score")
        costed = self._rows().filter(cost_trials__gt=0, total_cost_usd__isnull=False)
        rows = costed.filter(Q(**{front: True}) | Q(**{f"{by_score}__lte": CHART_POINTS})).values_list(
            "agent_id", "agent__model", "harness", "total_cost_usd", "cost_trials", "score", self.place, front)
        return ([(agent_id, model, harness, total / trials, score, place - 1, on_front)
                 for agent_id, model, harness, total, trials, score, place, on_front in rows], costed.count())


class ListedLines(list):
    """Lines summed on request (a difficulty and a tag together), read like a LineSlice."""

    def batches(self, size: int):
        for start in range(0, len(self), size):
            yield self[start:start + size]

    def chart_rows(self) -> tuple[list[tuple], int]:
        costed = [(index, line) for index, line in enumerate(self) if line.mean_cost_usd is not None]
        front = set(id(line) for line in front_of([line for _, line in costed]))
        return ([(line.agent_id, line.model, line.harness, line.mean_cost_usd, line.score, index, id(line) in front)
                 for index, line in costed], len(costed))


class Matrix:
    """What one request for the agents matrix shows: the filter, the lines, the case columns."""

    def __init__(self, parameters):
        form = AgentsFilterForm(parameters)
        if not form.is_valid():
            field = next(iter(form.errors))
            raise BadFilter("bad_filter", f"{field}: " + " ".join(form.errors[field]))
        self.difficulty = form.cleaned_data["difficulty"] or None
        self.tag = form.cleaned_data["tag"] or None
        self.harness = form.cleaned_data["harness"] or None  # empty: every harness
        if self.harness is not None and any(ord(character) < 32 for character in self.harness):
            raise BadFilter("bad_filter", "harness: must be one line of text")
        if self.harness is not None and not Agent.objects.filter(harness=self.harness).exists():
            raise BadFilter("unknown_harness", "no agent ran under that harness")
        self.sort = form.cleaned_data["sort"] or "solved"
        if self.tag and not Tag.objects.filter(name=self.tag, latest_public_count__gt=0).exists():
            raise BadFilter("unknown_tag", "no published case carries that tag")
        self.scope = scope_name(self.difficulty, self.tag)
        self.snapshot = snapshot()
        self.as_of = self.snapshot.computed_at if self.snapshot else None
        self.since = form.cleaned_data["since"]
        self.versions = CaseVersion.objects.filter(latest_public=True)
        if self.difficulty:
            self.versions = self.versions.filter(difficulty=self.difficulty)
        if self.tag:
            self.versions = self.versions.filter(tags__name=self.tag)
        if self.since:  # cases first published on or after it
            self.versions = self.versions.filter(case__created_at__date__gte=self.since)
        if (self.difficulty and self.tag) or self.since:  # not precomputed: summed from the stored cells
            scope = self.scope + (f"+since:{self.since.isoformat()}" if self.since else "")
            lines = [line for line in combined(self.versions, scope)[self.sort]
                     if self.harness is None or line.harness == self.harness]
            self.lines = ListedLines(lines)
            self.references = self.versions.filter(reference_fuel__isnull=False).count()
        else:
            known = (self.snapshot.scopes if self.snapshot else {}).get(self.scope, {"rows": 0})
            self.lines = LineSlice(self.scope, self.sort, self.harness,
                                   None if self.harness is not None else known["rows"])
            self.references = known.get("references", 0)  # the cases with a reference entry (speedups)
        self._case_count = None
        try:
            self.p = parse_p(parameters.get("p"))
        except BadP as bad:
            raise BadFilter(bad.code, bad.message) from None

    @property
    def p_key(self) -> str:
        return p_key(self.p)

    @property
    def computing(self) -> bool:
        """The matrix was never computed yet (the first refresh is queued)."""
        return self.snapshot is None or self.snapshot.computed_at is None

    @property
    def filtered(self) -> bool:
        return bool(self.difficulty or self.tag or self.harness or self.since)

    def columns(self):
        """The filter's cases, in the order of their names (a QuerySet: page it)."""
        return self.versions.select_related("case").order_by("name", "pk")

    def case_count(self) -> int:
        if self._case_count is None:
            self._case_count = self.versions.count()
        return self._case_count

    def known_case_count(self, count: int) -> None:
        """The filter's case count, counted already (a page's columns)."""
        self._case_count = count

    def solved_share(self, line) -> tuple[float, float, float]:
        """The share of the filter's cases the line solved (a case with no trial is an unsolved
        case), with its 95% Wilson interval: (share, low, high)."""
        cases = self.case_count()
        low, high = wilson_interval(line.cases_solved, cases)
        return (line.cases_solved / cases if cases else 0.0), low, high

    def cells(self, lines, versions) -> dict[tuple[int, int], "ShownCell"]:
        """(agent id, version id) → the stored cell, for these lines and these columns: one query
        (read as plain values: a page holds up to a thousand cells)."""

        agents, version_ids = [line.agent_id for line in lines], [version.pk for version in versions]
        if not agents or not version_ids:
            return {}
        rows = AgentCell.objects.filter(agent_id__in=agents, version_id__in=version_ids).values_list(*ShownCell.FIELDS)
        return {(row[0], row[1]): ShownCell(*row) for row in rows}

    def chart_rows(self) -> tuple[list[tuple], int]:
        """What the cost × score chart draws (web/charts.py): the lines that recorded a cost, and how many."""
        return self.lines.chart_rows()


@dataclass(frozen=True, slots=True)
class ShownCell:
    """What a page or a document shows of an AgentCell."""

    FIELDS = ("agent_id", "version_id", "trials", "solved", "best_fuel", "case_best_fuel", "best_submission_id",
              "verified")
    agent_id: int
    version_id: int
    trials: int
    solved: int
    best_fuel: int | None
    case_best_fuel: int | None
    best_submission_id: int | None
    verified: str

    @property
    def share(self) -> float | None:
        """The agent's best fuel ÷ the case's best (as AgentCell.share)."""
        if self.best_fuel is None or not self.case_best_fuel:
            return None
        return max(self.best_fuel, 1) / max(self.case_best_fuel, 1)


def combined(versions, scope: str) -> dict[str, list]:
    """A difficulty and a tag together, summed from the stored cells once per snapshot (and per
    catalog change) and remembered: each order of the lines."""
    values = ".".join(str(value) for value in Generation.current([CATALOG, AGENTS_SNAPSHOT]))
    key = "agents-combined:" + hashlib.sha256(f"{values}\0{scope}".encode()).hexdigest()
    found = cache.get(key)
    if found is None:
        lines = summed_lines(versions.values_list("pk", flat=True))
        found = {sort: sorted(lines, key=lambda line: getattr(line, f"by_{sort}")) for sort in SORTS}
        cache.set(key, found, 3600)
    return found


def observed(version) -> dict:
    """How hard a case proved, from the agents matrix (its cells on this version, as of the last
    refresh): agents and trials, the share of trials that solved it, and the spread of the agents'
    best speedups against its reference (lowest, median, highest; None without a reference or a
    solving agent)."""
    rows = list(AgentCell.objects.filter(version=version).values_list("trials", "solved", "best_fuel",
                                                                     "reference_fuel"))
    trials, solved = sum(row[0] for row in rows), sum(row[1] for row in rows)
    speedups = sorted(max(reference, 1) / max(best, 1) for _, _, best, reference in rows
                      if best is not None and reference is not None)
    spread = None
    if speedups:
        middle = len(speedups) // 2
        median = speedups[middle] if len(speedups) % 2 else (speedups[middle - 1] + speedups[middle]) / 2
        spread = {"low": speedups[0], "median": median, "high": speedups[-1], "agents": len(speedups)}
    return {"agents": len(rows), "trials": trials, "solved_trials": solved,
            "solved_share": solved / trials if trials else None, "speedups": spread}
