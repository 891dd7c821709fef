"""Page numbers in query strings, read one strict way everywhere (pages, the API, the cache key)."""

from __future__ import annotations

import re

_PAGE = re.compile(r"^[1-9][0-9]{0,8}$")


class BadPage(ValueError):
    """`?page=` is not a page number (a 400), as opposed to a page past the end (a 404)."""


def parse_page(raw: str | None) -> int:
    """1 when absent; the number for a plain positive decimal; BadPage for anything else.

    No signs, spaces, leading zeros or non-ASCII digits: one page, one spelling.
    """
    if raw is None or raw == "":
        return 1
    if not _PAGE.fullmatch(raw):
        raise BadPage("page must be a whole number from 1 up, written without a sign or leading zeros")
    return int(raw)


def page_of(paginator, raw: str | None):
    """The page `?page=` names: BadPage if it is not a page number, Http404 past the last page."""
    from django.core.paginator import EmptyPage
    from django.http import Http404

    number = parse_page(raw)
    try:
        return paginator.page(number)
    except EmptyPage:
        raise Http404(f"there is no page {number}") from None
