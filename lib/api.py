"""Small helpers for the JSON API views."""

from __future__ import annotations

import functools

from django.http import Http404, JsonResponse


def json_view(view):
    """Return the view's dict as JSON; a 404 becomes a JSON error instead of an HTML page."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            result = view(request, *args, **kwargs)
        except Http404 as missing:
            return JsonResponse({"error": str(missing) or "not found"}, status=404)
        if isinstance(result, tuple):
            document, status = result
            return JsonResponse(document, status=status)
        return JsonResponse(result)

    return wrapper
