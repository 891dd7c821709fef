"""The case pages: the list, one case version, and a variant's take-part kit."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse

from catalog.forms import CaseFilterForm
from catalog.kits import UnsafeKitMember, kit_for, limits_of
from catalog.models import CaseVersion, Tag, UnknownTarget
from catalog.published import held_out_file
from catalog.reading import counted_cases, shown_version, varied_at_will, version_generations
from engine.toolchain import RUST_RELEASE
from lib.paging import BadPage, page_of
from lib.siteurl import site_url
from scoring.agents import observed
from scoring.boards.reading import leaders
from scoring.epochs import board_engine
from scoring.reviews import review_items
from sitecache.models import AGENTS_SNAPSHOT, BEST_FUEL, CATALOG
from sitecache.pages import cached_page, canonical_parameters, not_kept, page, query_without, text
from web.downloads import download
from web.errors import bad_request

CASES_PER_PAGE = 24
# The query parameters the case list reads (and so its cache key holds).
CASE_LIST_PARAMETERS = (text("q"), text("tag"), text("difficulty"), page())


def list_scope(request: HttpRequest) -> list[str]:
    """What the case list shows: the catalog, and each latest version's best fuel."""
    return [CATALOG, BEST_FUEL]


def version_scope(request: HttpRequest, slug: str) -> list[str]:
    """What a board's pages show: the version `?version=` names (none: the latest)."""
    return version_generations(slug, request.GET.get("version") or None)


def case_scope(request: HttpRequest, slug: str, version: str | None = None) -> list[str]:
    """What a case page shows: the version its URL names (none: the latest). Not `?version=`,
    which the page does not read: keyed by it, a page of the latest version could be stored
    under the generation another version has, and be served after the latest moved. It shows
    what the agents matrix observed too."""
    return [*version_generations(slug, version), AGENTS_SNAPSHOT]


@cached_page(*CASE_LIST_PARAMETERS, scope=list_scope)
def case_list(request: HttpRequest) -> HttpResponse:
    form = CaseFilterForm(request.GET)
    if not form.is_valid():
        return render(request, "catalog/case_list.html", {"form": form, "page": None, "tags": []}, status=400)
    try:
        shown = page_of(Paginator(counted_cases(form.cleaned_data), CASES_PER_PAGE), request.GET.get("page"))
    except BadPage as bad:
        return bad_request(request, str(bad))
    tags = list(Tag.objects.shown().values_list("name", flat=True))
    filtered = any(form.cleaned_data.values())
    response = render(request, "catalog/case_list.html", {
        "form": form, "page": shown, "tags": tags, "filtered": filtered, "leaders": leaders(list(shown)),
        "page_query": query_without(request, CASE_LIST_PARAMETERS),
        # "/" and "/cases/" are the same page; the query parameters it reads, normalised.
        "canonical": site_url(reverse("case-list") + (
            "?" + urlencode(canonical_parameters(request, CASE_LIST_PARAMETERS))
            if canonical_parameters(request, CASE_LIST_PARAMETERS) else "")),
    })
    # A search, or a tag no case carries, could be anything: rendered, never stored.
    return not_kept(response) if varied_at_will(form.cleaned_data, tags) else response


SCHEMA_SHOWN_BYTES = 32 * 1024  # a larger contract schema is left to the kit


def contract_schemas(version: CaseVersion) -> list[dict]:
    """The contract's input and output schemas: path, size, and the text when it is short."""
    paths = list(dict.fromkeys([version.contract_input, version.contract_output]))
    sizes = dict(version.files.filter(path__in=paths).values_list("path", "size"))
    short = [path for path in paths if sizes.get(path, 0) <= SCHEMA_SHOWN_BYTES]
    texts = {path: bytes(content).decode("utf-8", errors="replace")
             for path, content in version.files.filter(path__in=short).values_list("path", "content")}
    return [{"path": path, "size": sizes.get(path, 0), "text": texts.get(path)} for path in paths]


def kit(request: HttpRequest, slug: str, version: str, variant: str) -> HttpResponseBase:
    """A variant's take-part zip: the same bytes on every download, with a strong ETag."""
    case_version = public_version_or_404(slug, version)
    chosen = case_version.variants.filter(slug=variant).first()
    if chosen is None:
        raise Http404("No such variant")
    try:
        made = kit_for(case_version, chosen, board_engine(case_version))
    except UnsafeKitMember:  # a version imported before validation refused such names
        raise Http404("This variant has no kit that can be offered safely") from None
    return download(request, made.digest, f"{slug}-{case_version.version}-{chosen.slug}.zip",
                    lambda: HttpResponse(bytes(made.content), content_type="application/zip"))


def held_out(request: HttpRequest, slug: str, version: str) -> FileResponse:
    """A retired version's held-out inputs and expected answers (catalog/published.py); a 404
    while the version is current."""
    case_version = public_version_or_404(slug, version)
    if case_version.retired_at is None:
        raise Http404("This version is current: its held-out inputs are published once it is retired")
    path = held_out_file(case_version)
    return download(request, case_version.digest, f"{slug}-{case_version.version}-held-out.zip",
                    lambda: FileResponse(open(path, "rb"), content_type="application/zip"))


def public_version_or_404(slug: str, version: str | None = None) -> CaseVersion:
    try:
        return shown_version(slug, version)
    except UnknownTarget as unknown:
        raise Http404(unknown.message) from None


@cached_page(scope=case_scope)
def case_detail(request: HttpRequest, slug: str, version: str | None = None) -> HttpResponse:
    case_version = public_version_or_404(slug, version)
    versions = list(
        CaseVersion.objects.public_versions_of(case_version.case).values("version", "experimental", "imported_at")
    )
    context = {
        "version": case_version,
        "case": case_version.case,
        "versions": versions,
        "is_latest": versions[0]["version"] == case_version.version,
        "variants": list(case_version.variants.all()),
        "inputs": list(case_version.held_out_inputs.order_by("position").values("kind", "input_path", "fuel_runway",
                                                                                "ceiling")),
        "schemas": contract_schemas(case_version),
        "limits": limits_of(case_version),
        "compiler": f"rustc {RUST_RELEASE}",
        "review_items": review_items(case_version),
        "observed": observed(case_version),
        # The latest version shows at /cases/<slug>/ and at its own URL; the versioned one is permanent.
        "canonical": site_url(reverse("case-version", args=[slug, case_version.version])),
        # Staff see what validation warned of (staff pages are never cached).
        "template_warnings": case_version.template_warnings if request.user.is_staff else [],
    }
    return render(request, "catalog/case_detail.html", context)
