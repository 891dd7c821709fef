"""Public leaderboard and submission pages."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from catalog.manifest import SLUG_PATTERN
from catalog.models import CaseVersion, HeldOutInput, Variant
from catalog.runrecords import RUN_FIELDS
from catalog.views import bad_request, public_version_or_404, version_scope
from lib.paging import BadPage, page_of
from scoring.compare import CHART_HALF_WIDTH as COMPARE_HALF_WIDTH
from scoring.compare import CHART_LABEL_WIDTH as COMPARE_LABEL_WIDTH
from scoring.compare import CHART_ROW_HEIGHT as COMPARE_ROW_HEIGHT
from scoring.compare import Comparison, NotComparable, compare, leader_of
from scoring.history import history_chart
from scoring.models import Result, Submission
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from scoring.boards import Entry, engine_label
from lib.csvexport import csv_response
from sitecache.pages import cached_page, choice, flag, page, query_without, text

ENTRIES_PER_PAGE = 50
# How the leaderboard names the engine that measures today (wasmtime version, configuration).
CURRENT_ENGINE = engine_label(WASMTIME_VERSION, ENGINE_DIGEST)
CHART_ENTRIES = 20
CHART_BAR_WIDTH = 380  # SVG units of the longest bar
CHART_ROW_HEIGHT = 22
# The query parameters a leaderboard reads (and so its cache key holds).
LEADERBOARD_PARAMETERS = (text("version"), text("variant"), flag("all"), text("model"), page(), choice("format"))
MODEL_MAX = 100  # as Submission.model
CSV_CHUNK = 500  # entries read per query while a CSV download streams


@dataclass(frozen=True)
class Bar:
    entry: Entry
    width: float  # SVG units, up to CHART_BAR_WIDTH
    y: int


class BadModel(ValueError):
    """A `?model=` no entry could have."""


def model_filter(value: str | None) -> str | None:
    """The `?model=` filter: None for every model. Raises BadModel."""
    value = (value or "").strip()
    if len(value) > MODEL_MAX or any(ord(character) < 32 for character in value):
        raise BadModel(f"model must be at most {MODEL_MAX} characters of one line")
    return value or None


def leaderboard_selection(request: HttpRequest, slug: str) -> tuple[CaseVersion, Variant | None, bool]:
    """The version, variant and all-submissions choice a leaderboard request names (404 if unknown)."""
    version, variant = board_of(slug, request.GET.get("version") or None, request.GET.get("variant") or None)
    return version, variant, request.GET.get("all") == "1"


def board_of(slug: str, version_name: str | None, variant_name: str | None) -> tuple[CaseVersion, Variant | None]:
    """A public version (the latest when unnamed) and one of its variants (None: all), or 404."""
    version = public_version_or_404(slug, version_name)
    variant = None
    if variant_name:
        variant = version.variants.filter(slug=variant_name).first() if SLUG_PATTERN.fullmatch(variant_name) else None
        if variant is None:
            raise Http404("No such variant")
    return version, variant


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


class BadFormat(ValueError):
    """A `?format=` no page offers."""


def wants_csv(request: HttpRequest) -> bool:
    """`?format=csv` asks for the download; no other format is known (BadFormat)."""
    wanted = request.GET.get("format", "").strip()
    if wanted and wanted != "csv":
        raise BadFormat("unknown format: the only download format is csv")
    return wanted == "csv"


def stress_inputs_of(version: CaseVersion) -> list[tuple[int, str]]:
    """(position, input path) of the version's stress inputs, in manifest order."""
    return list(HeldOutInput.objects.filter(version=version, kind=HeldOutInput.Kind.STRESS)
                .order_by("position").values_list("position", "input_path"))


def stress_fuel(entries: list[Entry]) -> dict[int, dict[int, tuple]]:
    """submission → position → (fuel, status) of its stress results."""
    fuel_by_entry: dict[int, dict[int, tuple]] = {}
    for row in Result.objects.filter(submission_id__in=[entry.submission for entry in entries], kind="stress").values(
        "submission_id", "position", "fuel", "status"
    ):
        fuel_by_entry.setdefault(row["submission_id"], {})[row["position"]] = (row["fuel"], row["status"])
    return fuel_by_entry


