"""The results pages: a leaderboard, one submission, and two submissions compared."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from catalog.models import CaseVersion, UnknownTarget, Variant
from catalog.reading import shown_board
from catalog.runrecords import RUN_FIELDS
from lib.csvexport import csv_response
from lib.paging import BadPage, page_of
from scoring.boards.places import engine_label, speedup
from scoring.boards.reading import BadModel, Leaderboard, model_filter, place_of
from scoring.compare import NotComparable, compare, leader_of
from scoring.documents import board_table, pass_line, share_of_limit, stress_fuel, stress_inputs_of
from scoring.epochs import board_engine, epochs_of
from scoring.models import Submission, Verification
from scoring.references import reference_of
from scoring.retiring import published_module
from scoring.reviews import reads_json, review_items, verdicts
from sitecache.pages import cached_page, choice, flag, not_kept, page, query_without, text
from web.cases import version_scope
from web.charts import (
    CHART_BAR_WIDTH,
    CHART_ENTRIES,
    COMPARE_HALF_WIDTH,
    chart_bars,
    comparison_bars,
    history_chart,
    pass_line_chart,
)
from web.downloads import download
from web.errors import BadFormat, bad_request, wants_csv

ENTRIES_PER_PAGE = 50
FAILED_SHOWN_FIRST = 3  # inputs named in a failed entry's reason, at the top of its page
# The query parameters a leaderboard reads (and so its cache key holds).
LEADERBOARD_PARAMETERS = (text("version"), text("variant"), flag("all"), text("model"), text("review"), page(),
                          choice("format"))


def leaderboard_selection(request: HttpRequest, slug: str) -> tuple[CaseVersion, Variant | None, bool]:
    """The version, variant and all-submissions choice a leaderboard request names (404 if unknown)."""
    try:
        version, variant = shown_board(slug, request.GET.get("version") or None, request.GET.get("variant") or None)
    except UnknownTarget as unknown:
        raise Http404(unknown.message) from None
    return version, variant, request.GET.get("all") == "1"


@cached_page(*LEADERBOARD_PARAMETERS, scope=version_scope)
def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    version, variant, include_all = leaderboard_selection(request, slug)
    try:
        model = model_filter(request.GET.get("model"))
        if wants_csv(request):
            return csv_response(*board_table(version, variant, include_all, model))
    except (BadFormat, BadModel) as bad:
        return bad_request(request, str(bad))
    entries = Leaderboard(version, variant=variant, include_all=include_all, model=model)
    try:
        page = page_of(Paginator(entries, ENTRIES_PER_PAGE), request.GET.get("page"))
    except BadPage as bad:
        return bad_request(request, str(bad))
    stress_inputs = stress_inputs_of(version)
    fuel_by_entry = stress_fuel(list(page))
    line = pass_line(version, len(stress_inputs))
    items = review_items(version)
    review = next((item for item in items if item.slug == request.GET.get("review")), None)
    if request.GET.get("review") and review is None:
        return bad_request(request, "review: the version declares no such review item")
    reads = verdicts([entry.submission for entry in page]) if review else {}
    rows = [
        {
            "entry": entry,
            "share": share_of_limit(entry.total_fuel, line),
            "per_input": [fuel_by_entry.get(entry.submission, {}).get(position, (None, "")) for position,
                          _ in stress_inputs],
            "verdict": reads.get(entry.submission, {}).get(review.slug, "") if review else "",
        }
        for entry in page
    ]
    versions = list(CaseVersion.objects.public_versions_of(version.case).values_list("version", flat=True))
    # The top of the board, whatever the page (on the first page, its own rows).
    first_page = page.number == 1 and ENTRIES_PER_PAGE >= CHART_ENTRIES
    top = list(page)[:CHART_ENTRIES] if first_page else entries[:CHART_ENTRIES]
    bars = chart_bars(top)
    engine = board_engine(version)  # what counts its figures: a mark on any entry another engine measured
    counting = engine_label(*engine)
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
        "reference": reference_of(version),
        "stress_inputs": [path for _, path in stress_inputs],
        "bars": bars,
        "bar_width": CHART_BAR_WIDTH,
        "filtered": bool(variant or model or include_all or version.version != (versions[0] if versions else None)),
        "mixed_engines": sorted(entries.engines() - {counting}),
        "current_engine": counting,
        "wasmtime_version": engine[0],
        "earlier_epochs": epochs_of(version),
        "page_query": query_without(request, LEADERBOARD_PARAMETERS),
        "model_query": query_without(request, LEADERBOARD_PARAMETERS, ("page", "model", "format")),
        "review": review,
        "review_items": items,
        "review_query": query_without(request, LEADERBOARD_PARAMETERS, ("page", "review", "format")),
    }
    response = render(request, "scoring/leaderboard.html", context)
    # A model that names no entry could be anything a client likes: rendered, never stored.
    return not_kept(response) if model and not rows else response


def public_submission_or_404(pk: int) -> Submission:
    return get_object_or_404(Submission.objects.shown(), pk=pk)


def submission_module(request: HttpRequest, pk: int) -> HttpResponse:
    """The module an entry of a retired version ran (scoring/retiring.py); a 404 otherwise."""
    stored = published_module(public_submission_or_404(pk))
    if stored is None:
        raise Http404("This entry's module is not published: its version is current, or no module was kept")
    # Staff may still hide the entry: no cache keeps serving its module after that.
    return download(request, stored.digest, f"entry-{pk}.wasm",
                    lambda: HttpResponse(bytes(stored.content), content_type="application/wasm"), revalidate=True)


def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = public_submission_or_404(pk)
    results = list(submission.results.order_by("position"))
    reference = reference_of(submission.version)
    reference_fuel = (dict(reference.results.filter(kind="stress", status="passed").values_list("input_path", "fuel"))
                      if reference is not None else None)
    chart = pass_line_chart(results, reference_fuel)
    rows = chart.rows
    leader = leader_of(submission.version_id)
    failed = [row for row in rows if row.result.status not in ("passed",
                                                               "skipped")] if submission.status == "scored" else []
    public = Submission.objects.public().select_related("version").defer("source")
    context = {
        "submission": submission,
        "version": submission.version,
        "case": submission.version.case,
        "rows": rows,
        "ticks": chart.ticks,
        "reference": reference,
        "speedup": speedup(reference.total_fuel, submission.total_fuel) if reference is not None else None,
        # Where it was carried from, and to (links to pages a visitor may see only).
        "carried_from": public.filter(pk=submission.carried_from_id).first() if submission.carried_from_id else None,
        "carried_to": list(public.filter(carried_from=submission).order_by("version__ordinal")),
        "leader": leader if leader != submission.pk else None,
        # The build log and `detail` texts come from the submission itself: staff only.
        "show_staff": request.user.is_staff,
        "run": submission.run or {},
        # Its version is retired: the module it ran is published (scoring/retiring.py).
        "module_published": published_module(submission) is not None,
        "run_extra": sorted((key, value) for key, value in (submission.run or {}).items() if key not in RUN_FIELDS),
        "stress_total": sum(1 for result in results if result.kind == "stress"),
        "place": place_of(submission) if not submission.hidden else None,
        # The reason first: the inputs that failed (a failed build or module says so in `message`).
        "failed_inputs": failed[:FAILED_SHOWN_FIRST],
        "failed_more": max(len(failed) - FAILED_SHOWN_FIRST, 0),
        # Its latest re-measurement, when it had one (the mark itself is on the submission).
        "verification": (submission.verifications.filter(outcome__in=Verification.PUBLIC)
                         .order_by("-finished_at", "-pk").first() if submission.verification else None),
        "review_items": review_items(submission.version),
        "reviews": reads_json(submission),
    }
    return render(request, "scoring/submission_detail.html", context)


def submission_compare(request: HttpRequest, a: int, b: int) -> HttpResponse:
    try:
        comparison = compare(public_submission_or_404(a), public_submission_or_404(b))
    except NotComparable as reason:
        return bad_request(request, str(reason))
    bars = comparison_bars(comparison)
    context = {
        "comparison": comparison,
        "a": comparison.a,
        "b": comparison.b,
        "version": comparison.a.version,
        "case": comparison.a.version.case,
        "bars": bars,
        "chart_middle": COMPARE_HALF_WIDTH,
        "chart_width": 2 * COMPARE_HALF_WIDTH,
    }
    return render(request, "scoring/compare.html", context)
