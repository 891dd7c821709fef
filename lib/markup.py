"""Markdown to safe HTML: descriptions and changelogs written by case authors, and the manual.

Markdown passes raw HTML through, so the result is sanitised with nh3 (an allow-list: no
scripts, no event handlers, no `style`, no `javascript:` URLs). An author's headings are shifted
down one level so a document's `# Title` sits under the page's own heading. The manual
(`render_manual`) goes through the same pipeline, its headings kept and given the ids GitHub
gives them, so a link to `settings.md#scoring_build_cpus` works on the site and on GitHub alike.
"""

from __future__ import annotations

import functools
import re

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
# A link whose address the sanitiser dropped (`javascript:`) is no link: `rel` on it is invalid
# HTML, so it goes too (the text stays, a placeholder link with its title).
_LINK_WITHOUT_HREF = re.compile(r"<a\b(?![^>]*\shref=)([^>]*?)\s+rel=\"[^\"]*\"")


def _shift_heading(match: re.Match) -> str:
    return f"<{match.group(1)}h{min(int(match.group(2)) + 1, 6)}"


@functools.lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    """Sanitised HTML for `text` (cached: versions are immutable, so the same text recurs)."""
    return _render(text, shift_headings=True)


AUTHOR_LINK_REL = "nofollow noopener noreferrer"  # an author's links are not the site's endorsement


def _render(text: str, *, shift_headings: bool, attributes: dict | None = None, link_rel: str | None = AUTHOR_LINK_REL,
            rewrite=None) -> str:
    # Imported where it is used: the Markdown package takes a twentieth of a second to import, and
    # most processes (commands, task workers) never render a document.
    import markdown

    html = markdown.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    if shift_headings:
        html = _HEADING.sub(_shift_heading, html)
    if rewrite is not None:
        html = rewrite(html)
    cleaned = nh3.clean(
        html, tags=ALLOWED_TAGS, attributes=attributes or ALLOWED_ATTRIBUTES, url_schemes=URL_SCHEMES,
        link_rel=link_rel, strip_comments=True,
    )
    cleaned = _LINK_WITHOUT_HREF.sub(r"<a\1", _IMAGE_WITHOUT_ALT.sub('<img alt=""', cleaned))
    # A wide table scrolls inside the page, not the page sideways; after sanitising, so the
    # wrapper is ours and the author's markup cannot add one.
    return _TABLE.sub(lambda match: _SCROLL + match.group(0), _TABLE_END.sub(lambda match: match.group(0) + "</div>",
                                                                             cleaned))


# --- the manual ------------------------------------------------------------------------------------

_HEADING_TEXT = re.compile(r"<h([2-6])>(.*?)</h\1>", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_MANUAL_LINK = re.compile(r'(href|src)="([a-z0-9][a-z0-9/_.-]*?)(\.md|\.png)(#[^"]*)?"')
MANUAL_ATTRIBUTES = {**ALLOWED_ATTRIBUTES, **{f"h{level}": {"id"} for level in range(2, 7)}}


def heading_slug(text: str) -> str:
    """The id GitHub gives a heading: lower case, spaces to `-`, every other character but letters,
    digits, `-` and `_` dropped."""
    return "".join(character for character in text.strip().lower().replace(" ", "-")
                   if character.isalnum() or character in "-_")


def heading_ids(html: str) -> str:
    """Each heading with its id; a repeated one gets `-1`, `-2`… as on GitHub."""
    import html as entities

    seen: dict[str, int] = {}

    def identified(match: re.Match) -> str:
        slug = heading_slug(entities.unescape(_TAGS.sub("", match.group(2))))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        unique = slug if count == 0 else f"{slug}-{count}"
        return f'<h{match.group(1)} id="{unique}">{match.group(2)}</h{match.group(1)}>'

    return _HEADING_TEXT.sub(identified, html)


def render_manual(text: str, page_url, image_url) -> str:
    """A page of the manual (Markdown from `docs/`) as sanitised HTML: headings with their ids,
    links to another page (`settings.md#x`) through `page_url(name)` and images (`screenshots/x.png`)
    through `image_url(path)`. The manual is the project's own: its links are followed."""
    def rewrite(html: str) -> str:
        def linked(match: re.Match) -> str:
            attribute, path, suffix, anchor = match.groups()
            if attribute == "href" and suffix == ".md":
                return f'href="{page_url(path)}{anchor or ""}"'
            if attribute == "src" and suffix == ".png":
                return f'src="{image_url(path + suffix)}"'
            return match.group(0)

        return _MANUAL_LINK.sub(linked, heading_ids(html))

    return _render(text, shift_headings=False, attributes=MANUAL_ATTRIBUTES, link_rel=None, rewrite=rewrite)
