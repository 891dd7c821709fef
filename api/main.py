"""The JSON API, version 1: reads for everyone, entries written by operators with a token,
paginated, its OpenAPI schema generated from the code.

The operations live in api/cases.py, api/results.py, api/agents.py and api/submissions.py; this
module puts them under `/api/v1/`, answers every error with a problem document (RFC 9457) and
serves the schema and its documentation page. Methods other than GET, HEAD and OPTIONS (and POST
on the submissions) never reach an operation (config.middleware.ApiMiddleware answers 405).
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.http import Http404, HttpRequest
from django.shortcuts import render
from django.urls import reverse
from ninja import Field, NinjaAPI, Schema
from ninja.errors import AuthenticationError, ValidationError

from api.agents import router as agents_router
from api.cases import router as catalog_router
from api.results import router as scoring_router
from api.submissions import router as submissions_router
from catalog.models import UnknownTarget
from lib.api import ONE_LINE, ONE_LINE_MESSAGE, PROBLEM_TYPE, ApiProblem, bad_parameters, problem
from lib.openapi import describe
from lib.siteurl import site_url
from scoring.boards.reading import BadModel
from scoring.compare import NotComparable
from scoring.dataset.folders import CROISSANT, latest_export
from scoring.intake import IntakeRefused
from scoring.standings import BadFilter


class Api(NinjaAPI):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._schemas: dict = {}

    def get_openapi_operation_id(self, operation) -> str:
        return operation.view_func.__name__  # `leaderboard`, not `scoring_api_leaderboard`

    def get_openapi_schema(self, *, path_prefix: str | None = None, path_params=None):
        """Ninja's schema, with errors under their real media type (application/problem+json).

        Built once per process (it depends on the code alone: 100–200 ms a build, on every
        request to /api/v1/openapi.json or the docs page until it was kept)."""
        key = (path_prefix, repr(path_params))
        if key not in self._schemas:
            self._schemas[key] = self._build_schema(path_prefix=path_prefix, path_params=path_params)
        return self._schemas[key]

    def _build_schema(self, **kwargs):
        schema = super().get_openapi_schema(**kwargs)
        _what_a_submission_sends(schema)
        for item in schema["paths"].values():
            for operation in item.values():
                # Any request line longer than the front takes (8 KiB under make serve).
                operation.setdefault("responses", {})[414] = {
                    "description": "URI Too Long: the request line is longer than the server reads",
                    "content": {PROBLEM_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}}
                # Any operation, from the front's per-client limits (requests a second, connections).
                operation["responses"].setdefault(429, {
                    "description": "Too Many Requests: more than one client address may send (the front's limits); "
                                   "wait and send again (Retry-After, when given, says how long)",
                    "content": {PROBLEM_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}})
                for status, response in operation.get("responses", {}).items():
                    if str(status).startswith(("4", "5")) and "application/json" in response.get("content", {}):
                        response["content"] = {PROBLEM_TYPE: response["content"]["application/json"]}
        return schema


def _what_a_submission_sends(schema: dict) -> None:
    """What Ninja cannot say of the submissions operation from its signature: exactly one of the
    two files (in words), and where a client finds the entry it made (links to poll it)."""
    for item in schema["paths"].values():
        operation = item.get("post")
        if not operation or operation.get("operationId") != "submit":
            continue
        body = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
        # Exactly one of the two files, in words (a 422 `one_source` otherwise): a top-level oneOf
        # makes a generated client's body untyped, and `not` or if/then stop checkers.
        body["description"] = "Send exactly one of the files `source` and `wasm` (a 422 `one_source` otherwise)."
        links = {"GetSubmission": {"operationId": "submission", "parameters": {"pk": "$response.body#/submission"}},
                 "GetSubmissionDetail": {"operationId": "submission_detail",
                                         "parameters": {"pk": "$response.body#/submission"}}}
        responses = {str(status): answer for status, answer in operation["responses"].items()}
        for status in ("200", "202"):
            responses[status]["links"] = links
        responses["202"]["headers"] = {"Location": {"description": "the entry's document, to poll",
                                                     "schema": {"type": "string"}}}


api = Api(
    title="Performance test cases",
    version="1",
    description="The catalog of performance test cases and their results, in JSON, paginated: every list has "
                "count, next, previous and results; every error is a problem document. Reading needs nothing; "
                "operators submit entries with a token (Authorization: Bearer), which the site builds and "
                "measures itself.",
    urls_namespace="api-v1",
    docs_url=None,  # the site's own page, /api/v1/docs (no script, no asset from elsewhere)
    openapi_url="/openapi.json",
)
api.add_router("", catalog_router)
api.add_router("", scoring_router)
api.add_router("", agents_router)
api.add_router("", submissions_router)


def _location(error: dict) -> str:
    """A pydantic error's parameter name (`["query", "page"]` → `page`)."""
    parts = [str(part) for part in error.get("loc", ()) if part not in ("query", "path", "form", "file", "body")]
    return ".".join(parts) or "request"


