"""The agents pages: the matrix of agents × cases (and its CSV download), and one agent's trials."""

from __future__ import annotations

from urllib.parse import unquote

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse

from catalog.manifest import DIFFICULTIES
from catalog.models import CaseVersion, Tag
from lib.csvexport import csv_response
from lib.paging import BadPage, page_of
from lib.stats import wilson_interval
from lib.urlparts import name_paths
from scoring.agents import SORTS, Matrix, request_refresh, trials
from scoring.boards import BOARD_ORDER
from scoring.boards.reading import BadModel, model_filter
from scoring.documents import agents_table
from scoring.models import Agent, AgentLine
from scoring.speedups import FAST_K, FAST_P, p_key
from scoring.standings import BadFilter
from sitecache.models import AGENTS_SNAPSHOT, CATALOG, STANDINGS
from sitecache.pages import cached_page, choice, page, query_without, text
from web.charts import cost_chart
from web.errors import BadFormat, bad_request, wants_csv
from web.matrix import Column, points_html, row_html
from web.standings import refreshing

AGENTS_PER_PAGE = 50
CASES_PER_PAGE = 12  # case columns a page shows (?cases= pages through them)
TRIALS_PER_PAGE = 50
AGENTS_PARAMETERS = (text("difficulty"), text("tag"), text("harness"), text("since"), choice("sort"), choice("p"),
                     page(), page("cases"), choice("format"))
SORT_NAMES = {"solved": "cases solved", "score": "score", "pass_rate": "trial pass rate", "cost": "cost per trial"}


def agents_scope(request: HttpRequest) -> list[str]:
    return [CATALOG, AGENTS_SNAPSHOT]


@refreshing(request_refresh)
@cached_page(*AGENTS_PARAMETERS, scope=agents_scope)
def agents(request: HttpRequest) -> HttpResponse:
    try:
        matrix = Matrix(request.GET)
        if wants_csv(request):
            return csv_response(*agents_table(matrix))
        lines = page_of(Paginator(matrix.lines, AGENTS_PER_PAGE), request.GET.get("page"))
        columns = page_of(Paginator(matrix.columns(), CASES_PER_PAGE), request.GET.get("cases"))
    except (BadFilter, BadFormat, BadPage) as bad:
        return bad_request(request, str(bad))
    cells = matrix.cells(lines, columns)
    matrix.known_case_count(columns.paginator.count)  # counted once, for the rows' shares
    shown = [Column.of(version) for version in columns]
    path = name_paths("agent")  # one reverse() for every row's link
    chart = cost_chart(*matrix.chart_rows(), AGENTS_PER_PAGE)
    chart_query = query_without(request, AGENTS_PARAMETERS, ("page", "cases", "format"))
    context = {
        "matrix": matrix,
        "page": lines,
        "columns": columns,
        "case_count": columns.paginator.count,
        "rows": [row_html(line, getattr(line, f"by_{matrix.sort}"), matrix, shown, cells, path) for line in lines],
        "p_choices": [p_key(p) for p in FAST_P if p != 1.0],
        "fast_k": FAST_K,
        "chart": chart,
        "chart_points": points_html(chart, chart_query) if chart else "",
        "tags": list(Tag.objects.filter(latest_public_count__gt=0).order_by("name").values_list("name", flat=True)),
        "harnesses": sorted(set(Agent.objects.exclude(harness="").values_list("harness", flat=True))),
        "difficulty_choices": DIFFICULTIES,
        "sorts": [(sort, SORT_NAMES[sort]) for sort in SORTS],
        "page_query": query_without(request, AGENTS_PARAMETERS),
        "cases_query": query_without(request, AGENTS_PARAMETERS, "cases"),
        "chart_query": chart_query,
        "nav": "agents",
        "refresh_seconds": settings.STANDINGS_REFRESH_SECONDS,
    }
    return render(request, "scoring/agents.html", context)


def agent_scope(request: HttpRequest, model: str) -> list[str]:
    # Its trials are read live (they move with the boards of the latest versions), its summary
    # from the matrix.
    return [CATALOG, STANDINGS, AGENTS_SNAPSHOT]


@cached_page(text("harness"), page(), scope=agent_scope)
def agent(request: HttpRequest, model: str) -> HttpResponse:
    """One agent's summary (a line per harness it ran under) and its trials, case by case."""
    canonical = reverse("agent", args=[model])
    if unquote(canonical) != request.path:  # one URL per name: another spelling is sent to it, never cached
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirect(canonical + (f"?{query}" if query else ""))
    try:
        harness = model_filter(request.GET.get("harness"))
    except BadModel:
        return bad_request(request, "harness: must be one line of at most 100 characters")
    lines = AgentLine.objects.filter(scope="", agent__model=model).select_related("agent").order_by("by_solved")
    found = trials().filter(model=model)
    if harness is not None:
        lines, found = lines.filter(harness=harness), found.filter(harness=harness)
    lines = list(lines)
    shown = (found.select_related("version__case", "variant").defer("source")
             .order_by("version__name", "version_id", *BOARD_ORDER))
    try:
        entries = page_of(Paginator(shown, TRIALS_PER_PAGE), request.GET.get("page"))
    except BadPage as bad:
        return bad_request(request, str(bad))
    if not lines and not entries.paginator.count:
        raise Http404("no agent by this name has a trial on a published case")
    cases = CaseVersion.objects.filter(latest_public=True).count()
    shares = [(line, line.cases_solved / cases if cases else 0.0, *wilson_interval(line.cases_solved, cases))
              for line in lines]
    context = {
        "model": model, "harness": harness, "lines": shares, "cases": cases, "page": entries,
        "harnesses": sorted(Agent.objects.filter(model=model).values_list("harness", flat=True)),
        "page_query": query_without(request, (text("harness"), page())),
        "nav": "agents",
    }
    return render(request, "scoring/agent.html", context)
