"""Results in the API: leaderboards, submissions, comparisons and the standings. Never any
held-out data (input paths and counts only)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Query, Router, Schema

from catalog.api import Difficulty
from catalog.views import version_scope
from lib.api import PAGE_MAX, PAGE_SIZE, PAGE_SIZE_MAX, ApiProblem, Problem, cached_document, document, page_links
from scoring.compare import NotComparable
from scoring.history import steps, steps_query
from scoring.models import Submission
from scoring.service import as_json
from scoring.standings import request_refresh
from scoring.boards.places import engine_label
from scoring.standings_views import BadFilter, Standings, UnknownTag, standings_scope
from scoring.views import CURRENT_ENGINE, MODEL_MAX, board_of, comparison_or_error, leaderboard_csv, public_submission_or_404
from lib.siteurl import site_url

router = Router(tags=["results"])

Format = Literal["json", "csv"]
CSV_RESPONSE = {"responses": {200: {"content": {"text/csv": {"schema": {"type": "string"}}}}}}


class LeaderboardRow(Schema):
    rank: int | None = Field(..., description="null unless the entry passed every input within the pass line")
    group: Literal["ranked", "over_limit", "unranked", "excluded"]
    name: str
    submission: int
    variant: str
    status: str
    passed: bool
    total_fuel: int | None
    overshoot: int = Field(..., description="fuel used past the inputs' pass lines, within their runway")
    passed_inputs: int
    inputs: int
    submitted_at: datetime
    engine: str = Field(..., description="the wasmtime version and engine configuration that measured it")
    current_engine: bool = Field(..., description="measured by the engine the site scores with today")
    carried_from: int | None = Field(..., description="the submission on an earlier version it was rescored from")
    model: str = Field(..., description="the model its run record names (empty when not recorded)")
    annotation: str = Field(..., description="staff's public note; an excluded entry's reason")
    url: str
    api_url: str


class Leaderboard(Schema):
    case: str
    version: str
    variant: str | None
    all: bool = Field(..., description="every submission, not only each submitter's best")
    model: str | None = Field(..., description="the model filter, if any")
    count: int
    next: str | None
    previous: str | None
    results: list[LeaderboardRow]


class Result(Schema):
    kind: Literal["smoke", "stress"]
    input: str
    status: str
    fuel: int | None
    fuel_limit: int
    ceiling: int
    overshoot: int
    wall_ms: float | None = Field(..., description="wall-clock milliseconds (not the measure)")
    message: str


class SubmissionDocument(Schema):
    submission: int
    case: str
    version: str
    variant: str
    name: str
    status: str
    job: Literal["queued", "running", "done", "failed"]
    message: str = Field(..., description="why the build failed or the module was refused, if it was")
    passed: bool
    total_fuel: int | None
    overshoot: int
    passed_inputs: int
    inputs: int
    wasmtime: str
    engine: str
    created_at: datetime
    scored_at: datetime | None
    carried_from: int | None
    run: dict[str, str] = Field(..., description="provenance: the run record's `run` fields (or score --meta)")
    annotation: str = Field(..., description="staff's public note")
    excluded: bool = Field(..., description="excluded from ranking by staff (listed below the ranked entries)")
    results: list[Result]
    url: str


class Side(Schema):
    submission: int
    name: str
    variant: str
    status: str
    passed: bool
    total_fuel: int | None
    carried_from: int | None


class InputFuel(Schema):
    status: str
    fuel: int | None


class InputPair(Schema):
    kind: str
    input: str
    a: InputFuel | None
    b: InputFuel | None
    ratio: float | None = Field(..., description="A's fuel ÷ B's, when both passed")


class ComparisonDocument(Schema):
    case: str
    version: str
    a: Side
    b: Side
    total_ratio: float | None
    geometric_mean: float | None
    inputs: list[InputPair]
    url: str


class DifficultyPart(Schema):
    solved: int
    score: float


class StandingsNote(Schema):
    case: str
    submission: int
    text: str


class StandingsLine(Schema):
    rank: int
    name: str
    solved: int
    entered: int
    score: float = Field(..., description="the sum over cases of best fuel ÷ own fuel (0 if unsolved)")
    geometric_mean: float | None
    difficulties: dict[str, DifficultyPart]
    models: list[str] = Field(..., description="the models their run records name, over the scope's cases")
    annotations: list[StandingsNote] = Field(..., description="staff's notes on their entries")


class StandingsDocument(Schema):
    difficulty: str | None
    tag: str | None
    cases: int
    as_of: datetime | None
    computing: bool = Field(..., description="the first standings are still being computed")
    count: int
    next: str | None
    previous: str | None
    results: list[StandingsLine]


class RecordStepRow(Schema):
    submission: int
    name: str
    model: str
    variant: str
    total_fuel: int
    scored_at: datetime
    previous_fuel: int | None = Field(..., description="the record it beat (null for the first)")
    url: str


class History(Schema):
    case: str
    version: str
    variant: str | None
    count: int
    next: str | None
    previous: str | None
    results: list[RecordStepRow]


class StepsPage:
    """A board's record steps, sliced a page at a time (for page_links)."""

    def __init__(self, version_id: int, variant_id: int | None):
        self.version_id, self.variant_id = version_id, variant_id

    def count(self) -> int:
        return steps_query(self.version_id, self.variant_id).count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice):
        return steps(self.version_id, self.variant_id, index.start or 0, index.stop)


