"""A file to download whose bytes never change for its ETag (a kit, a retired version's data, an
entry's module): a strong ETag, a 304 when the client has it, an hour's public caching."""

from __future__ import annotations

from typing import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import get_conditional_response


def download(request: HttpRequest, digest: str, filename: str, respond: Callable[[], HttpResponseBase]
             ) -> HttpResponseBase:
    """`respond()`'s response (made only when the client does not hold `digest` already) as an
    attachment named `filename`."""
    etag = f'"{digest}"'
    not_modified = get_conditional_response(request, etag=etag)
    if not_modified is not None:
        return not_modified
    response = respond()
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["ETag"] = etag
    response["Cache-Control"] = "public, max-age=3600"
    return response
