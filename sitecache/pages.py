"""Caching whole public pages, keyed by what they show and by the generations of that data.

A cached page is served only while the generations it was rendered at are current
(sitecache.models: the catalog, the case list's best fuel, one version's results), so nothing
stale is ever served and no cross-process invalidation is needed, and a write empties only the
pages that show what it changed: a score on one version leaves every other version's pages and
the case list alone. Only anonymous GETs and HEADs are cached (staff see an admin link), and
the experimental setting is part of the key; the Host is not (links come from SITE_URL).

The key holds the path and only the query parameters the page reads, each normalised by its
reader (`flag`, `page`, `text`): `?junk=<random>` or `?all=0` hits the same entry as the bare
page, so a client cannot miss the cache on purpose with a parameter a page does not read.
Only 200 responses are stored, so a parameter value a page refuses (a 400 or 404) never takes a
place in the cache; and a page marks a response `not_kept()` when a free value it read (a
search, a tag or a model that matches nothing) could be anything: such a page is rendered, not
stored, so no client can fill the cache with misses and push the real pages out.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache, caches
from django.http import HttpResponse

from lib.paging import BadPage, parse_page
from sitecache.models import Generation

# scope(request, **view_kwargs) -> the generation names a page's content depends on.
Scope = Callable[..., list[str]]

@dataclass(frozen=True)
class Parameter:
    """A query parameter a cached page reads, and how its values are normalised for the key."""

    name: str
    normalise: Callable[[str], str | None]  # the raw value → its canonical form (None: as if absent)


def text(name: str) -> Parameter:
    """A free value, read as a form field reads it: surrounding white space dropped, and
    empty the same as absent."""
    return Parameter(name, lambda value: value.strip() or None)


def flag(name: str) -> Parameter:
    """`?name=1` turns it on; any other value is the same as leaving it out."""
    return Parameter(name, lambda value: "1" if value == "1" else None)


def choice(name: str) -> Parameter:
    """One of a few words (`?format=csv`): empty is the same as absent; a value the page
    refuses (a 400, never cached) is kept as given."""
    return Parameter(name, lambda value: value.strip() or None)


def page(name: str = "page") -> Parameter:
    """A page number (lib.paging): `1` is the same as absent. A value that is not a page number
    is refused by the page (a 400, never cached), so it can be kept as given."""

    def normalise(value: str) -> str | None:
        try:
            number = parse_page(value)
        except BadPage:
            return value
        return None if number == 1 else str(number)

    return Parameter(name, normalise)


def canonical_parameters(request, parameters: tuple[Parameter, ...]) -> list[tuple[str, str]]:
    """The (name, value) pairs of `parameters` the request holds, normalised, in a fixed order."""
    canonical = []
    for parameter in parameters:
        if parameter.name in request.GET:
            value = parameter.normalise(request.GET[parameter.name])
            if value is not None:
                canonical.append((parameter.name, value))
    return sorted(canonical)


def query_without(request, parameters: tuple[Parameter, ...], name: str | tuple[str, ...] = "page") -> str:
    """The canonical query string without `name` (or names), ready for `?{this}page=N` in a link.

    Links on a cached page are built from this, never from the raw query string: the page is
    served to everyone whose request normalises the same way.
    """
    return "".join(f"{urlencode({key: value})}&" for key, value in canonical_parameters(request, parameters)
                   if key not in ((name,) if isinstance(name, str) else name))


# What every page shows besides the data its generations stand for, each a callable giving a
# short string, added by the app that knows it when it is ready (scoring: the engine the site
# counts with, which its footer and marks name): a page made before a change is never served after.
KEY_PARTS: list[Callable[[], str]] = []


def cache_key(request, canonical: list[tuple[str, str]], generations: list[str]) -> str:
    # Encoded, so a value holding "&" or "=" cannot pass for two parameters. Not the Host or
    # the scheme: absolute links come from settings.SITE_URL, so a page reads the same whatever
    # host a client names (and a client cannot make new entries by naming new ones).
    query = urlencode(canonical)
    identity = f"{request.path}?{query}"
    digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()
    values = ".".join(str(value) for value in Generation.current(generations))
    parts = hashlib.sha256("\0".join(part() for part in KEY_PARTS).encode()).hexdigest()[:16]
    return f"page:{values}:{int(settings.CATALOG_SHOW_EXPERIMENTAL)}:{parts}:{digest}"


def not_kept(response: HttpResponse) -> HttpResponse:
    """Mark a response the page cache must not store (see the module's docstring)."""
    response.page_cache_keep = False
    return response


def cached_response(request, canonical: list[tuple[str, str]], generations: list[str],
                    render: Callable[[], HttpResponse]) -> HttpResponse:
    """`render()`'s response, or the one stored for the same path, `canonical` parameters and
    generations. Only anonymous GETs (and HEADs, which share their entry: the server sends the
    same headers without the body) are cached, and only 200s are stored."""
    if not settings.PAGE_CACHE_SECONDS or request.method not in ("GET", "HEAD") or request.user.is_authenticated:
        return render()
    key = cache_key(request, canonical, generations)
    hit = cache.get(key)
    if hit is not None:
        content, content_type = hit
        return HttpResponse(content, content_type=content_type)
    response = render()
    if response.status_code == 200 and not response.streaming and getattr(response, "page_cache_keep", True):
        cache.set(key, (response.content, response["Content-Type"]), settings.PAGE_CACHE_SECONDS)
    return response


def cached_page(*parameters: Parameter, scope: Scope):
    """Cache a view's anonymous GET responses, keyed by the path, `parameters` and the
    generations `scope(request, **kwargs)` names."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            return cached_response(request, canonical_parameters(request, parameters), scope(request, *args, **kwargs),
                                   lambda: view(request, *args, **kwargs))

        return wrapper

    return decorate


class CountedByGeneration:
    """A queryset whose count() is remembered until a generation moves (for a Paginator).

    The case list's count depends on the catalog only, yet counting matches of a tag reads every
    match: remembering it keeps a page of the list to the page's own rows. Not a page cache:
    it holds one number, is right whatever PAGE_CACHE_SECONDS says, and misses on any import.
    """

    def __init__(self, queryset, *, generation: str, identity: str):
        self.queryset = queryset
        self.generation = generation
        self.identity = identity

    def count(self) -> int:
        (value,) = Generation.current([self.generation])
        digest = hashlib.sha256(self.identity.encode("utf-8", "surrogatepass")).hexdigest()
        key = f"count:{self.generation}:{value}:{int(settings.CATALOG_SHOW_EXPERIMENTAL)}:{digest}"
        # A cache of their own: counts of searches a client varies at will never push pages out.
        counts = caches["counts"]
        counted = counts.get(key)
        if counted is None:
            counted = self.queryset.count()
            counts.set(key, counted, 24 * 3600)
        return counted

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        return self.queryset[index]