@router.get("/cases/{slug}/history/", response={200: History, 400: Problem, 404: Problem}, url_name="history")
def history(request: HttpRequest, slug: str,
            version: str | None = Query(None, max_length=100, description="a version (default: the latest)"),
            variant: str | None = Query(None, max_length=100, description="one variant (default: all)"),
            page: int = Query(1, ge=1, le=PAGE_MAX),
            page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX)):
    """A board's record progression, oldest first: every entry that, when it was scored, used less fuel than
    every passing entry scored before it. Hidden and excluded entries are never records."""
    query = {"version": version or None, "variant": variant or None}

    def render():
        case_version, chosen = board_of(slug, query["version"], query["variant"])
        shown, links = page_links(request, StepsPage(case_version.pk, chosen.pk if chosen else None),
                                  page=page, page_size=page_size, query=query)
        return document(History, {
            "case": case_version.case.slug, "version": case_version.version,
            "variant": chosen.slug if chosen else None, **links,
            "results": [{**vars(step), "url": site_url(
                reverse("submission-detail", args=[step.submission]))} for step in shown],
        })

    return cached_document(request, {**query, "page": page, "page_size": page_size},
                           version_scope(request, slug, query["version"]), render)


def leaderboard_row(request: HttpRequest, entry) -> dict:
    return {
        **entry.as_json(),  # what `leaderboard --json` prints
        "group": entry.group, "variant": entry.variant, "status": entry.status,
        "passed_inputs": entry.passed_count, "inputs": entry.input_count,
        "engine": entry.engine, "current_engine": entry.engine == CURRENT_ENGINE, "carried_from": entry.carried_from,
        "model": entry.model, "annotation": entry.annotation,
        "url": site_url(reverse("submission-detail", args=[entry.submission])),
        "api_url": site_url(reverse("api-v1:submission", args=[entry.submission])),
    }


@router.get("/cases/{slug}/leaderboard/", response={200: Leaderboard, 400: Problem, 404: Problem},
            url_name="leaderboard", openapi_extra=CSV_RESPONSE)