def download_name(*parts: str) -> str:
    """`range-sums-v2-leaderboard-2026-12-03.csv`: the parts, then today's date (UTC)."""
    from django.utils import timezone

    cleaned = ["".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in part) for part in parts if part]
    return "-".join([*cleaned, timezone.now().date().isoformat()]) + ".csv"


def leaderboard_csv(version: CaseVersion, variant: Variant | None, include_all: bool,
                    model: str | None = None) -> HttpResponse:
    """The whole board (every page) as CSV, with the page's columns, streamed a chunk at a time."""
    entries = Submission.objects.leaderboard(version, variant=variant, include_all=include_all, model=model)
    stress = stress_inputs_of(version)
    pass_line = version.fuel_limit * max(len(stress), 1)
    header = ["rank", "name", "submission", "variant", "group", "status", "passed", "total_fuel", "share_of_limit_percent",
              "overshoot", "passed_inputs", "inputs", *[f"fuel:{path}" for _, path in stress], "submitted_at",
              "engine", "carried_from", "model", "harness", "run_url", "annotation"]

    def rows():
        for chunk in entries.batches(CSV_CHUNK):
            fuel = stress_fuel(chunk)
            runs = dict(Submission.objects.filter(pk__in=[entry.submission for entry in chunk]).values_list("pk", "run"))
            for entry in chunk:
                per_input = fuel.get(entry.submission, {})
                yield [
                    entry.rank, entry.name, entry.submission, entry.variant, entry.group, entry.status, entry.passed,
                    entry.total_fuel,
                    round(entry.total_fuel * 100 / pass_line, 3) if entry.total_fuel is not None else None,
                    entry.overshoot, entry.passed_count, entry.input_count,
                    *[per_input.get(position, (None, ""))[0] for position, _ in stress],
                    entry.submitted_at.isoformat(), entry.engine, entry.carried_from, entry.model,
                    (runs.get(entry.submission) or {}).get("harness", ""), (runs.get(entry.submission) or {}).get("url", ""),
                    entry.annotation,
                ]

    name = download_name(version.case.slug, version.version, variant.slug if variant else "",
                         "all" if include_all else "", "leaderboard")
    return csv_response(name, header, rows())


@cached_page(*LEADERBOARD_PARAMETERS, scope=version_scope)
def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    version, variant, include_all = leaderboard_selection(request, slug)
    try:
        model = model_filter(request.GET.get("model"))
        if wants_csv(request):
            return leaderboard_csv(version, variant, include_all, model)
    except (BadFormat, BadModel) as bad:
        return bad_request(request, str(bad))
    entries = Submission.objects.leaderboard(version, variant=variant, include_all=include_all, model=model)
    try:
        page = page_of(Paginator(entries, ENTRIES_PER_PAGE), request.GET.get("page"))
    except BadPage as bad:
        return bad_request(request, str(bad))
    stress_inputs = stress_inputs_of(version)
    fuel_by_entry = stress_fuel(list(page))
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
        "any_carried": any(row["entry"].carried_from for row in rows),
        "model": model or "",
        "history": history_chart(version, variant),
        "stress_inputs": [path for _, path in stress_inputs],
        "bars": bars,
        "chart_height": len(bars) * CHART_ROW_HEIGHT,
        "mixed_engines": sorted(entries.engines() - {CURRENT_ENGINE}),
        "current_engine": CURRENT_ENGINE,
        "wasmtime_version": WASMTIME_VERSION,
        "page_query": query_without(request, LEADERBOARD_PARAMETERS),
        "model_query": query_without(request, LEADERBOARD_PARAMETERS, ("page", "model", "format")),
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
    leader = leader_of(submission.version_id)
    public = Submission.objects.public().select_related("version").defer("source")
    context = {
        "submission": submission,
        "version": submission.version,
        "case": submission.version.case,
        "rows": rows,
        # Where it was carried from, and to (links to pages a visitor may see only).
        "carried_from": public.filter(pk=submission.carried_from_id).first() if submission.carried_from_id else None,
        "carried_to": list(public.filter(carried_from=submission).order_by("version__ordinal")),
        "leader": leader if leader != submission.pk else None,
        # The build log and `detail` texts come from the submission itself: staff only.
        "show_staff": request.user.is_staff,
        "run": submission.run or {},
        "run_extra": sorted((key, value) for key, value in (submission.run or {}).items() if key not in RUN_FIELDS),
        "stress_total": sum(1 for result in results if result.kind == "stress"),
    }
    return render(request, "scoring/submission_detail.html", context)


