"""Results in the API: leaderboards, submissions, comparisons and the standings. Never any
held-out data (input paths and counts only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Query, Router

from api.caching import cached_document
from api.cases import Difficulty
from api.schemas import ComparisonDocument, History, Leaderboard, StandingsDocument, SubmissionDocument
from catalog.reading import shown_board, version_generations
from lib.api import ONE_LINE, PAGE_MAX, PAGE_SIZE, PAGE_SIZE_MAX, SINCE, DateParameter, Problem, document, page_links
from lib.csvexport import csv_response
from lib.siteurl import site_url
from scoring.boards.reading import MODEL_MAX, model_filter
from scoring.boards.reading import Leaderboard as Board
from scoring.compare import compare
from scoring.documents import (
    board_rows,
    board_table,
    comparison_document,
    standings_line_document,
    standings_table,
    submission_document,
)
from scoring.history import steps, steps_query
from scoring.models import Submission
from scoring.standings import Standings, request_refresh, standings_generations
from sitecache.pages import not_kept

router = Router(tags=["results"])



def csv_answer(description: str) -> dict:
    """The schema of an operation that answers CSV (its own operation: one media type each)."""
    return {"responses": {200: {"description": description,
                                "content": {"text/csv": {"schema": {"type": "string"}}}}}}


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
        case_version, chosen = shown_board(slug, query["version"], query["variant"])
        shown, links = page_links(request, StepsPage(case_version.pk, chosen.pk if chosen else None),
                                  page=page, page_size=page_size, query=query)
        return document(History, {
            "case": case_version.case.slug, "version": case_version.version,
            "variant": chosen.slug if chosen else None, **links,
            "results": [{**vars(step), "url": site_url(
                reverse("submission-detail", args=[step.submission]))} for step in shown],
        })

    return cached_document(request, {**query, "page": page, "page_size": page_size},
                           version_generations(slug, query["version"]), render)


def _board_query(version, variant, all, model) -> dict:
    return {"version": version or None, "variant": variant or None, "all": all, "model": model_filter(model)}


def legacy_csv(request: HttpRequest, url_name: str, **kwargs) -> HttpResponse | None:
    """`?format=csv`, as these operations once answered CSV: sent on to the CSV operation (a
    client generated from the schema reads every answer of an operation as JSON)."""
    if request.GET.get("format") != "csv":
        return None
    query = request.GET.copy()
    del query["format"]
    target = reverse(f"api-v1:{url_name}", kwargs=kwargs) + (f"?{query.urlencode()}" if query else "")
    return HttpResponsePermanentRedirect(site_url(target))


@router.get("/cases/{slug}/leaderboard/", response={200: Leaderboard, 400: Problem, 404: Problem},
            url_name="leaderboard")
def leaderboard(request: HttpRequest, slug: str,
                version: str | None = Query(None, max_length=100, description="a version (default: the latest)"),
                variant: str | None = Query(None, max_length=100, description="one variant (default: all)"),
                all: bool = Query(False, description="every submission, not only each submitter's best"),
                model: str | None = Query(None, max_length=MODEL_MAX, pattern=ONE_LINE,
                                          description="only the entries whose run record names this model"),
                page: int = Query(1, ge=1, le=PAGE_MAX),
                page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX)):
    """A version's leaderboard: each submitter's best entry, ranked by total fuel (fewer first; a tie goes to
    the earlier submission), then the unranked entries. The whole board as CSV: `leaderboard_csv`."""
    moved = legacy_csv(request, "leaderboard-csv", slug=slug)
    if moved:
        return moved
    query = _board_query(version, variant, all, model)

    def render():
        case_version, chosen = shown_board(slug, query["version"], query["variant"])
        entries = Board(case_version, variant=chosen, include_all=all, model=query["model"])
        shown, links = page_links(request, entries, page=page, page_size=page_size, query=query)
        response = document(Leaderboard, {
            "case": case_version.case.slug, "version": case_version.version,
            "variant": chosen.slug if chosen else None, "all": all, "model": query["model"],
            "reference_fuel": case_version.reference_fuel, **links,
            "results": board_rows(shown, case_version),
        })
        # A model that names no entry could be anything a client likes: rendered, never stored.
        return not_kept(response) if query["model"] and not shown else response

    generations = version_generations(slug, query["version"])
    return cached_document(request, {**query, "page": page, "page_size": page_size}, generations, render)


@router.get("/cases/{slug}/leaderboard.csv", response={400: Problem, 404: Problem}, url_name="leaderboard-csv",
            openapi_extra=csv_answer("the whole board, every page: the leaderboard's rows, then each stress input's "
                                     "fuel and the provenance (README: CSV downloads)"))
def leaderboard_csv(request: HttpRequest, slug: str,
                    version: str | None = Query(None, max_length=100, description="a version (default: the latest)"),
                    variant: str | None = Query(None, max_length=100, description="one variant (default: all)"),
                    all: bool = Query(False, description="every submission, not only each submitter's best"),
                    model: str | None = Query(None, max_length=MODEL_MAX, pattern=ONE_LINE,
                                              description="only the entries whose run record names this model")):
    """A version's whole leaderboard as CSV, in the leaderboard's order."""
    query = _board_query(version, variant, all, model)

    def render():
        case_version, chosen = shown_board(slug, query["version"], query["variant"])
        return csv_response(*board_table(case_version, chosen, all, query["model"]))

    return cached_document(request, query, version_generations(slug, query["version"]), render)


@router.get("/submissions/{pk}/", response={200: SubmissionDocument, 400: Problem, 404: Problem}, url_name="submission")
def submission(request: HttpRequest, pk: int):
    """One submission's per-input results. Never the inputs themselves, nor the answers."""
    return document(SubmissionDocument, submission_document(get_object_or_404(Submission.objects.shown(), pk=pk)))


