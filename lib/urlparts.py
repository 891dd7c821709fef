"""A free-text name (a model: `openai/gpt-5.1`, `claude-x@2026-10`, `my model`) as a part of a URL
path that gives the same name back, whatever the name.

Most names go as they are, slashes included, and Django's `reverse()` percent-encodes what a path
may not hold. A name that a browser, nginx or the path itself would change is escaped whole
instead: an empty segment (`a//b`, a leading or trailing `/`: merged or lost), a dot segment
(`.`, `..`: resolved away by every browser), or a leading `~` (the escape's mark). Escaped, it is
`~` and the name percent-encoded with nothing kept (so one segment, no dots alone); `reverse()`
encodes the `%` once more and the server decodes it once, so `to_name()` sees the `~` form.
"""

from __future__ import annotations

from typing import Callable
from urllib.parse import quote, unquote

ESCAPE = "~"
MAX_NAME = 100  # as a model's name (scoring's Submission.model)
DOT_SEGMENTS = ("", ".", "..")


def _goes_as_it_is(name: str) -> bool:
    return not name.startswith(ESCAPE) and all(segment not in DOT_SEGMENTS for segment in name.split("/"))


def to_part(name: str) -> str:
    """The path part of `name` (before `reverse()` encodes it)."""
    return name if _goes_as_it_is(name) else ESCAPE + quote(name, safe="")


def to_name(part: str) -> str:
    """The name a (decoded) path part stands for."""
    return unquote(part[len(ESCAPE):], errors="strict") if part.startswith(ESCAPE) else part


class NameConverter:
    """A URL converter (`<name:model>`) that round-trips every name through `to_part` / `to_name`."""

    regex = ".+"

    def to_python(self, value: str) -> str:
        try:
            name = to_name(value)
        except UnicodeDecodeError:
            raise ValueError("not a name") from None
        if len(name) > MAX_NAME or any(ord(character) < 32 or character == "\x7f" for character in name):
            raise ValueError("not a name")  # a control character or overlong: no name can be (a 404)
        return name

    def to_url(self, value: str) -> str:
        return to_part(value)


def name_paths(url_name: str) -> Callable[[str], str]:
    """`reverse(url_name, args=[name])` for many names at the cost of one `reverse()` (a page of
    the agents matrix links up to 200 of them): the name's part, quoted as `reverse()` quotes it,
    in the path reversed once around a plain placeholder. For a URL with one `<name:…>` part."""
    from django.urls import reverse
    from django.utils.http import RFC3986_SUBDELIMS

    placeholder = "name-placeholder"
    head, tail = reverse(url_name, args=[placeholder]).rsplit(placeholder, 1)
    return lambda name: head + quote(to_part(name), safe=RFC3986_SUBDELIMS + "/~:@") + tail
