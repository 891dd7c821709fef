"""What crawlers and feed readers read: the sitemap, an Atom feed of new versions, robots.txt."""

from __future__ import annotations

from django.contrib.sitemaps import Sitemap
from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from catalog.models import CaseVersion

FEED_ITEMS = 50


class PagesSitemap(Sitemap):
    """The pages that are not a case."""

    def items(self) -> list[str]:
        return ["case-list", "standings", "about"]

    def location(self, item: str) -> str:
        return reverse(item)


class VersionsSitemap(Sitemap):
    """Every shown version of every case (its page is permanent: versions never change)."""

    limit = 5000

    def items(self):
        return CaseVersion.objects.public().select_related("case").order_by("case__slug", "ordinal")

    def location(self, version: CaseVersion) -> str:
        return reverse("case-version", args=[version.case.slug, version.version])

    def lastmod(self, version: CaseVersion):
        return version.imported_at


SITEMAPS = {"pages": PagesSitemap, "versions": VersionsSitemap}


class NewVersionsFeed(Feed):
    """An Atom feed of the newest published case versions."""

    feed_type = Atom1Feed
    title = "Fuelboard: new case versions"
    subtitle = "Performance test cases as they are published."

    def link(self) -> str:
        return reverse("case-list")

    def items(self):
        return CaseVersion.objects.public().select_related("case").order_by("-imported_at", "-pk")[:FEED_ITEMS]

    def item_title(self, version: CaseVersion) -> str:
        return f"{version.name} {version.version}"

    def item_description(self, version: CaseVersion) -> str:
        return version.summary

    def item_link(self, version: CaseVersion) -> str:
        return reverse("case-version", args=[version.case.slug, version.version])

    def item_pubdate(self, version: CaseVersion):
        return version.imported_at

    def item_categories(self, version: CaseVersion) -> list[str]:
        return [version.difficulty, *version.tag_names]


def robots(request: HttpRequest) -> HttpResponse:
    lines = ["User-agent: *", "Disallow: /admin/", f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain")
