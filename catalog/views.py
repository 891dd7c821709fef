"""Public case pages: the list and one case version."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from catalog.forms import CaseFilterForm
from catalog.models import CaseVersion, Tag
from scoring.models import Submission
from lib.pagecache import cached_page, page, query_without, text
from lib.paging import BadPage, page_of

CASES_PER_PAGE = 24
LEADERBOARD_PREVIEW = 10
# The query parameters the case list reads (and so its cache key holds).
CASE_LIST_PARAMETERS = (text("q"), text("tag"), text("difficulty"), page())


def _best_fuel() -> Subquery:
    best = Submission.objects.filter(
        version=OuterRef("pk"), passed=True, hidden=False, status=Submission.State.SCORED
    ).order_by("total_fuel")
    return Subquery(best.values("total_fuel")[:1])


def filtered_cases(form: CaseFilterForm) -> QuerySet[CaseVersion]:
    """The latest shown version of every case, narrowed by a valid filter form."""
    versions = CaseVersion.objects.public().latest_per_case().select_related("case")
    if form.is_valid():
        if form.cleaned_data["q"]:
            versions = versions.filter(name__icontains=form.cleaned_data["q"])
        if form.cleaned_data["tag"]:
            versions = versions.filter(tags__name=form.cleaned_data["tag"])
        if form.cleaned_data["difficulty"]:
            versions = versions.filter(difficulty=form.cleaned_data["difficulty"])
    return versions.annotate(best_fuel=_best_fuel()).order_by("name", "case__slug")


def bad_request(request: HttpRequest, reason: str) -> HttpResponse:
    return render(request, "400.html", {"reason": reason}, status=400)


@cached_page(*CASE_LIST_PARAMETERS)
def case_list(request: HttpRequest) -> HttpResponse:
    form = CaseFilterForm(request.GET)
    if not form.is_valid():
        return render(request, "catalog/case_list.html", {"form": form, "page": None, "tags": []}, status=400)
    try:
        shown = page_of(Paginator(filtered_cases(form), CASES_PER_PAGE), request.GET.get("page"))
    except BadPage as bad:
        return bad_request(request, str(bad))
    latest = CaseVersion.objects.public().latest_per_case()
    tags = Tag.objects.filter(versions__in=latest).distinct().values_list("name", flat=True)
    filtered = any(form.cleaned_data.values())
    return render(request, "catalog/case_list.html", {
        "form": form, "page": shown, "tags": list(tags), "filtered": filtered,
        "page_query": query_without(request, CASE_LIST_PARAMETERS),
    })


def public_version_or_404(slug: str, version: str | None = None) -> CaseVersion:
    case_version = CaseVersion.objects.public_version(slug, version)
    if case_version is None:
        raise Http404("No such case version")
    return case_version


@cached_page()
def case_detail(request: HttpRequest, slug: str, version: str | None = None) -> HttpResponse:
    case_version = public_version_or_404(slug, version)
    versions = list(
        CaseVersion.objects.public_versions_of(case_version.case).values("version", "experimental", "imported_at")
    )
    context = {
        "version": case_version,
        "case": case_version.case,
        "versions": versions,
        "is_latest": versions[0]["version"] == case_version.version,
        "variants": list(case_version.variants.all()),
        "entries": Submission.objects.leaderboard(case_version)[:LEADERBOARD_PREVIEW],
    }
    return render(request, "catalog/case_detail.html", context)
