"""A file to download whose bytes never change for its ETag (a kit, a retired version's data, an
entry's module): a strong ETag, a 304 when the client has it, an hour's public caching."""

from __future__ import annotations

from typing import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import get_conditional_response


def download(request: HttpRequest, digest: str, filename: str, respond: Callable[[], HttpResponseBase],
             *, revalidate: bool = False) -> HttpResponseBase:
    """`respond()`'s response (made only when the client does not hold `digest` already) as an
    attachment named `filename`. Kept by caches for an hour, or, with `revalidate` (a download
    that may be withdrawn), only as long as the site still answers for it: a cache asks again
    each time, and a copy it holds costs only a 304."""
    etag = f'"{digest}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        response = respond()
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
    elif response.status_code != 304:
        return response  # a failed precondition (412): nothing for a cache to keep
    # A 304 carries them too (RFC 9110 §15.4.5): a cache refreshes what it holds from it.
    response["ETag"] = etag
    response["Cache-Control"] = "public, no-cache" if revalidate else "public, max-age=3600"
    return response
