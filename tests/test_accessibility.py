"""Small screens and assistive technology, in a real browser: no page wider than a phone, no
axe-core violation of WCAG 2.1 A and AA, focusable scroll regions, a visible focus outline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browsing import MISSING_ALT_PAGE, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


# Scroll regions whose content may be wider than they are, by design: the agents matrix (a column
# per case, a page of twelve) and the record progression's chart (its time axis).
SCROLLING_BY_DESIGN = ".matrix-scroll, .history .chart-scroll"


@pytest.mark.parametrize("width", [320, 375, 1440])
def test_no_page_is_wider_than_its_screen_nor_a_table_than_its_region(browser, site, shared_site, width):
    context = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=width < 1000)
    phone = context.new_page()
    try:
        cut = {}
        for kind, url in shared_site.page_kinds().items():
            phone.goto(site + url)
            scroll_width = phone.evaluate("document.documentElement.scrollWidth")
            # What sticks out: elements, and text (a text node can overflow the box it is in).
            wide = phone.evaluate("""(width) => {
                const out = [];
                const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
                while (walker.nextNode()) {
                    const range = document.createRange();
                    range.selectNodeContents(walker.currentNode);
                    const right = range.getBoundingClientRect().right;
                    const scroller = walker.currentNode.parentElement.closest('.table-scroll, pre');
                    if (right > width && !(scroller && scroller.getBoundingClientRect().right <= width))
                        out.push(walker.currentNode.textContent.trim().slice(0, 40));
                }
                return out.slice(0, 5);
            }""", width)
            assert scroll_width <= width, f"{kind} ({url}) is {scroll_width} px wide at {width} px: {wide}"
            # A table or chart wider than its region hides columns behind a sideways scroll.
            found = phone.evaluate("""(designed) => [...document.querySelectorAll('.table-scroll, .chart-scroll')]
                .filter(region => !region.matches(designed) && region.scrollWidth > region.clientWidth + 1)
                .map(region => `${region.getAttribute('aria-label')}: ` +
                               `${region.scrollWidth} px in ${region.clientWidth}`)""",
                                   SCROLLING_BY_DESIGN)
            if found:
                cut[kind] = found
        assert cut == {}, f"at {width} px: {cut}"
    finally:
        context.close()


def session_cookies(site) -> list[dict]:
    """The staff session's cookies, for a browser context."""
    pairs = (part.split("=", 1) for part in site.staff_cookie().split("; "))
    return [{"name": name, "value": value, "url": site.url} for name, value in pairs]


def _violations(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    # Every violation in full; the passes and the rest are not collected (they are not read here).
    result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                           "resultTypes: ['violations']})", WCAG)
    return [f"{violation['id']}: {violation['help']} ({len(violation['nodes'])}: "
            f"{violation['nodes'][0]['target']})" for violation in result["violations"]]


@pytest.mark.long
def test_axe_finds_no_wcag_violation_on_any_kind_of_page(browser, site, shared_site):
    # axe is injected as a script: the site's CSP (rightly) refuses it, so this context ignores the CSP.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    try:
        # The run can fail: an image with no text alternative, planted first, is a violation to axe.
        page.set_content(MISSING_ALT_PAGE)
        assert any(problem.startswith("image-alt:") for problem in _violations(page))
        found = {}
        for kind, url in shared_site.page_kinds().items():
            page.goto(site + url)
            found[kind] = _violations(page)
        for width in (375,):
            phone = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True,
                                        bypass_csp=True).new_page()
            phone.goto(site + "/cases/lattice/")
            found["case at 375 px"] = _violations(phone)
            phone.context.close()
        context.add_cookies(session_cookies(shared_site))
        for kind, url in shared_site.staff_page_kinds().items():
            page.goto(site + url)
            found[kind] = _violations(page)
        assert {kind: problems for kind, problems in found.items() if problems} == {}
    finally:
        context.close()


def test_wide_tables_scroll_in_labelled_focusable_regions(browser, site, shared_site):
    context = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    phone = context.new_page()
    try:
        for kind, url in shared_site.page_kinds().items():
            phone.goto(site + url)
            tables = phone.locator("main table")
            for index in range(tables.count()):
                region = tables.nth(index).locator("xpath=ancestor::div[contains(@class, 'table-scroll')][1]")
                assert region.count() == 1, f"a table on {kind} is not in a scroll region"
                assert region.get_attribute("role") == "region" and region.get_attribute("tabindex") == "0"
                assert region.get_attribute("aria-label"), kind
        phone.goto(site + shared_site.page_kinds()["submission"])
        phone.keyboard.press("Tab")
        for _ in range(40):  # the results table is reachable by keyboard
            if phone.evaluate("document.activeElement.getAttribute('aria-label')") == "Results per held-out input":
                break
            phone.keyboard.press("Tab")
        else:
            pytest.fail("the results region never took the focus")
    finally:
        context.close()


def _luminance(colour: str) -> float:
    red, green, blue = (int(colour[index:index + 2], 16) / 255 for index in (1, 3, 5))
    linear = [part / 12.92 if part <= 0.03928 else ((part + 0.055) / 1.055) ** 2.4 for part in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_focus_outline_stands_out_on_every_background():
    css = (Path(ROOT) / "static/css/site.css").read_text()
    outline = re.search(r":focus-visible \{ outline: \dpx solid (#[0-9a-f]{6})", css).group(1)
    variables = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6});", css))
    backgrounds = {"#ffffff"} | {variables[name] for name in ("soft", "ok-bg", "warn-bg", "bad-bg")}
    backgrounds |= set(re.findall(r"\.site-header \{ background: (#[0-9a-f]{6})", css))
    assert len(backgrounds) == 6
    assert {background: round(contrast(outline, background), 2) for background in backgrounds
            if contrast(outline, background) < 3} == {}
