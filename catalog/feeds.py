"""What crawlers and feed readers read: the sitemap, an Atom feed of new versions, robots.txt."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from catalog.models import CaseVersion
from lib.siteurl import SiteFeed, SiteSitemap, site_url

FEED_ITEMS = 50


class PagesSitemap(SiteSitemap):
    """The pages that are not a case."""

    def items(self) -> list[str]:
        return ["case-list", "standings", "about"]

    def location(self, item: str) -> str:
        return reverse(item)


class VersionsSitemap(SiteSitemap):
    """Every shown version of every case (its page is permanent: versions never change)."""

    limit = 5000

    def items(self):
        return CaseVersion.objects.public().select_related("case").order_by("case__slug", "ordinal")

    def location(self, version: CaseVersion) -> str:
        return reverse("case-version", args=[version.case.slug, version.version])

    def lastmod(self, version: CaseVersion):
        return version.imported_at


SITEMAPS = {"pages": PagesSitemap, "versions": VersionsSitemap}


class NewVersionsFeed(SiteFeed):
    """An Atom feed of the newest published case versions."""

    feed_type = Atom1Feed
    title = "Fuelboard: new case versions"
    subtitle = "Performance test cases as they are published."

    def feed_path(self, obj) -> str:
        return reverse("feed-versions")

    def link_path(self) -> str:
        return reverse("case-list")

    def items(self):
        return CaseVersion.objects.public().select_related("case").order_by("-imported_at", "-pk")[:FEED_ITEMS]

    def item_title(self, version: CaseVersion) -> str:
        return f"{version.name} {version.version}"

    def item_description(self, version: CaseVersion) -> str:
        return version.summary

    def item_path(self, version: CaseVersion) -> str:
        return reverse("case-version", args=[version.case.slug, version.version])

    def item_pubdate(self, version: CaseVersion):
        return version.imported_at

    def item_categories(self, version: CaseVersion) -> list[str]:
        return [version.difficulty, *version.tag_names]


def robots(request: HttpRequest) -> HttpResponse:
    lines = ["User-agent: *", "Disallow: /admin/", f"Sitemap: {site_url(reverse('sitemap'))}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain")