@router.get("/submissions/{a}/compare/{b}/", response={200: ComparisonDocument, 400: Problem, 404: Problem},
            url_name="compare")
def submission_compare(request: HttpRequest, a: int, b: int):
    """Two submissions on the same version, input by input."""
    shown = Submission.objects.shown()
    comparison = compare(get_object_or_404(shown, pk=a), get_object_or_404(shown, pk=b))
    return document(ComparisonDocument, comparison_document(comparison))


@router.get("/standings/", response={200: StandingsDocument, 400: Problem, 404: Problem}, url_name="standings")
def standings(request: HttpRequest,
              difficulty: Difficulty | None = None,
              tag: str | None = Query(None, max_length=100, pattern=ONE_LINE),
              since: DateParameter = Query(None, description=SINCE),
              page: int = Query(1, ge=1, le=PAGE_MAX),
              page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX)):
    """The catalog-wide standings: per submitter name, the cases solved and the score. Every line as CSV:
    `standings_csv`."""
    moved = legacy_csv(request, "standings-csv")
    if moved:
        return moved
    request_refresh()
    query = {"difficulty": difficulty, "tag": tag or None, "since": since}

    def render():
        shown = Standings({name: value or "" for name, value in query.items()})
        lines, links = page_links(request, shown.lines, page=page, page_size=page_size, query=query)
        return document(StandingsDocument, {
            "difficulty": shown.difficulty, "tag": shown.tag, "since": shown.since, "cases": shown.cases,
            "as_of": shown.as_of,
            "reference_cases": shown.references, "computing": shown.computing, **links,
            "results": [standings_line_document(line, shown.parts(line), shown.references) for line in lines],
        })

    return cached_document(request, {**query, "page": page, "page_size": page_size}, standings_generations(), render)


@router.get("/standings.csv", response={400: Problem, 404: Problem}, url_name="standings-csv",
            openapi_extra=csv_answer("every line of the standings, then a solved and a score column per difficulty"))
def standings_csv(request: HttpRequest,
                  difficulty: Difficulty | None = None,
                  tag: str | None = Query(None, max_length=100, pattern=ONE_LINE),
                  since: DateParameter = Query(None, description=SINCE)):
    """The catalog-wide standings as CSV, every line."""
    request_refresh()
    query = {"difficulty": difficulty, "tag": tag or None, "since": since}

    def render():
        return csv_response(*standings_table(Standings({name: value or "" for name, value in query.items()})))

    return cached_document(request, query, standings_generations(), render)
