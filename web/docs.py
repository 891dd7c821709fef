"""The manual (`/docs/`): the Markdown pages of the repository's `docs/` folder, rendered by the
site through the same Markdown and sanitiser pipeline as a case's description, so the manual a
reader sees always describes the code that is running. A page's first line is its title."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from lib.markup import render_manual

PAGE_NAME = re.compile(r"[a-z][a-z0-9-]*")
IMAGE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*\.png")
INDEX = "index"


def folder() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def page_names() -> list[str]:
    """The manual's pages, the index first, then as the index lists them."""
    names = sorted(path.stem for path in folder().glob("*.md") if PAGE_NAME.fullmatch(path.stem))
    index = (folder() / f"{INDEX}.md").read_text()
    listed = [name for name in re.findall(r"\]\(([a-z0-9-]+)\.md", index) if name in names]
    return [INDEX, *dict.fromkeys(listed), *(name for name in names if name not in listed and name != INDEX)]


def page_url(name: str) -> str:
    return reverse("docs") if name == INDEX else reverse("docs-page", args=[name])


@functools.lru_cache(maxsize=64)
def _rendered(name: str, changed: int) -> tuple[str, str, str]:
    """(title, lead, HTML body) of a page; `changed` (the file's mtime) keys the cache."""
    text = (folder() / f"{name}.md").read_text()
    title, _, rest = text.partition("\n")
    body = render_manual(rest, page_url, lambda path: reverse("docs-image", args=[path.removeprefix("screenshots/")]))
    lead = next((paragraph.replace("\n", " ") for paragraph in rest.strip().split("\n\n")
                 if paragraph and not paragraph.startswith(("#", "|", "```", "-"))), "")
    return title.removeprefix("# ").strip(), re.sub(r"[`*\[\]]|\(.*?\.md[^)]*\)", "", lead)[:300], body


def page(request: HttpRequest, name: str = INDEX) -> HttpResponse:
    names = page_names()
    if name not in names or (name == INDEX and request.resolver_match.url_name == "docs-page"):
        raise Http404("no such page in the manual")
    path = folder() / f"{name}.md"
    title, lead, body = _rendered(name, path.stat().st_mtime_ns)
    pages = [(other, _rendered(other, (folder() / f"{other}.md").stat().st_mtime_ns)[0], page_url(other))
             for other in names]
    return render(request, "docs/page.html", {"title": title, "description": lead, "body": body, "name": name,
                                              "pages": pages, "nav": "docs"})


def image(request: HttpRequest, file: str) -> FileResponse:
    """A screenshot the manual shows (docs/screenshots/)."""
    # Looked up among the folder's own files: the name asked for never reaches the file system
    # (one of 300 characters is an error there, not a miss).
    if not IMAGE_NAME.fullmatch(file) or file not in {path.name for path in (folder() / "screenshots").glob("*.png")}:
        raise Http404("no such image")
    return FileResponse(open(folder() / "screenshots" / file, "rb"), content_type="image/png")
