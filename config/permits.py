"""Whether nginx may read a large body at all (its `auth_request`, asked with the request's
headers before the body is read): an anonymous client's upload is refused at its headers, and
never buffered to disk. The site checks everything again when the request reaches it; this only
decides who may send a body that large. Cheap: one indexed lookup of a token, or of a session."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from scoring.models import ApiToken


def _answer(allowed: bool, status: int) -> HttpResponse:
    response = HttpResponse(status=204 if allowed else status)
    response["Cache-Control"] = "private, no-store"
    return response


def submit(request: HttpRequest) -> HttpResponse:
    """A POST to the submissions API needs a live token (any other method has no body to read)."""

    if request.headers.get("X-Original-Method", "POST") != "POST":
        return _answer(True, 204)
    kind, _, presented = request.headers.get("Authorization", "").partition(" ")
    return _answer(kind.lower() == "bearer" and ApiToken.objects.authenticate(presented.strip()) is not None, 401)


def catalog_import(request: HttpRequest) -> HttpResponse:
    """A POST to the admin's archive import needs a staff session with the right to import (the
    form itself, GET, is the admin's to show or to send to the login page)."""
    if request.headers.get("X-Original-Method", "POST") != "POST":
        return _answer(True, 204)
    user = request.user
    return _answer(user.is_active and user.is_staff and user.has_perm("catalog.import_caseversion"), 403)