def comparison_or_error(a: int, b: int) -> Comparison:
    """The comparison of two public submissions (404 if either is unknown). Raises NotComparable."""
    first, second = public_submission_or_404(a), public_submission_or_404(b)
    return compare(first, second)


def submission_compare(request: HttpRequest, a: int, b: int) -> HttpResponse:
    try:
        comparison = comparison_or_error(a, b)
    except NotComparable as reason:
        return bad_request(request, str(reason))
    bars = comparison.bars()
    context = {
        "comparison": comparison,
        "a": comparison.a,
        "b": comparison.b,
        "version": comparison.a.version,
        "case": comparison.a.version.case,
        "bars": bars,
        "chart_height": len(bars) * COMPARE_ROW_HEIGHT,
        "chart_middle": COMPARE_LABEL_WIDTH + COMPARE_HALF_WIDTH,
        "chart_width": COMPARE_LABEL_WIDTH + 2 * COMPARE_HALF_WIDTH + 80,
    }
    return render(request, "scoring/compare.html", context)


def about(request: HttpRequest) -> HttpResponse:
    """How scoring works, with every figure read from the code and the settings."""
    from django.conf import settings

    from engine.sandbox.engine import ENGINE_SETTINGS, MAX_WASM_STACK, TABLE_ELEMENTS_LIMIT

    context = {
        "wasmtime_version": WASMTIME_VERSION,
        "engine_digest": ENGINE_DIGEST,
        "engine_on": [name for name, value in ENGINE_SETTINGS.items() if value is True],
        "engine_off": [name for name, value in ENGINE_SETTINGS.items() if value is False],
        "engine_values": [(name, value) for name, value in ENGINE_SETTINGS.items() if not isinstance(value, bool)],
        "max_wasm_stack": MAX_WASM_STACK,
        "table_elements": TABLE_ELEMENTS_LIMIT,
        "settings": {name: getattr(settings, name) for name in (
            "SCORING_WALL_SECONDS", "SCORING_BUILD_TIMEOUT", "SCORING_BUILD_CPU_SECONDS", "SCORING_BUILD_MEMORY_BYTES",
            "SCORING_BUILD_DISK_BYTES", "SCORING_BUILD_PROCESSES", "SCORING_BUILD_FILE_BYTES",
            "SCORING_MAX_MODULE_BYTES", "SCORING_MAX_SOURCE_BYTES", "SCORING_COMPILE_SECONDS",
            "SCORING_ANSWER_MIN_BYTES", "SCORING_ANSWER_SIZE_FACTOR", "SCORING_JUDGE_MEMORY_BYTES",
            "CARRY_FORWARD_TOP", "STANDINGS_REFRESH_SECONDS",
        )},
        "statuses": STATUS_MEANINGS,
        "nav": "about",
    }
    return render(request, "scoring/about.html", context)


# The per-input statuses in the order they are checked (SPEC §5), as the about page explains them.
STATUS_MEANINGS = (
    ("fuel_exhausted", "the input's ceiling ran out (recorded as the ceiling; no answer)"),
    ("timeout", "the wall-clock guard fired"),
    ("trapped", "any other trap: unreachable, out of bounds, stack overflow… (wasmtime's message)"),
    ("invalid_output", "the answer is outside memory, not UTF-8, not strict JSON, too large, or not valid "
                       "against the output schema"),
    ("wrong_answer", "a valid answer not equal to the expected one (the message names the first differing "
                     "JSON pointer, never values)"),
    ("over_limit", "correct, but it used more fuel than the pass line (the overshoot is recorded)"),
    ("passed", "correct, within the pass line"),
    ("skipped", "a stress input not run because a smoke input failed; counts as failed"),
)
