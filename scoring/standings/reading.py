"""Reading the catalog-wide standings for a page or the API: the filter, its lines a slice at a
time, how many cases it covers, and when it was computed."""

from __future__ import annotations

import hashlib

from django import forms
from django.core.cache import cache
from django.db.models import Count

from catalog.manifest import DIFFICULTIES
from catalog.models import Tag
from lib.errors import DomainError
from scoring.models import StandingsRow
from scoring.speedups import BadP, harmonic_mean, p_key, parse_p, share
from scoring.standings.computing import compute, scope_name, snapshot
from sitecache.models import CATALOG, STANDINGS_SNAPSHOT, Generation


class StandingsFilterForm(forms.Form):
    # A form field refuses NUL characters and overlong values before any query sees them.
    difficulty = forms.ChoiceField(required=False, choices=[("", "any")] + [(d, d) for d in DIFFICULTIES])
    tag = forms.CharField(required=False, max_length=100)
    since = forms.DateField(required=False, input_formats=["%Y-%m-%d"],
                            error_messages={"invalid": "a date, as YYYY-MM-DD"})


class BadFilter(DomainError):
    """A ?difficulty= or ?tag= that is not one (`bad_filter`), or a well-formed tag that no
    published case carries (`unknown_tag`), or a harness no agent ran under (`unknown_harness`, the
    agents matrix)."""


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

        return list(StandingsRow.objects.filter(scope=self.scope, position__gt=index.start or 0,
                                                position__lte=index.stop).order_by("position"))

    def batches(self, size: int):
        """Every line, `size` at a time (for a download)."""
        for start in range(0, self._count, size):
            yield self[start:min(start + size, self._count)]


class Standings:
    """What one request for the standings shows: the filter, the lines, how many cases, and when."""

    def __init__(self, parameters):
        form = StandingsFilterForm(parameters)
        if not form.is_valid():
            if "difficulty" in form.errors:
                raise BadFilter("bad_filter", f"unknown difficulty: use one of {', '.join(DIFFICULTIES)}")
            if "since" in form.errors:
                raise BadFilter("bad_filter", "since: " + " ".join(form.errors["since"]))
            raise BadFilter("bad_filter", "tag: " + " ".join(form.errors.get("tag", ["not a tag"])))
        self.difficulty = form.cleaned_data["difficulty"] or None
        self.tag = form.cleaned_data["tag"] or None
        if self.tag and not Tag.objects.filter(name=self.tag, latest_public_count__gt=0).exists():
            raise BadFilter("unknown_tag", "no published case carries that tag")
        self.since = form.cleaned_data["since"]
        self.scope = scope_name(self.difficulty, self.tag)
        self.snapshot = snapshot()
        self.as_of = self.snapshot.computed_at if self.snapshot else None
        if (self.difficulty and self.tag) or self.since:  # not precomputed: read from the entries, once per snapshot
            lines, counts = combined(self.difficulty, self.tag, self.since)
            self.lines = ListedLines(lines)
        else:
            counts = (self.snapshot.scopes if self.snapshot else {}).get(self.scope, {"cases": 0, "rows": 0})
            self.lines = ScopeLines(self.scope, counts["rows"])
        self.cases = counts["cases"]
        self.references = counts.get("references", 0)  # cases with a reference entry (speedups)
        try:
            self.p = parse_p(parameters.get("p"))
        except BadP as bad:
            raise BadFilter(bad.code, bad.message) from None
        self.difficulties = [self.difficulty] if self.difficulty else list(DIFFICULTIES)

    @property
    def computing(self) -> bool:
        """No standings were computed yet (the first refresh is queued)."""
        return self.snapshot is None or self.snapshot.computed_at is None

    @property
    def p_key(self) -> str:
        return p_key(self.p)

    def against(self, line) -> dict:
        """The line's figures against the references: fast_1, fast_p (this page's p), the geometric
        mean of its speedups and over how many cases (None where there is nothing to compare)."""
        return {"fast_1": share(line.fast, 1.0, self.references), "fast_p": share(line.fast, self.p, self.references),
                "speedup": line.speedup, "speedup_cases": line.reference_solved,
                "harmonic": harmonic_mean(line.inverse_speedups, line.reference_solved, self.references)}

    def tied(self, lines) -> set[int]:
        """The shared places among `lines` held by more than one line of the filter (one query:
        a tie may run past the page's last line)."""
        places = {line.shared_position for line in lines}
        if isinstance(self.lines, ListedLines):
            held = [line.shared_position for line in self.lines if line.shared_position in places]
            return {place for place in places if held.count(place) > 1}
        return set(StandingsRow.objects.filter(scope=self.scope, shared_position__in=places)
                   .values("shared_position").annotate(held=Count("id")).filter(held__gt=1)
                   .values_list("shared_position", flat=True))

    def parts(self, line) -> list[tuple[str, dict]]:
        """(difficulty, {"solved", "score", "entered"}) for the breakdown columns."""
        return [(difficulty, line.breakdown.get(difficulty, {"solved": 0, "score": 0.0, "entered": 0}))
                for difficulty in self.difficulties]


class ListedLines(list):
    """Lines computed for a combined filter, read like ScopeLines."""

    def batches(self, size: int):
        for start in range(0, len(self), size):
            yield self[start:start + size]


def combined(difficulty: str | None, tag: str | None, since=None):
    """A difficulty and a tag together (or a `since` date), computed once per snapshot (and per
    catalog change) and remembered: every page and format of the same filter reads the same result."""
    values = ".".join(str(value) for value in Generation.current([CATALOG, STANDINGS_SNAPSHOT]))
    key = "standings-combined:" + hashlib.sha256(f"{values}\0{difficulty}\0{tag}\0{since}".encode()).hexdigest()
    found = cache.get(key)
    if found is None:
        found = compute(difficulty, tag, since)
        cache.set(key, found, 3600)
    return found


def standings_generations() -> list[str]:
    """What a standings page or document shows: the catalog and the snapshot."""
    return [CATALOG, STANDINGS_SNAPSHOT]
