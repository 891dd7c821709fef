"""The pieces every JSON API operation shares: problem documents (RFC 9457), one way to page a
list, and documents validated against the operation's schema. Plain: it knows no app (the
API's page cache is api/caching.py)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any
from urllib.parse import urlencode

from django.core.paginator import EmptyPage, Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import Field, Schema
from pydantic import BaseModel, StringConstraints, WithJsonSchema

from lib.siteurl import site_url

PROBLEM_TYPE = "application/problem+json"
PAGE_SIZE = 50  # a list's default page
PAGE_SIZE_MAX = 200  # the most `?page_size=` may ask for
PAGE_MAX = 10**9  # the largest page number the API reads
DATE = r"^\d{4}-\d{2}-\d{2}$"  # a date as YYYY-MM-DD (the form behind it checks it is one)
SINCE = "only the cases first published on or after this date (YYYY-MM-DD)"
# A date parameter: text of the date's form (never a number read as one), said as a date in the schema.
DateParameter = Annotated[str | None, StringConstraints(pattern=DATE),
                          WithJsonSchema({"type": "string", "format": "date", "pattern": DATE})]
# A text parameter (a search, a tag, a model): one line, no control characters. In the schema
# as each such parameter's `pattern`, so that a client knows the rule before it is refused.
ONE_LINE = r"^[^\x00-\x1f\x7f]*$"
ONE_LINE_MESSAGE = "must be one line of text, without control characters"


class Problem(Schema):
    """An error (RFC 9457). `errors` names each query parameter that was refused, and why."""

    type: str = Field("about:blank", description="about:blank: the status says what went wrong")
    title: str = Field(..., description="the HTTP status phrase")
    status: int
    detail: str = Field(..., description="what was wrong with this request")
    code: str | None = Field(None,
                             description="a stable name of the refusal (the submissions API), for clients to act on")
    errors: dict[str, list[str]] | None = Field(None, description="per parameter: why its value was refused")


class ApiProblem(Exception):
    """Raise to answer with a problem document."""

    def __init__(self, status: int, detail: str, errors: dict[str, list[str]] | None = None, code: str | None = None):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors
        self.code = code


def bad_parameters(errors: dict[str, list[str]]) -> ApiProblem:
    """The one refusal of parameters that break their rules, whichever check found it."""
    return ApiProblem(400, "invalid parameter: " + ", ".join(sorted(errors)), errors=errors, code="bad_field")


def problem(status: int, detail: str, *, errors: dict[str, list[str]] | None = None, code: str | None = None,
            headers: dict[str, str] | None = None) -> JsonResponse:
    document = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status, "detail": detail}
    if code:
        document["code"] = code
    if errors:
        document["errors"] = errors
    response = JsonResponse(document, status=status, content_type=PROBLEM_TYPE,
                            json_dumps_params={"ensure_ascii": True})
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def is_problem(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith(PROBLEM_TYPE)


def page_links(request: HttpRequest, items, *, page: int, page_size: int, query: dict[str, Any],
               names: tuple[str, str] = ("page", "page_size"), default_size: int = PAGE_SIZE) -> tuple[list, dict]:
    """One page of `items` (anything a Paginator takes) and {count, next, previous}.

    The links are absolute and built from the validated parameters in `query` (never from the
    raw query string: a cached document is served to every request that reads the same way).
    A page past the last is a 404 (page 1 of an empty list is an empty page). `names` are the
    page's and the page size's parameters (a document paged two ways names the second pair).
    """
    paginator = Paginator(items, page_size)
    try:
        shown = paginator.page(page)
    except EmptyPage:
        raise ApiProblem(404, f"there is no {names[0]} {page}: the last is {paginator.num_pages}") from None
    kept = {name: value for name, value in query.items() if value not in (None, "", False)}
    if page_size != default_size:
        kept[names[1]] = page_size

    def link(number: int) -> str:
        parameters = {**kept, **({names[0]: number} if number != 1 else {})}
        parameters = {name: ("1" if value is True else value) for name, value in parameters.items()}
        return site_url(request.path + ("?" + urlencode(sorted(parameters.items())) if parameters else ""))

    return list(shown), {
        "count": paginator.count,
        "next": link(shown.next_page_number()) if shown.has_next() else None,
        "previous": link(shown.previous_page_number()) if shown.has_previous() else None,
    }


def document(schema: type[BaseModel], data: dict) -> JsonResponse:
    """`data` checked against the operation's response schema, as JSON: a field the schema does
    not promise fails here, in the tests, instead of surprising a client."""
    return JsonResponse(schema.model_validate(data).model_dump(mode="json"))
