from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.http import HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import path, re_path, register_converter

from api.main import api
from api.main import docs as api_docs
from catalog.manifest import VERSION_PATTERN
from config import permits
from lib.urlparts import NameConverter
from web import about, agents, boards, cases, datasets, docs, epochs, feeds, standings


class VersionConverter:
    """A version folder name (catalog rule): anything else is not a URL of this site."""

    regex = VERSION_PATTERN.pattern.removeprefix("^").removesuffix("$")

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(VersionConverter, "version")
# A model's or a submitter's name, slashes and all (lib/urlparts.py: every name round-trips).
register_converter(NameConverter, "name")


def health(request):
    """For load balancers: the process answers. It touches nothing else."""
    return HttpResponse("ok\n", content_type="text/plain")


def api_moved(request, rest: str):
    """The first API's URLs (`/api/cases/`…) moved, unchanged, under `/api/v1/`."""
    return HttpResponsePermanentRedirect("/api/v1/" + request.get_full_path()[len("/api/"):])


def favicon(request):
    """Browsers ask for /favicon.ico on pages that name no icon (the admin's).

    The URL is looked up per request: with hashed static files it comes from the manifest,
    which must not be needed just to import the URLconf.
    """
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


urlpatterns = [
    path("", cases.case_list, name="home"),
    path("cases/", cases.case_list, name="case-list"),
    path("cases/<slug:slug>/", cases.case_detail, name="case-detail"),
    # Before <version>/: "leaderboard" is reserved, no version folder may take the name.
    path("cases/<slug:slug>/leaderboard/", boards.leaderboard, name="leaderboard"),
    path("cases/<slug:slug>/<version:version>/", cases.case_detail, name="case-version"),
    path("cases/<slug:slug>/<version:version>/kit/<slug:variant>.zip", cases.kit, name="kit"),
    path("cases/<slug:slug>/<version:version>/held-out.zip", cases.held_out, name="held-out"),
    path("cases/<slug:slug>/<version:version>/counted-by/<int:epoch>/", epochs.counted_by, name="counted-by"),
    path("changes/", epochs.changes, name="changes"),
    path("about/", about.about, name="about"),
    path("docs/", docs.page, name="docs"),
    path("docs/screenshots/<str:file>", docs.image, name="docs-image"),
    path("docs/<slug:name>/", docs.page, name="docs-page"),
    path("standings/", standings.standings, name="standings"),
    path("agents/", agents.agents, name="agents"),
    path("agents/<name:model>/", agents.agent, name="agent"),
    path("submitters/<name:name>/", standings.submitter, name="submitter"),
    path("submissions/<int:pk>/", boards.submission_detail, name="submission-detail"),
    path("submissions/<int:pk>/module.wasm", boards.submission_module, name="submission-module"),
    path("submissions/<int:a>/compare/<int:b>/", boards.submission_compare, name="submission-compare"),
    path("datasets/latest/<str:file>", datasets.dataset_file, name="dataset-file"),
    path("api/v1/docs", api_docs, name="api-docs"),
    # nginx's auth_request before it reads a large body (config/nginx.conf.template).
    path("upload-permit/submit/", permits.submit, name="permit-submit"),
    path("upload-permit/import/", permits.catalog_import, name="permit-import"),
    path("api/v1/", api.urls),
    re_path(r"^api/(?!v1(?:/|$))(?P<rest>.*)$", api_moved),
    path("admin/", admin.site.urls),
    path("health/", health, name="health"),
    path("robots.txt", feeds.robots, name="robots"),
    path("sitemap.xml", sitemap, {"sitemaps": feeds.SITEMAPS}, name="sitemap"),
    path("feeds/versions.atom", feeds.NewVersionsFeed(), name="feed-versions"),
    path("feeds/records/", feeds.RecordsFeed(), name="feed-records"),
    path("feeds/changes.atom", feeds.ChangesFeed(), name="feed-changes"),
    path("feeds/cases/<slug:slug>/records/", feeds.CaseRecordsFeed(), name="feed-case-records"),
    path("favicon.ico", favicon),
]
