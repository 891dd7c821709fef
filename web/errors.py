"""What a page answers when a request cannot be served as asked."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def bad_request(request: HttpRequest, reason: str) -> HttpResponse:
    return render(request, "400.html", {"reason": reason}, status=400)


class BadFormat(ValueError):
    """A `?format=` no page offers."""


def wants_csv(request: HttpRequest) -> bool:
    """`?format=csv` asks for the download; no other format is known (BadFormat)."""
    wanted = request.GET.get("format", "").strip()
    if wanted and wanted != "csv":
        raise BadFormat("unknown format: the only download format is csv")
    return wanted == "csv"
