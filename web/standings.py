"""The catalog-wide standings page (and its CSV download)."""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from catalog.manifest import DIFFICULTIES
from catalog.models import Tag
from lib.csvexport import csv_response
from lib.paging import BadPage, page_of
from scoring.documents import standings_table
from scoring.standings import BadFilter, Standings, request_refresh, standings_generations
from sitecache.pages import cached_page, choice, page, query_without, text
from web.errors import BadFormat, bad_request, wants_csv

STANDINGS_PER_PAGE = 50
STANDINGS_PARAMETERS = (text("difficulty"), text("tag"), page(), choice("format"))


def refreshing_standings(view):
    """Ask for a refresh when the standings are behind the scores (before any cached page is served)."""

    def wrapper(request, *args, **kwargs):
        request_refresh()
        return view(request, *args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = view.__name__
    wrapper.__doc__ = view.__doc__
    return wrapper


def standings_scope(request: HttpRequest) -> list[str]:
    return standings_generations()


@refreshing_standings
@cached_page(*STANDINGS_PARAMETERS, scope=standings_scope)
def standings(request: HttpRequest) -> HttpResponse:
    try:
        shown = Standings(request.GET)
        if wants_csv(request):
            return csv_response(*standings_table(shown))
        lines = page_of(Paginator(shown.lines, STANDINGS_PER_PAGE), request.GET.get("page"))
    except (BadFilter, BadFormat, BadPage) as bad:
        return bad_request(request, str(bad))
    context = {
        "standings": shown,
        "page": lines,
        "rows": [{"line": line, "parts": shown.parts(line)} for line in lines],
        "tags": list(Tag.objects.filter(latest_public_count__gt=0).order_by("name").values_list("name", flat=True)),
        "difficulty_choices": DIFFICULTIES,
        "page_query": query_without(request, STANDINGS_PARAMETERS),
        "nav": "standings",
        "refresh_seconds": settings.STANDINGS_REFRESH_SECONDS,
    }
    return render(request, "scoring/standings.html", context)