def leaderboard(request: HttpRequest, slug: str,
                version: str | None = Query(None, max_length=100, description="a version (default: the latest)"),
                variant: str | None = Query(None, max_length=100, description="one variant (default: all)"),
                all: bool = Query(False, description="every submission, not only each submitter's best"),
                model: str | None = Query(None, max_length=MODEL_MAX, pattern=r"^[^\x00-\x1f]*$",
                                          description="only the entries whose run record names this model"),
                page: int = Query(1, ge=1, le=PAGE_MAX),
                page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX),
                format: Format = Query("json", description="csv: the whole board, every page")):
    """A version's leaderboard: each submitter's best entry, ranked by total fuel (fewer first; a tie goes to
    the earlier submission), then the unranked entries."""
    query = {"version": version or None, "variant": variant or None, "all": all, "model": (model or "").strip() or None}

    def render():
        case_version, chosen = board_of(slug, query["version"], query["variant"])
        if format == "csv":
            return leaderboard_csv(case_version, chosen, all, query["model"])
        entries = Submission.objects.leaderboard(case_version, variant=chosen, include_all=all, model=query["model"])
        shown, links = page_links(request, entries, page=page, page_size=page_size, query=query)
        return document(Leaderboard, {
            "case": case_version.case.slug, "version": case_version.version,
            "variant": chosen.slug if chosen else None, "all": all, "model": query["model"], **links,
            "results": [leaderboard_row(request, entry) for entry in shown],
        })

    generations = version_scope(request, slug, query["version"])
    return cached_document(request, {**query, "page": page, "page_size": page_size, "format": format}, generations,
                           render)


@router.get("/submissions/{pk}/", response={200: SubmissionDocument, 400: Problem, 404: Problem}, url_name="submission")
def submission(request: HttpRequest, pk: int):
    """One submission's per-input results. Never the inputs themselves, nor the answers."""
    found = public_submission_or_404(pk)
    return document(SubmissionDocument, {
        **as_json(found),  # what `score --json` prints, results included
        "job": found.job_state, "message": found.message, "overshoot": found.overshoot,
        "passed_inputs": found.passed_count, "inputs": found.input_count,
        "engine": engine_label(found.wasmtime_version, found.engine_digest), "created_at": found.created_at,
        "scored_at": found.scored_at, "carried_from": found.carried_from_id,
        "run": found.run or {}, "annotation": found.annotation, "excluded": found.excluded,
        "url": site_url(reverse("submission-detail", args=[found.pk])),
    })


@router.get("/submissions/{a}/compare/{b}/", response={200: ComparisonDocument, 400: Problem, 404: Problem},
            url_name="compare")
def submission_compare(request: HttpRequest, a: int, b: int):
    """Two submissions on the same version, input by input."""
    try:
        comparison = comparison_or_error(a, b)
    except NotComparable as reason:
        raise ApiProblem(400, str(reason)) from None
    return document(ComparisonDocument, {
        **comparison.as_json(), "url": site_url(reverse("submission-compare", args=[a, b]))})


@router.get("/standings/", response={200: StandingsDocument, 400: Problem, 404: Problem}, url_name="standings",
            openapi_extra=CSV_RESPONSE)
def standings(request: HttpRequest,
              difficulty: Difficulty | None = None,
              tag: str | None = Query(None, max_length=100),
              page: int = Query(1, ge=1, le=PAGE_MAX),
              page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX),
              format: Format = Query("json", description="csv: every line")):
    """The catalog-wide standings: per submitter name, the cases solved and the score."""
    request_refresh()
    query = {"difficulty": difficulty, "tag": tag or None}

    def render():
        try:
            shown = Standings({name: value or "" for name, value in query.items()})
        except UnknownTag as unknown:  # well-formed, and names nothing: as an unknown variant is
            raise ApiProblem(404, str(unknown)) from None
        except BadFilter as bad:
            raise ApiProblem(400, str(bad), errors={"tag": [str(bad)]}) from None
        if format == "csv":
            return shown.csv()
        lines, links = page_links(request, shown.lines, page=page, page_size=page_size, query=query)
        return document(StandingsDocument, {
            "difficulty": shown.difficulty, "tag": shown.tag, "cases": shown.cases, "as_of": shown.as_of,
            "computing": shown.computing, **links, "results": [shown.as_json(line) for line in lines],
        })

    return cached_document(request, {**query, "page": page, "page_size": page_size, "format": format},
                           standings_scope(request), render)
