"""Leaderboards and submissions as JSON. Never any held-out data."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from catalog.views import version_scope
from lib.api import json_view, paginate
from sitecache.pages import cached_page, query_without
from scoring.models import Submission
from scoring.service import as_json
from scoring.compare import NotComparable
from scoring.views import (
    ENTRIES_PER_PAGE, LEADERBOARD_PARAMETERS, BadFormat, comparison_or_error, leaderboard_csv, leaderboard_selection,
    public_submission_or_404, wants_csv,
)


@cached_page(*LEADERBOARD_PARAMETERS, scope=version_scope)
@json_view
def leaderboard(request: HttpRequest, slug: str):
    version, variant, include_all = leaderboard_selection(request, slug)
    try:
        if wants_csv(request):
            return leaderboard_csv(version, variant, include_all)
    except BadFormat as bad:
        return {"error": str(bad)}, 400
    entries = Submission.objects.leaderboard(version, variant=variant, include_all=include_all)
    shown, pagination = paginate(request, entries, per_page=ENTRIES_PER_PAGE,
                                 query=query_without(request, LEADERBOARD_PARAMETERS))
    return {
        "case": version.case.slug,
        "version": version.version,
        "variant": variant.slug if variant else None,
        "all": include_all,
        **pagination,
        "entries": [{**entry.as_json(), "carried_from": entry.carried_from} for entry in shown],
    }


@json_view
def submission(request: HttpRequest, pk: int):
    found = public_submission_or_404(pk)
    document = as_json(found)
    document["job"] = found.job_state  # queued, running, done or failed
    document["url"] = reverse("submission-detail", args=[found.pk])
    document["carried_from"] = found.carried_from_id
    return document


@json_view
def submission_compare(request: HttpRequest, a: int, b: int):
    try:
        comparison = comparison_or_error(request, a, b)
    except NotComparable as reason:
        return {"error": str(reason)}, 400
    document = comparison.as_json()
    document["url"] = reverse("submission-compare", args=[a, b])
    return document
