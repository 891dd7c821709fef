"""Small helpers for the JSON API views."""

from __future__ import annotations

import functools

from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.http.response import HttpResponseBase

from lib.paging import BadPage, page_of


def json_view(view):
    """Return the view's dict as JSON; a 404 becomes a JSON error instead of an HTML page. A view
    may return a response of its own (a CSV download)."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            result = view(request, *args, **kwargs)
        except Http404 as missing:
            return JsonResponse({"error": str(missing) or "not found"}, status=404)
        except BadPage as bad:
            return JsonResponse({"error": str(bad)}, status=400)
        if isinstance(result, HttpResponseBase):
            return result
        if isinstance(result, tuple):
            document, status = result
            return JsonResponse(document, status=status)
        return JsonResponse(result)

    return wrapper


def paginate(request, items, *, per_page: int, query: str) -> tuple[list, dict]:
    """One page of `items` and the fields that describe it: count, page, pages, next, previous.

    Raises BadPage for a `?page=` that is not a page number, Http404 past the last page. `query`
    is the rest of the links' query string (`a=1&b=2&`: only the parameters the endpoint reads).
    """
    paginator = Paginator(items, per_page)
    shown = page_of(paginator, request.GET.get("page"))
    base = f"{request.path}?{query}"

    def link(number: int) -> str:
        return request.build_absolute_uri(f"{base}page={number}")

    return list(shown), {
        "count": paginator.count,
        "page": shown.number,
        "pages": paginator.num_pages,
        "next": link(shown.next_page_number()) if shown.has_next() else None,
        "previous": link(shown.previous_page_number()) if shown.has_previous() else None,
    }
