"""The page cache under the API: entries keyed by an operation's *validated* parameters."""

from __future__ import annotations

from typing import Any, Callable

from django.http import HttpRequest, HttpResponse

from sitecache.pages import cached_response


def cached_document(request: HttpRequest, query: dict[str, Any], generations: list[str],
                    render: Callable[[], HttpResponse]) -> HttpResponse:
    """The page cache, keyed by the operation's validated parameters: two spellings of one value
    (`?page=01`, `?all=true`) share an entry, so no client can fill the cache with copies."""
    canonical = sorted((name, str(value)) for name, value in query.items() if value is not None)
    return cached_response(request, canonical, generations, render)
