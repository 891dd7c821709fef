"""The catalog as JSON (`/api/cases/`, `/api/cases/<slug>/`). Never any held-out data."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from catalog.forms import CaseFilterForm
from catalog.models import CaseVersion
from catalog.views import CASE_LIST_PARAMETERS, counted_cases, list_scope, public_version_or_404
from lib.api import json_view, paginate
from sitecache.models import CATALOG
from sitecache.pages import cached_page, query_without, text

CASES_PER_PAGE = 50


def case_summary(version: CaseVersion) -> dict:
    return {
        "slug": version.case.slug,
        "name": version.name,
        "summary": version.summary,
        "difficulty": version.difficulty,
        "tags": version.tag_names,
        "experimental": version.experimental,
        "latest_version": version.version,
        "best_fuel": version.best_fuel,
        "entries": version.entry_count,
        "changed_at": version.imported_at.isoformat(),
        "url": reverse("case-detail", args=[version.case.slug]),
        "api_url": reverse("api-case-detail", args=[version.case.slug]),
    }


@cached_page(*CASE_LIST_PARAMETERS, scope=list_scope)
@json_view
def case_list(request: HttpRequest):
    form = CaseFilterForm(request.GET)
    if not form.is_valid():
        return {"error": "invalid filter", "fields": form.errors.get_json_data()}, 400
    versions, pagination = paginate(request, counted_cases(request, form), per_page=CASES_PER_PAGE,
                                    query=query_without(request, CASE_LIST_PARAMETERS))
    return {**pagination, "cases": [case_summary(version) for version in versions]}


@cached_page(text("version"), scope=lambda request, slug: [CATALOG])
@json_view
def case_detail(request: HttpRequest, slug: str):
    version = public_version_or_404(slug, request.GET.get("version") or None)
    versions = CaseVersion.objects.public_versions_of(version.case).values_list("version", flat=True)
    return {
        "slug": version.case.slug,
        "name": version.name,
        "version": version.version,
        "versions": list(versions),
        "difficulty": version.difficulty,
        "experimental": version.experimental,
        "tags": version.tag_names,
        "summary": version.summary,
        "description": version.description,
        "changelog": version.changelog,
        "variants": [
            {"slug": variant.slug, "name": variant.name, "default": variant.is_default,
             "specs": [spec["dest"] for spec in variant.specs]}
            for variant in version.variants.all()
        ],
        "specs": [spec["dest"] for spec in version.specs],
        "contract": {"entry": version.contract_entry, "input": version.contract_input, "output": version.contract_output},
        "sandbox": {"fuel_limit": version.fuel_limit, "max_memory_bytes": version.max_memory_bytes},
        "inputs": {"smoke": version.smoke_count, "stress": version.stress_count},
        "url": reverse("case-version", args=[version.case.slug, version.version]),
        "leaderboard_url": reverse("api-leaderboard", args=[version.case.slug]) + f"?version={version.version}",
    }