def _message(error: dict) -> str:
    if error.get("type") == "string_pattern_mismatch" and (error.get("ctx") or {}).get("pattern") == ONE_LINE:
        return ONE_LINE_MESSAGE
    return error.get("msg", "invalid")


# The operations that take a form (multipart/form-data), and what it holds: another body is refused as such.
FORM_OPERATIONS = {"submit": "case, name, version, variant and meta fields, and a source, wasm or record file"}


@api.exception_handler(ValidationError)
def invalid_parameters(request: HttpRequest, exc: ValidationError):
    operation = getattr(request.resolver_match, "url_name", None)
    if operation in FORM_OPERATIONS and request.content_type != "multipart/form-data":
        return problem(415, f"this operation takes multipart/form-data ({FORM_OPERATIONS[operation]}), not "
                            f"{request.content_type or 'a body without a type'}: send a form, as curl -F does",
                       code="form_expected")
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(_location(error), []).append(_message(error))
    return api_problem(request, bad_parameters(errors))


@api.exception_handler(ApiProblem)
def api_problem(request: HttpRequest, exc: ApiProblem):
    return problem(exc.status, exc.detail, errors=exc.errors, code=exc.code)


@api.exception_handler(Http404)
def not_found(request: HttpRequest, exc: Http404):
    return problem(404, str(exc) or "not found")


# Domain errors keep their meaning to the edge: what names nothing is a 404, what is malformed a 400.
@api.exception_handler(UnknownTarget)
def unknown_target(request: HttpRequest, exc: UnknownTarget):
    return problem(404, exc.message)


@api.exception_handler(BadFilter)
def bad_filter(request: HttpRequest, exc: BadFilter):
    if exc.code in ("unknown_tag", "unknown_harness"):  # well-formed, and names nothing: as an unknown variant is
        return problem(404, exc.message)
    field = next((name for name in ("tag", "harness", "sort") if exc.message.startswith(f"{name}: ")), "difficulty")
    return api_problem(request, bad_parameters({field: [exc.message.removeprefix(f"{field}: ")]}))


@api.exception_handler(BadModel)
def bad_model(request: HttpRequest, exc: BadModel):
    return api_problem(request, bad_parameters({"model": [exc.message]}))


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, exc: AuthenticationError):
    return problem(401, "a live API token is needed: Authorization: Bearer <token>", code="bad_token",
                   headers={"WWW-Authenticate": 'Bearer realm="api"'})


@api.exception_handler(IntakeRefused)
def intake_refused(request: HttpRequest, exc: IntakeRefused):
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return problem(exc.status, exc.message, code=exc.code, headers=headers)


@api.exception_handler(NotComparable)
def not_comparable(request: HttpRequest, exc: NotComparable):
    return problem(400, str(exc))


class Index(Schema):
    cases: str
    standings: str
    agents: str
    openapi: str
    docs: str
    dataset: str | None = Field(None, description="the latest export of the site's public data as a dataset: its "
                                                  "Croissant metadata, beside its Parquet tables and card "
                                                  "(/docs/dataset/); null while the site keeps none")


@api.get("/", response=Index, url_name="index", tags=["index"])
def index(request: HttpRequest):
    """Where everything is."""
    dataset = latest_export(settings.DATASET_DIR)
    return {name: site_url(reverse(f"api-v1:{target}"))
            for name, target in (("cases", "cases"), ("standings", "standings"), ("agents", "agents"),
                                 ("openapi", "openapi-json"))} | {
        "docs": site_url(reverse("api-docs")),
        "dataset": site_url(reverse("dataset-file", args=[CROISSANT])) if dataset else None}


@functools.lru_cache(maxsize=1)
def _described() -> dict:
    return describe(api.get_openapi_schema(path_prefix=reverse("api-v1:index")))


def docs(request: HttpRequest):
    """The API's documentation, rendered on the server from the generated schema (read once)."""
    return render(request, "api/docs.html", {"api": _described(), "nav": "api",
                                             "schema_url": reverse("api-v1:openapi-json")})
