"""The catalog-wide standings page, its JSON twin and its CSV download."""

from __future__ import annotations

import hashlib

from django import forms
from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from catalog.manifest import DIFFICULTIES
from catalog.models import Tag
from catalog.views import bad_request
from lib.csvexport import csv_response
from lib.paging import BadPage, page_of
from scoring.standings import compute, request_refresh, scope_name, snapshot
from scoring.views import BadFormat, download_name, wants_csv
from sitecache.models import CATALOG, STANDINGS_SNAPSHOT, Generation
from sitecache.pages import cached_page, choice, page, query_without, text

STANDINGS_PER_PAGE = 50
STANDINGS_PARAMETERS = (text("difficulty"), text("tag"), page(), choice("format"))


class StandingsFilterForm(forms.Form):
    # A form field refuses NUL characters and overlong values before any query sees them.
    difficulty = forms.ChoiceField(required=False, choices=[("", "any")] + [(d, d) for d in DIFFICULTIES])
    tag = forms.CharField(required=False, max_length=100)


class BadFilter(ValueError):
    """A ?difficulty= or ?tag= that is not one."""


class UnknownTag(BadFilter):
    """A well-formed ?tag= that no published case carries."""


class ScopeLines:
    """A scope's lines in order, sliced like a list for a Paginator: one indexed query per slice."""

    def __init__(self, scope: str, count: int):
        self.scope = scope
        self._count = count

    def count(self) -> int:
        return self._count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        from scoring.models import StandingsRow

        return list(StandingsRow.objects.filter(scope=self.scope, position__gt=index.start or 0,
                                                position__lte=index.stop).order_by("position"))


class Standings:
    """What one request for the standings shows: the filter, the lines, how many cases, and when."""

    def __init__(self, parameters):
        form = StandingsFilterForm(parameters)
        if not form.is_valid():
            if "difficulty" in form.errors:
                raise BadFilter(f"unknown difficulty: use one of {', '.join(DIFFICULTIES)}")
            raise BadFilter("tag: " + " ".join(form.errors.get("tag", ["not a tag"])))
        self.difficulty = form.cleaned_data["difficulty"] or None
        self.tag = form.cleaned_data["tag"] or None
        if self.tag and not Tag.objects.filter(name=self.tag, latest_public_count__gt=0).exists():
            raise UnknownTag("no published case carries that tag")
        self.scope = scope_name(self.difficulty, self.tag)
        self.snapshot = snapshot()
        if self.difficulty and self.tag:  # not precomputed: read from the entries of these cases, once per snapshot
            self.lines, self.cases = combined(self.difficulty, self.tag)
            self.as_of = self.snapshot.computed_at if self.snapshot else None
        else:
            known = (self.snapshot.scopes if self.snapshot else {}).get(self.scope, {"cases": 0, "rows": 0})
            self.cases = known["cases"]
            self.lines = ScopeLines(self.scope, known["rows"])
            self.as_of = self.snapshot.computed_at if self.snapshot else None
        self.difficulties = [self.difficulty] if self.difficulty else list(DIFFICULTIES)

    @property
    def computing(self) -> bool:
        """No standings were computed yet (the first refresh is queued)."""
        return self.snapshot is None or self.snapshot.computed_at is None

    def parts(self, line) -> list[tuple[str, dict]]:
        """(difficulty, {"solved", "score", "entered"}) for the breakdown columns."""
        return [(difficulty, line.breakdown.get(difficulty, {"solved": 0, "score": 0.0, "entered": 0}))
                for difficulty in self.difficulties]

    def as_json(self, line) -> dict:
        return {
            "rank": line.position, "name": line.name, "solved": line.solved, "entered": line.entered,
            "score": round(line.score, 6),
            "geometric_mean": round(line.geometric_mean, 6) if line.geometric_mean is not None else None,
            "difficulties": {difficulty: {"solved": part["solved"], "score": round(part["score"], 6)}
                             for difficulty, part in self.parts(line)},
            "models": (line.provenance or {}).get("models", []),
            "annotations": (line.provenance or {}).get("annotations", []),
        }

    def csv(self) -> HttpResponse:
        header = ["rank", "name", "score", "solved", "entered", "cases", "geometric_mean",
                  *[f"{difficulty}_{column}" for difficulty in self.difficulties for column in ("solved", "score")],
                  "models", "annotations"]

        def rows():
            total = len(self.lines)
            for start in range(0, total, 1000):
                for line in self.lines[start:min(start + 1000, total)]:
                    yield [line.position, line.name, round(line.score, 6), line.solved, line.entered, self.cases,
                           round(line.geometric_mean, 6) if line.geometric_mean is not None else None,
                           *[value for _, part in self.parts(line) for value in (part["solved"], round(part["score"], 6))],
                           "; ".join((line.provenance or {}).get("models", [])),
                           " | ".join(f"{note['case']}: {note['text']}"
                                      for note in (line.provenance or {}).get("annotations", []))]

        return csv_response(download_name("standings", self.difficulty or "", self.tag or ""), header, rows())


def combined(difficulty: str, tag: str):
    """A difficulty and a tag together, computed once per snapshot (and per catalog change) and
    remembered: every page, format and host of the same filter reads the same result."""
    values = ".".join(str(value) for value in Generation.current([CATALOG, STANDINGS_SNAPSHOT]))
    key = "standings-combined:" + hashlib.sha256(f"{values}\0{difficulty}\0{tag}".encode()).hexdigest()
    found = cache.get(key)
    if found is None:
        found = compute(difficulty, tag)
        cache.set(key, found, 3600)
    return found


def refreshing_standings(view):
    """Ask for a refresh when the standings are behind the scores (before any cached page is served)."""

    def wrapper(request, *args, **kwargs):
        request_refresh()
        return view(request, *args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = view.__name__
    wrapper.__doc__ = view.__doc__
    return wrapper


def standings_scope(request: HttpRequest) -> list[str]:
    return [CATALOG, STANDINGS_SNAPSHOT]


@refreshing_standings
@cached_page(*STANDINGS_PARAMETERS, scope=standings_scope)
def standings(request: HttpRequest) -> HttpResponse:
    try:
        shown = Standings(request.GET)
        if wants_csv(request):
            return shown.csv()
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
