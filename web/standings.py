"""The catalog-wide standings page (and its CSV download)."""

from __future__ import annotations

import functools

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse

from catalog.manifest import DIFFICULTIES
from catalog.models import Tag
from lib.csvexport import csv_response
from lib.paging import BadPage, page_of
from scoring.boards import RANKED
from scoring.boards.places import ALL_VARIANTS
from scoring.boards.reading import place_of
from scoring.documents import standings_table
from scoring.models import Standing
from scoring.speedups import FAST_P, p_key
from scoring.standings import BadFilter, Standings, request_refresh, standings_generations
from sitecache.pages import cached_page, choice, page, query_without, text
from web.errors import BadFormat, bad_request, wants_csv

STANDINGS_PER_PAGE = 50
STANDINGS_PARAMETERS = (text("difficulty"), text("tag"), text("since"), choice("p"), page(), choice("format"))


def refreshing(request_refresh):
    """Ask for a refresh when a table computed in the background is behind the scores (before any
    cached page is served): the standings, or the agents matrix."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            request_refresh()
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def standings_scope(request: HttpRequest) -> list[str]:
    return standings_generations()


@refreshing(request_refresh)
@cached_page(*STANDINGS_PARAMETERS, scope=standings_scope)
def standings(request: HttpRequest) -> HttpResponse:
    try:
        shown = Standings(request.GET)
        if wants_csv(request):
            return csv_response(*standings_table(shown))
        lines = page_of(Paginator(shown.lines, STANDINGS_PER_PAGE), request.GET.get("page"))
    except (BadFilter, BadFormat, BadPage) as bad:
        return bad_request(request, str(bad))
    tied = shown.tied(list(lines))
    context = {
        "standings": shown,
        "page": lines,
        "rows": [{"line": line, "parts": shown.parts(line), "against": shown.against(line),
                  "tied": line.shared_position in tied} for line in lines],
        "p_choices": [p_key(p) for p in FAST_P if p != 1.0],
        "tags": list(Tag.objects.filter(latest_public_count__gt=0).order_by("name").values_list("name", flat=True)),
        "difficulty_choices": DIFFICULTIES,
        "page_query": query_without(request, STANDINGS_PARAMETERS),
        "nav": "standings",
        "refresh_seconds": settings.STANDINGS_REFRESH_SECONDS,
    }
    return render(request, "scoring/standings.html", context)


def submitter(request: HttpRequest, name: str) -> HttpResponse:
    """One submitter's line of the standings, opened: their best entry on the latest public
    version of every case they entered, with its place. 404 for a name with no entry there. Every
    name has one URL (lib/urlparts.py); another spelling of it is sent there."""
    from urllib.parse import unquote



    canonical = reverse("submitter", args=[name])
    if unquote(canonical) != request.path:
        return HttpResponsePermanentRedirect(canonical)
    rows = list(Standing.objects.filter(name=name, version__latest_public=True, variant_key=ALL_VARIANTS,
                                        submission__isnull=False)
                .select_related("version", "version__case", "submission").order_by("version__case__slug"))
    if not rows:
        raise Http404("no entry under this name on the latest version of any case")
    entries = [{"version": row.version, "submission": row.submission, "ranked": row.board_group == RANKED,
                "place": place_of(row.submission)} for row in rows]
    context = {"name": name, "entries": entries, "nav": "standings",
               "solved": sum(1 for entry in entries if entry["ranked"])}
    return render(request, "scoring/submitter.html", context)
