"""Every kind of page, anonymous and as staff, through checkers nobody here wrote: the Nu HTML
Checker (the W3C's validator, `vnu-jar`) and pa11y's HTML_CodeSniffer runner (WCAG 2 AA), both
pinned in package-lock.json. Zero errors from either; and every id an attribute names exists."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.browsing import MISSING_ALT_PAGE, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
PA11Y = ROOT / "tests" / "oracles" / "pa11y.mjs"
# Attributes whose value names other elements' ids.
ID_REFERENCES = re.compile(r'\s(aria-describedby|aria-labelledby|aria-controls|aria-owns|for|headers|list)="([^"]*)"')


def pages(site) -> dict[str, tuple[str, str]]:
    """kind → (path, Cookie header): every page kind, anonymous, then as staff."""
    cookie = site.staff_cookie()
    return {**{kind: (path, "") for kind, path in {**site.page_kinds(), **site.manual_pages()}.items()},
            **{kind: (path, cookie) for kind, path in site.staff_page_kinds().items()}}


def fetch(url: str, cookie: str) -> str:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read().decode()
    except urllib.error.HTTPError as refused:  # the 400 and 404 pages are page kinds too
        return refused.read().decode()


@pytest.fixture(scope="module")
def saved_pages(shared_site, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    saved = {}
    for index, (kind, (path, cookie)) in enumerate(pages(shared_site).items()):
        saved[kind] = folder / f"{index:02d}.html"
        saved[kind].write_text(fetch(shared_site.url + path, cookie))
    return saved


def test_the_nu_html_checker_finds_no_error_on_any_kind_of_page_and_the_one_planted_beside_them(saved_pages, tmp_path):
    """One run of the checker over every page and a planted one beside them, which shows the run
    can fail: a `<time>` with microseconds, as the pages once had, is an error to it."""
    assert VNU.exists(), "the Nu HTML Checker is installed by `make test` (npm: vnu-jar)"
    planted = tmp_path / "planted.html"
    planted.write_text('<!DOCTYPE html><html lang="en"><head><title>t</title></head><body>'
                       '<time datetime="2026-12-04T16:55:27.654761+00:00">then</time></body></html>')
    done = subprocess.run(["java", "-jar", str(VNU), "--format", "json", "--errors-only", str(planted),
                           *map(str, saved_pages.values())], capture_output=True, text=True, timeout=300)
    messages = json.loads(done.stderr or done.stdout)["messages"]
    kinds = {f"file:{path}": kind for kind, path in {"planted": planted, **saved_pages}.items()}
    errors = [(kinds.get(message.get("url"), message.get("url")), f"line {message.get('lastLine')}: "
               f"{message['message']}")
              for message in messages if message["type"] in ("error", "non-document-error")]
    assert [error for kind, error in errors if kind != "planted"] == []
    assert any("fraction of a second" in error for kind, error in errors if kind == "planted"), errors
    assert done.returncode == 1  # the checker's own verdict: errors found (the planted page's only)


def test_every_site_page_describes_itself_for_search_results(saved_pages):
    """A `<meta name="description">` on every page of the site (the admin's are not for search),
    saying what that page is: the pages of one kind share none with another."""
    found = {}
    for kind, path in saved_pages.items():
        html = path.read_text()
        if "/admin/" in kind or kind.startswith("admin"):
            continue
        description = re.search(r'<meta name="description" content="([^"]*)">', html)
        assert description and len(description.group(1).strip()) >= 20, kind
        found[kind] = description.group(1)
    assert found["leaderboard"] != found["case"] != found["submission"] != found["standings"]
    assert "Lattice" in found["leaderboard"] and "example-fast" in found["submitter"]


def test_every_id_an_attribute_names_is_on_the_page(saved_pages):
    missing = []
    for kind, path in saved_pages.items():
        html = path.read_text()
        ids = set(re.findall(r'\sid="([^"]+)"', html))
        for attribute, value in ID_REFERENCES.findall(html):
            missing += [f"{kind}: {attribute}={name}" for name in value.split() if name not in ids]
    assert missing == []


@pytest.mark.long
def test_pa11y_finds_no_wcag2aa_error_on_any_kind_of_page_and_the_one_planted_beside_them(shared_site, tmp_path):
    """One browser for every page and a planted one beside them, which shows the run can fail: an
    image with no text alternative is an error to HTML_CodeSniffer."""
    planted = tmp_path / "planted.html"
    planted.write_text(MISSING_ALT_PAGE)
    cookie = shared_site.staff_cookie()
    pages = [{"name": "planted", "url": planted.as_uri()}]
    pages += [{"name": kind, "url": shared_site.url + path} for kind, path in shared_site.page_kinds().items()]
    pages += [{"name": kind, "url": shared_site.url + path, "headers": {"Cookie": cookie}}
              for kind, path in shared_site.staff_page_kinds().items()]
    done = subprocess.run(["node", str(PA11Y)], input=json.dumps({"pages": pages}), capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    issues = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(issues) == sorted(page["name"] for page in pages)
    assert any(issue["code"].endswith("H37") for issue in issues.pop("planted")), issues
    assert {kind: [f"{issue['code']}: {issue['selector']}" for issue in errors]
            for kind, errors in issues.items() if errors} == {}

