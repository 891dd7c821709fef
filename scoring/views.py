"""Public leaderboard and submission pages."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from catalog.manifest import SLUG_PATTERN
from catalog.models import CaseVersion, HeldOutInput, Variant
from catalog.views import bad_request, public_version_or_404, version_scope
from lib.paging import BadPage, page_of
from scoring.models import Result, Submission
from scoring.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from scoring.standings import Entry, engine_label
from sitecache.pages import cached_page, flag, page, query_without, text

ENTRIES_PER_PAGE = 50
# How the leaderboard names the engine that measures today (wasmtime version, configuration).
CURRENT_ENGINE = engine_label(WASMTIME_VERSION, ENGINE_DIGEST)
CHART_ENTRIES = 20
CHART_BAR_WIDTH = 380  # SVG units of the longest bar
CHART_ROW_HEIGHT = 22
# The query parameters a leaderboard reads (and so its cache key holds).
LEADERBOARD_PARAMETERS = (text("version"), text("variant"), flag("all"), page())


@dataclass(frozen=True)
class Bar:
    entry: Entry
    width: float  # SVG units, up to CHART_BAR_WIDTH
    y: int


def leaderboard_selection(request: HttpRequest, slug: str) -> tuple[CaseVersion, Variant | None, bool]:
    """The version, variant and all-submissions choice a leaderboard request names (404 if unknown)."""
    version = public_version_or_404(slug, request.GET.get("version") or None)
    variant = None
    if request.GET.get("variant"):
        wanted = request.GET["variant"]
        variant = version.variants.filter(slug=wanted).first() if SLUG_PATTERN.match(wanted) else None
        if variant is None:
            raise Http404("No such variant")
    return version, variant, request.GET.get("all") == "1"


def chart_bars(entries: list[Entry]) -> list[Bar]:
    """Horizontal bars for the ranked totals, on a log scale (totals span orders of magnitude)."""
    ranked = [entry for entry in entries if entry.rank is not None]
    if not ranked:
        return []
    totals = [max(entry.total_fuel, 1) for entry in ranked]
    low, high = math.log10(min(totals)) - 0.5, math.log10(max(totals))
    span = max(high - low, 1e-9)
    return [
        Bar(entry, round(CHART_BAR_WIDTH * (math.log10(total) - low) / span, 1), index * CHART_ROW_HEIGHT)
        for index, (entry, total) in enumerate(zip(ranked, totals))
    ]


@cached_page(*LEADERBOARD_PARAMETERS, scope=version_scope)
def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    version, variant, include_all = leaderboard_selection(request, slug)
    entries = Submission.objects.leaderboard(version, variant=variant, include_all=include_all)
    try:
        page = page_of(Paginator(entries, ENTRIES_PER_PAGE), request.GET.get("page"))
    except BadPage as bad:
        return bad_request(request, str(bad))
    stress_inputs = list(
        HeldOutInput.objects.filter(version=version, kind=HeldOutInput.Kind.STRESS)
        .order_by("position").values_list("position", "input_path")
    )
    fuel_by_entry: dict[int, dict[int, tuple]] = {}
    for row in Result.objects.filter(submission_id__in=[entry.submission for entry in page], kind="stress").values(
        "submission_id", "position", "fuel", "status"
    ):
        fuel_by_entry.setdefault(row["submission_id"], {})[row["position"]] = (row["fuel"], row["status"])
    pass_line = version.fuel_limit * max(len(stress_inputs), 1)
    rows = [
        {
            "entry": entry,
            "share": entry.total_fuel * 100 / pass_line if entry.total_fuel is not None else None,
            "per_input": [fuel_by_entry.get(entry.submission, {}).get(position, (None, "")) for position, _ in stress_inputs],
        }
        for entry in page
    ]
    versions = list(CaseVersion.objects.public_versions_of(version.case).values_list("version", flat=True))
    # The top of the board, whatever the page (on the first page, its own rows).
    top = list(page)[:CHART_ENTRIES] if page.number == 1 and ENTRIES_PER_PAGE >= CHART_ENTRIES else entries[:CHART_ENTRIES]
    bars = chart_bars(top)
    context = {
        "version": version,
        "case": version.case,
        "variant": variant,
        "include_all": include_all,
        "variants": list(version.variants.all()),
        "versions": versions,
        "page": page,
        "rows": rows,
        "stress_inputs": [path for _, path in stress_inputs],
        "bars": bars,
        "chart_height": len(bars) * CHART_ROW_HEIGHT,
        "mixed_engines": sorted(entries.engines() - {CURRENT_ENGINE}),
        "current_engine": CURRENT_ENGINE,
        "wasmtime_version": WASMTIME_VERSION,
        "page_query": query_without(request, LEADERBOARD_PARAMETERS),
    }
    return render(request, "scoring/leaderboard.html", context)


def public_submission_or_404(pk: int) -> Submission:
    queryset = Submission.objects.public().select_related("version__case", "variant").defer("source")
    return get_object_or_404(queryset, pk=pk)


def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = public_submission_or_404(pk)
    results = list(submission.results.order_by("position"))
    rows = []
    for result in results:
        scale = max(result.ceiling, result.fuel or 0, 1)
        rows.append({
            "result": result,
            "used": min(100.0, (result.fuel or 0) * 100 / scale),
            "limit": result.fuel_limit * 100 / scale,
        })
    context = {
        "submission": submission,
        "version": submission.version,
        "case": submission.version.case,
        "rows": rows,
        # The build log and `detail` texts come from the submission itself: staff only.
        "show_staff": request.user.is_staff,
        "stress_total": sum(1 for result in results if result.kind == "stress"),
    }
    return render(request, "scoring/submission_detail.html", context)
