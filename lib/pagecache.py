"""Caching whole public pages, keyed by the content generation (catalog.ContentGeneration).

A cached page is served only while the generation it was rendered at is current; any import,
scoring result, rescore or hide bumps the generation, so nothing stale is ever served and no
cross-process invalidation is needed. Only anonymous GETs are cached (staff see an admin link),
and the experimental setting is part of the key.
"""

from __future__ import annotations

import functools
import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse


def cached_page(view):
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if not settings.PAGE_CACHE_SECONDS or request.method != "GET" or request.user.is_authenticated:
            return view(request, *args, **kwargs)
        from catalog.models import ContentGeneration

        path = hashlib.sha256(request.get_full_path().encode("utf-8", "surrogatepass")).hexdigest()
        key = f"page:{ContentGeneration.current()}:{int(settings.CATALOG_SHOW_EXPERIMENTAL)}:{path}"
        hit = cache.get(key)
        if hit is not None:
            content, content_type = hit
            return HttpResponse(content, content_type=content_type)
        response = view(request, *args, **kwargs)
        if response.status_code == 200 and not response.streaming:
            cache.set(key, (response.content, response["Content-Type"]), settings.PAGE_CACHE_SECONDS)
        return response

    return wrapper
