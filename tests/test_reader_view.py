"""What a reader sees, in a real browser at a phone's width and a desktop's: the headline figures
in view, "×" only ever a speedup against a reference, and tied standings sharing their place."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Each page's headline figures: the columns a reader comes for, by their header's words.
HEADLINES = {
    "/cases/lattice/leaderboard/": ("Total fuel", "Speedup"),
    "/agents/": ("Cases solved", "Speedup vs. the reference"),
    "/standings/": ("Score", "Speedup vs. the reference"),
}

# The columns (by header), options and sentences where "×" may stand: speedups and their thresholds.
SPEEDUP_PLACES = """(node) => {
    const element = node.parentElement;
    if (element.closest('.speedup')) return true;
    const option = element.closest('option');
    if (option) return option.textContent.trim().startsWith('speedup ≥');
    const cell = element.closest('td, th');
    if (cell && cell.tagName === 'TD') {
        const table = cell.closest('table');
        const header = table && table.tHead ? table.tHead.rows[0].cells[cell.cellIndex] : null;
        const words = header ? header.textContent : '';
        return /Speedup|as fast as the reference/.test(words);
    }
    return /speedup|reference|as fast/i.test(element.closest('p, li, dd, figcaption, th, label')?.textContent || '');
}"""


@pytest.mark.parametrize("width", [375, 1440])
def test_every_headline_figure_is_in_view(browser, site, width):
    """Each headline column's cell on the first rows, or where a narrow screen hides the column,
    the same figure shown in the row (`.speedup`): inside the viewport, with no sideways scroll."""
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 1000,
                                  java_script_enabled=False)
    page = context.new_page()
    try:
        for path, headers in HEADLINES.items():
            page.goto(site + path)
            for header in headers:
                boxes = page.evaluate("""(header) => {
                    const table = document.querySelector('table.board');
                    const index = [...table.tHead.rows[0].cells].findIndex(cell => cell.textContent.includes(header));
                    if (index < 0) return null;
                    const shown = element => element && element.getClientRects().length > 0;
                    return [...table.tBodies[0].rows].slice(0, 3).map(row => {
                        let figure = row.cells[index];
                        if (!shown(figure)) figure = [...row.querySelectorAll('.speedup')].find(shown);
                        if (!figure) return null;
                        const box = figure.getBoundingClientRect();
                        return [box.left, box.right];
                    });
                }""", header)
                assert boxes, f"{path}: no column {header!r}"
                for box in boxes:
                    assert box, f"{path} at {width} px: {header!r} is nowhere in a row"
                    left, right = box
                    assert 0 <= left and right <= width, f"{path} at {width} px: {header!r} at {left}–{right}"
    finally:
        context.close()


def test_times_is_only_ever_a_speedup(browser, site, shared_site):
    page = browser.new_context(java_script_enabled=False, viewport={"width": 1440, "height": 900}).new_page()
    # The site's own figures: every page but the author's prose (a case's description and
    # changelog) and the manual.
    kinds = {kind: path for kind, path in shared_site.page_kinds().items()
             if kind not in ("case", "version", "api docs", "docs", "docs page")}
    stray = {}
    for kind, path in kinds.items():
        page.goto(site + path)
        found = page.evaluate("""(allowed) => {
            const check = eval(allowed);
            const out = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            while (walker.nextNode()) {
                const node = walker.currentNode;
                if (node.textContent.includes('×') && !check(node)) out.push(node.textContent.trim().slice(0, 60));
            }
            return out;
        }""", SPEEDUP_PLACES)
        if found:
            stray[kind] = found
    assert stray == {}


def test_tied_standings_share_their_place(page, own_site):
    for name in ("twin-a", "twin-b"):  # the same module on the same case: the same score, solved once each
        own_site.manage("score", "rising", "--submission", "solutions/rising/accepted/fast", "--name", name)
    own_site.manage("refresh_standings")
    page.goto(own_site.url + "/standings/")
    places = {row.locator("td").nth(1).inner_text(): row.locator("td").nth(0).inner_text()
              for row in page.locator("table.standings tbody tr").all()}
    assert places["twin-a"] == places["twin-b"] and places["twin-a"].startswith("=")
    document = own_site.json("/api/v1/standings/")
    ranks = {line["name"]: (line["rank"], line["shared_rank"]) for line in document["results"]}
    # Every line of the same score and cases solved shares the place of the first of them.
    assert ranks["twin-a"][1] == ranks["twin-b"][1] <= min(ranks["twin-a"][0], ranks["twin-b"][0])
    assert places["twin-a"] == f"={ranks['twin-a'][1]}"
