"""What crawlers and feed readers read: the sitemap, robots.txt, and the Atom feeds of new versions,
of new records (on any case, and on one case: its latest public versions' boards) and of the
site's changes (web/epochs.py)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape

from catalog.manifest import SLUG_PATTERN
from catalog.models import Case, CaseVersion
from engine.progress import fuel_text
from lib.siteurl import SiteFeed, SiteSitemap, site_url
from scoring.history import newest_records
from web.epochs import changes_list

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


class ChangesFeed(SiteFeed):
    """An Atom feed of the site's changes: the engine it counts fuel with, versions retired."""

    feed_type = Atom1Feed
    title = "Fuelboard: changes to the site"
    subtitle = "The engine fuel is counted by, and versions retired."

    def feed_path(self, obj) -> str:
        return reverse("feed-changes")

    def link_path(self) -> str:
        return reverse("changes")

    def items(self):
        return changes_list()[:FEED_ITEMS]

    def item_title(self, change) -> str:
        return change.title

    def item_description(self, change) -> str:
        return escape(change.text)

    def item_path(self, change) -> str:
        return change.path

    def item_guid(self, change) -> str:
        return site_url(reverse("changes")) + "#" + change.key

    def item_pubdate(self, change):
        return change.when


class RecordsFeed(SiteFeed):
    """New records on any case's leaderboard."""

    feed_type = Atom1Feed
    title = "Fuelboard: new records"
    subtitle = "Entries that beat the best passing fuel on a leaderboard when they were scored."

    def feed_path(self, obj) -> str:
        return reverse("feed-records")

    def link_path(self) -> str:
        return reverse("case-list")

    def items(self):
        return newest_records(FEED_ITEMS)

    def item_title(self, step) -> str:
        version = step.version
        return f"{version.name} {version.version}: {fuel_text(step.total_fuel)} fuel by {step.submission.name}"

    def item_description(self, step) -> str:
        parts = [f"{step.submission.name} set a record of {fuel_text(step.total_fuel)} fuel on "
                 f"{step.version.name} {step.version.version} (variant {step.submission.variant.slug})."]
        if step.submission.model:
            parts.append(f"Model: {step.submission.model}.")
        if step.submission.annotation:
            parts.append(f"Staff note: {step.submission.annotation}")
        # An Atom summary is HTML: readers decode the XML, then render what it says. So the
        # names, models and notes in it are escaped as HTML here, not just as XML by the feed.
        return escape(" ".join(parts))

    def item_path(self, step) -> str:
        return reverse("submission-detail", args=[step.submission_id])

    def item_guid(self, step) -> str:
        return f"record:{step.version_id}:{step.submission_id}"

    item_guid_is_permalink = False

    def item_pubdate(self, step):
        return step.scored_at

    def item_updateddate(self, step):
        return step.scored_at

    def item_author_name(self, step) -> str:
        return step.submission.name


class CaseRecordsFeed(RecordsFeed):
    """New records on one case's leaderboards (any of its public versions)."""

    def get_object(self, request, slug: str):
        case = Case.objects.filter(slug=slug).first() if SLUG_PATTERN.fullmatch(slug) else None
        if case is None or not CaseVersion.objects.public_versions_of(case).exists():
            raise Http404("No such case")
        return case

    def title(self, case) -> str:
        return f"Fuelboard: new records on {case.slug}"

    def feed_path(self, case) -> str:
        return reverse("feed-case-records", args=[case.slug])

    def link(self, case) -> str:
        return site_url(reverse("leaderboard", args=[case.slug]))

    def items(self, case):
        return newest_records(FEED_ITEMS, version__case=case)


def robots(request: HttpRequest) -> HttpResponse:
    lines = ["User-agent: *", "Disallow: /admin/", f"Sitemap: {site_url(reverse('sitemap'))}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain")
