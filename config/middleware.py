"""Security headers Django 5.2 does not set by itself; caching headers and compression for public responses."""

from __future__ import annotations

import re
from http import HTTPStatus

from django.conf import settings
from django.http import HttpResponse
from django.middleware.gzip import GZipMiddleware
from django.urls import Resolver404, resolve
from django.utils.cache import patch_cache_control, patch_vary_headers

from lib.api import is_problem, problem

API_PREFIX = "/api/"
API_METHODS = ("GET", "HEAD", "OPTIONS")
# The one place the API takes a write: operators' submissions (api/submissions.py).
API_WRITES = {"/api/v1/submissions/": ("POST",)}
# Writes at paths with an id in them: (pattern, methods, the largest body a write there may send).
API_WRITE_PATTERNS = ((re.compile(r"/api/v1/submissions/[^/]{1,100}/reviews/"), ("POST",), 16 << 10),)


def api_writes(path: str) -> tuple[tuple[str, ...], int | None]:
    """The write methods a path of the API takes, and its body cap (None: API_UPLOAD_MAX_BYTES)."""
    if path in API_WRITES:
        return API_WRITES[path], None
    for pattern, methods, cap in API_WRITE_PATTERNS:
        if pattern.fullmatch(path):
            return methods, cap
    return (), None


class SecurityHeadersMiddleware:
    """Adds Content-Security-Policy and Permissions-Policy to every response.

    The pages use no inline scripts or styles (charts and bars are SVG attributes), so the
    policy allows only this site's own files.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        return response


class PublicCachingMiddleware:
    """A short `Cache-Control: public` on what anonymous visitors GET, so browsers and proxies
    may keep a page briefly and then revalidate it with its ETag (ConditionalGetMiddleware
    answers 304 when it still matches). Staff pages, the admin and anything a view marked
    itself are left alone. An answer to a request that carried credentials (an operator's
    token) is the token holder's alone: `private, no-store`, varying by `Authorization`, so no
    shared cache keeps it or gives it to anyone else."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if "HTTP_AUTHORIZATION" in request.META:
            response.headers.pop("Cache-Control", None)
            patch_cache_control(response, private=True, no_store=True)
            patch_vary_headers(response, ("Authorization",))
        elif (request.method in ("GET", "HEAD") and response.status_code == 200 and "Cache-Control" not in response
                and not response.cookies
                and not request.path.startswith("/admin/") and not (user is not None and user.is_authenticated)):
            patch_cache_control(response, public=True, max_age=settings.PUBLIC_CACHE_SECONDS)
        elif user is not None and user.is_authenticated and "Cache-Control" not in response:
            patch_cache_control(response, private=True)  # what staff see is theirs alone
        return response


ALREADY_COMPRESSED = ("application/zip", "application/vnd.apache.parquet")


class SafeGZipMiddleware(GZipMiddleware):
    """gzip, but never for a response tied to a visitor (BREACH).

    BREACH recovers a secret from the size of compressed responses that also reflect what an
    attacker sends. The secrets here are the CSRF token and the session, so a response is left
    uncompressed when the request is authenticated, when a CSRF token was rendered or set
    (`CSRF_COOKIE_NEEDS_UPDATE`, which rendering a token sets), or when it sets any cookie. Archives and
    Parquet files are already compressed.
    """

    def process_response(self, request, response):
        user = getattr(request, "user", None)
        if ((user is not None and user.is_authenticated) or "HTTP_AUTHORIZATION" in request.META
                or request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
                or response.cookies or response.get("Content-Type", "").startswith(ALREADY_COMPRESSED)):
            return response
        return super().process_response(request, response)


class PageOptionsMiddleware:
    """OPTIONS on a page (outside /api/, which ApiMiddleware answers) is answered with `Allow`
    and no body, without running the view: rendering a page to answer OPTIONS would let any
    client cost a full render that no cache keeps."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method != "OPTIONS" or request.path.startswith(API_PREFIX):
            return self.get_response(request)
        try:
            resolve(request.path_info)
        except Resolver404:
            return HttpResponse(status=404)
        response = HttpResponse(status=204)
        response["Allow"] = "GET, HEAD, POST, OPTIONS" if request.path.startswith("/admin/") else "GET, HEAD, OPTIONS"
        return response


class ApiMiddleware:
    """Under /api/: GET, HEAD and OPTIONS (and POST where API_WRITES says), and every error a
    problem document (RFC 9457).

    Any other method is refused before any view (or the CSRF check) sees it; a write's length is
    checked before its body is read. HEAD runs the GET
    operation (the server sends the headers alone). OPTIONS answers with `Allow` (a CORS
    preflight is answered earlier, by django-cors-headers). An error page from anywhere else
    (an unknown path, a server error) is turned into a problem document with the same status.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        writes, cap = api_writes(request.path)
        methods = (*writes, "OPTIONS") if writes else API_METHODS  # a write path has nothing to read
        allow = ", ".join(methods)
        if request.method in writes:
            return self._write(request, cap)
        if request.method not in methods:
            detail = f"only {allow} here" if writes else "the API is read-only here"
            return problem(405, f"{request.method} is not allowed: {detail}", headers={"Allow": allow})
        if request.method == "OPTIONS":
            try:
                resolve(request.path_info)
            except Resolver404:
                return problem(404, "no such API path")
            response = HttpResponse(status=204)
            response["Allow"] = allow
            return response
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        try:
            response = self.get_response(request)
        finally:
            if head:
                request.method = "HEAD"
        if response.status_code >= 400 and not is_problem(response):
            detail = "no such API path" if response.status_code == 404 else HTTPStatus(response.status_code).phrase
            extra = {"Allow": allow} if response.status_code == 405 else {}
            response = problem(response.status_code, detail, headers=extra)
        return response

    def _write(self, request, cap: int | None = None):
        """A write, refused before its body is read when it is too long or does not say how long
        it is (nginx in front sends the length of what it buffered)."""
        from django.conf import settings

        try:
            length = int(request.META.get("CONTENT_LENGTH") or -1)
        except ValueError:
            length = -1
        if length < 0:
            return problem(411, "say how long the body is (Content-Length)", code="length_required")
        limit = settings.API_UPLOAD_MAX_BYTES if cap is None else cap
        if length > limit:
            return problem(413, f"the body is {length:,} bytes, more than the {limit:,} a write here may send",
                           code="too_large")
        response = self.get_response(request)
        if response.status_code >= 400 and not is_problem(response):
            response = problem(response.status_code, HTTPStatus(response.status_code).phrase)
        return response
