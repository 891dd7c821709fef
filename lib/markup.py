"""Markdown to safe HTML for descriptions and changelogs written by case authors.

Markdown passes raw HTML through, so the result is sanitised with nh3 (an allow-list: no
scripts, no event handlers, no `style`, no `javascript:` URLs). Headings are shifted down one
level so a document's `# Title` sits under the page's own heading.
"""

from __future__ import annotations

import functools
import re

import markdown
import nh3

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s", "strong", "sub", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "th": {"align"},
    "td": {"align"},
    "code": {"class"},  # fenced code's language-xyz
}
URL_SCHEMES = {"http", "https", "mailto"}
_HEADING = re.compile(r"<(/?)h([1-6])\b", re.IGNORECASE)
_TABLE = re.compile(r"<table>")
_TABLE_END = re.compile(r"</table>")
_SCROLL = '<div class="table-scroll" role="region" aria-label="Table" tabindex="0">'
# An image with no text alternative is invalid HTML and unread by a screen reader: one the author
# left without `alt` is taken as decoration (alt=""). The sanitiser's output quotes every value.
_IMAGE_WITHOUT_ALT = re.compile(r"<img\b(?![^>]*\salt=)")


def _shift_heading(match: re.Match) -> str:
    return f"<{match.group(1)}h{min(int(match.group(2)) + 1, 6)}"


@functools.lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    """Sanitised HTML for `text` (cached: versions are immutable, so the same text recurs)."""
    html = markdown.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    html = _HEADING.sub(_shift_heading, html)
    cleaned = nh3.clean(
        html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes=URL_SCHEMES,
        link_rel="nofollow noopener noreferrer", strip_comments=True,
    )
    cleaned = _IMAGE_WITHOUT_ALT.sub('<img alt=""', cleaned)
    # A wide table scrolls inside the page, not the page sideways; after sanitising, so the
    # wrapper is ours and the author's markup cannot add one.
    return _TABLE.sub(lambda match: _SCROLL + match.group(0), _TABLE_END.sub(lambda match: match.group(0) + "</div>",
                                                                             cleaned))
