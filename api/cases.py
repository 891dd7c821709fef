"""The catalog in the API: the case list and one case version. Never any held-out data."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from ninja import Field, Query, Router, Schema

from api.caching import cached_document
from catalog.forms import CaseFilterForm
from catalog.manifest import DIFFICULTIES
from catalog.models import CaseVersion
from catalog.reading import counted_cases, shown_version, varied_at_will
from catalog.runrecords import RUN_RECORD_SCHEMA
from lib.api import ONE_LINE, PAGE_MAX, PAGE_SIZE, PAGE_SIZE_MAX, Problem, bad_parameters, document, page_links
from lib.siteurl import site_url
from scoring.agents import observed
from sitecache.models import AGENTS_SNAPSHOT, BEST_FUEL, CATALOG
from sitecache.pages import not_kept

router = Router(tags=["catalog"])

Difficulty = Literal[DIFFICULTIES]  # type: ignore[valid-type]


class CaseSummary(Schema):
    slug: str
    name: str
    summary: str
    difficulty: str
    tags: list[str]
    experimental: bool
    latest_version: str
    best_fuel: int | None = Field(..., description="the lowest total fuel of a ranked entry on the latest version")
    entries: int = Field(..., description="ranked and unranked entries on the latest version")
    changed_at: datetime = Field(..., description="when the latest version was published")
    first_published_at: datetime = Field(..., description="when the case was first published (its first version's "
                                                          "import): what ?since= on the standings and agents reads")
    url: str = Field(..., description="the case page")
    api_url: str


class CaseList(Schema):
    count: int
    next: str | None
    previous: str | None
    results: list[CaseSummary]


class Variant(Schema):
    slug: str
    name: str
    default: bool
    specs: list[str] = Field(..., description="the variant's own spec files, as laid out for a solver")
    kit_url: str = Field(..., description="a zip of everything a solver starts from")


class Contract(Schema):
    entry: str = Field(..., description="the exported function the scorer calls")
    input: str = Field(..., description="the input's JSON Schema (a file of the version)")
    output: str


class Sandbox(Schema):
    fuel_limit: int
    max_memory_bytes: int


class Inputs(Schema):
    smoke: int
    stress: int


class Spread(Schema):
    low: float
    median: float
    high: float
    agents: int = Field(..., description="the agents whose best entry solved it")


class Observed(Schema):
    agents: int = Field(..., description="agents with a trial on this version (the agents matrix, as of its last "
                                         "refresh)")
    trials: int
    solved_trials: int
    solved_share: float | None = Field(..., description="solved_trials ÷ trials; null without a trial")
    speedups: Spread | None = Field(..., description="the spread of the agents' best speedups against the reference "
                                                     "(reference fuel ÷ their best); null without a reference or a "
                                                     "solving agent")


class CaseDetail(Schema):
    slug: str
    name: str
    version: str
    versions: list[str] = Field(..., description="every published version, newest first")
    published_at: datetime
    first_published_at: datetime = Field(..., description="when the case was first published (its first version's "
                                                          "import)")
    observed: Observed = Field(..., description="how hard the version proved to the agents that tried it, beside its "
                                                "author's difficulty")
    difficulty: str
    experimental: bool
    tags: list[str]
    summary: str
    description: str = Field(..., description="Markdown, as the author wrote it")
    changelog: str
    variants: list[Variant]
    specs: list[str]
    contract: Contract
    sandbox: Sandbox
    inputs: Inputs
    url: str
    leaderboard_url: str
    retired_at: datetime | None = Field(..., description="when the version was retired (its board frozen, its "
                                                         "held-out data published); null while it is current")
    held_out_url: str | None = Field(..., description="its held-out inputs and expected answers (a zip), once it "
                                                      "is retired; null while it is current")


def case_summary(request: HttpRequest, version: CaseVersion) -> dict:
    slug = version.case.slug
    return {
        "slug": slug, "name": version.name, "summary": version.summary, "difficulty": version.difficulty,
        "tags": version.tag_names, "experimental": version.experimental, "latest_version": version.version,
        "best_fuel": version.best_fuel, "entries": version.entry_count, "changed_at": version.imported_at,
        "first_published_at": version.case.created_at,
        "url": site_url(reverse("case-detail", args=[slug])),
        "api_url": site_url(reverse("api-v1:case", args=[slug])),
    }


@router.get("/cases/", response={200: CaseList, 400: Problem, 404: Problem}, url_name="cases")
def case_list(request: HttpRequest,
              q: str | None = Query(None, max_length=100, pattern=ONE_LINE, description="part of the name"),
              tag: str | None = Query(None, max_length=100, pattern=ONE_LINE),
              difficulty: Difficulty | None = None,
              page: int = Query(1, ge=1, le=PAGE_MAX),
              page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX)):
    """The latest published version of every case, by name; filtered like the case list page."""
    form = CaseFilterForm({"q": q or "", "tag": tag or "", "difficulty": difficulty or ""})
    if not form.is_valid():
        raise bad_parameters({name: [error["message"] for error in errors]
                              for name, errors in form.errors.get_json_data().items()})
    query = {name: value or None for name, value in form.cleaned_data.items()}

    def render():
        versions, links = page_links(request, counted_cases(form.cleaned_data), page=page, page_size=page_size,
                                     query=query)
        response = document(CaseList, {**links, "results": [case_summary(request, version) for version in versions]})
        return not_kept(response) if varied_at_will(form.cleaned_data) else response

    return cached_document(request, {**query, "page": page, "page_size": page_size}, [CATALOG, BEST_FUEL], render)


@router.get("/cases/{slug}/", response={200: CaseDetail, 400: Problem, 404: Problem}, url_name="case")
def case_detail(request: HttpRequest, slug: str,
                version: str | None = Query(None, max_length=100, description="a version (default: the latest)")):
    """One published version of a case: what a solver needs, and where its kit and leaderboard are."""

    def render():
        found = shown_version(slug, version or None)
        versions = CaseVersion.objects.public_versions_of(found.case).values_list("version", flat=True)
        return document(CaseDetail, {
            "slug": found.case.slug, "name": found.name, "version": found.version, "versions": list(versions),
            "published_at": found.imported_at, "first_published_at": found.case.created_at,
            "observed": observed(found), "difficulty": found.difficulty, "experimental": found.experimental,
            "tags": found.tag_names, "summary": found.summary, "description": found.description,
            "changelog": found.changelog,
            "variants": [
                {"slug": variant.slug, "name": variant.name, "default": variant.is_default,
                 "specs": [spec["dest"] for spec in variant.specs],
                 "kit_url": site_url(reverse("kit", args=[found.case.slug, found.version, variant.slug]))}
                for variant in found.variants.all()
            ],
            "specs": [spec["dest"] for spec in found.specs],
            "contract": {"entry": found.contract_entry, "input": found.contract_input, "output": found.contract_output},
            "sandbox": {"fuel_limit": found.fuel_limit, "max_memory_bytes": found.max_memory_bytes},
            "inputs": {"smoke": found.smoke_count, "stress": found.stress_count},
            "url": site_url(reverse("case-version", args=[found.case.slug, found.version])),
            "leaderboard_url": site_url(
                reverse("api-v1:leaderboard", args=[found.case.slug]) + f"?version={found.version}"),
            "retired_at": found.retired_at,
            "held_out_url": site_url(reverse("held-out", args=[found.case.slug, found.version]))
            if found.retired_at else None,
        })

    return cached_document(request, {"version": version or None}, [CATALOG, AGENTS_SNAPSHOT], render)


@router.get("/schemas/run-record.json", url_name="run-record-schema", tags=["schemas"],
            openapi_extra={"responses": {200: {"description": "a JSON Schema (draft 2020-12)",
                                               "content": {"application/schema+json": {"schema": {"type":
                                               "object"}}}}}})
def run_record_schema(request: HttpRequest):
    """The JSON Schema of a run record: what `seed_run --record` writes and `score --run-record` reads."""
    response = JsonResponse(RUN_RECORD_SCHEMA, json_dumps_params={"indent": 2})
    response["Content-Type"] = "application/schema+json"
    return response
