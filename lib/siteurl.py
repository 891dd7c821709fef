"""Absolute links, from the configured site URL (settings.SITE_URL), never from a request.

A request's Host header is the client's to choose: links built from it would let a client put
any host into a cached page, and keying the cache by it would let a client miss the cache at
will. So every absolute link — API lists and documents, feeds, the sitemap, canonical links —
starts from SITE_URL, and the page cache does not look at the Host at all.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.syndication.views import Feed


def site_url(path: str = "/") -> str:
    """`path` (from `reverse()`, starting with /) as an absolute URL of this site."""
    return settings.SITE_URL + path


class SiteSitemap(Sitemap):
    """A sitemap whose locations start from SITE_URL (Django's take the request's host)."""

    def get_protocol(self, protocol=None) -> str:
        return urlsplit(settings.SITE_URL).scheme

    def get_domain(self, site=None) -> str:
        return urlsplit(settings.SITE_URL).netloc


class SiteFeed(Feed):
    """An Atom feed whose links start from SITE_URL: Django adds the request's host only to a
    link that is not absolute already, so each of them is made absolute here. Subclasses give
    `feed_path(obj)`, `link_path()` and `item_path(item)`."""

    def feed_url(self, obj) -> str:
        return site_url(self.feed_path(obj))

    def link(self, obj) -> str:
        return site_url(self.link_path())

    def item_link(self, item) -> str:
        return site_url(self.item_path(item))
