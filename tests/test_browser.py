"""A real browser (Debian's Chromium through Playwright) on the served bundled catalog, JavaScript off.

Filters the case list, opens a case, switches versions, opens a leaderboard and a submission,
opens the standings, compares a submission with the leader, follows a carried entry, and
imports an archive through the admin. Screenshots go to docs/screenshots/ (the README
shows them).
"""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from tests.browsing import ROOT, SCREENSHOTS
from tests.served import STAFF

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def shot(page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_browse_filter_open_switch_versions_leaderboard_and_submission(page, site):
    page.goto(site + "/")
    assert page.locator(".card").count() == 5
    shot(page, "case-list")

    page.select_option("#id_difficulty", "hard")
    page.click("button:has-text('Filter')")
    assert page.locator(".card h2").all_inner_texts() == ["Lattice"]
    page.goto(site + "/cases/")
    page.fill("#id_q", "ris")
    page.click("button:has-text('Filter')")
    assert page.locator(".card h2").all_inner_texts() == ["Rising"]
    page.goto(site + "/cases/")
    page.select_option("#id_tag", "prefix-sums")
    page.click("button:has-text('Filter')")
    assert page.locator(".card h2").all_inner_texts() == ["Range Sums"]

    page.click("text=Range Sums")
    assert page.url.endswith("/cases/range-sums/")
    assert page.locator("[aria-current=page]").inner_text() == "v4"
    shot(page, "case-page")

    page.click(".versions >> text=v1")
    assert page.url.endswith("/cases/range-sums/v1/")
    assert page.locator(".versions [aria-current=page]").inner_text() == "v1"
    assert page.locator("text=not the latest version").is_visible()

    page.click("text=Full leaderboard for v1")
    assert "/cases/range-sums/leaderboard/" in page.url
    assert page.locator("details.filters-box").get_attribute("open") is not None  # v1 is a choice: shown
    page.select_option("#id_version", "v4")
    page.click("button:has-text('Show')")
    assert "version=v4" in page.url
    rows = page.locator("table.board tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").nth(0).inner_text() == "1"
    assert "example-fast" in rows.nth(0).inner_text()

    page.goto(site + "/cases/lattice/leaderboard/")
    assert page.locator("ol.bar-list li").count() == 2  # the ranked entries' totals, after the table
    assert "starter" in page.locator("table.board").inner_text()
    assert not page.locator("#id_model").is_visible()  # the filters are folded away until asked for
    page.click("details.filters-box > summary")
    assert page.locator("#id_model").is_visible()
    shot(page, "leaderboard")

    page.click("table.board >> text=example-naive")
    assert "/submissions/" in page.url
    assert page.locator("h1").inner_text().startswith("Submission #")
    assert page.locator("table.results:not(.samples) .status-passed:visible").count() == 8
    assert page.locator("table.samples .status-passed:visible").count() == 2  # the public samples, unscored
    shot(page, "submission")

    page.goto(site + "/cases/lattice/leaderboard/")
    page.click("table.board >> text=starter")
    assert page.locator(".results .status-wrong_answer").count() >= 1
    assert page.locator(".results .status-skipped:visible").count() == 2


@pytest.mark.parametrize("width, height", [(320, 568), (375, 667), (1440, 900)])
def test_the_numbers_a_page_exists_for_are_in_the_first_screen(browser, site, shared_site, width, height):
    """At a phone's width and a desktop's: on the leaderboard, the fuel column and the first row
    are on the first screen with nothing to scroll sideways; on a submission, its total fuel and
    the fuel of each input; chart labels are 12 px or more and a chart point a 24 px target."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": width, "height": height},
                                  is_mobile=width < 800)
    page = context.new_page()
    page.goto(site + "/cases/lattice/leaderboard/")

    def box(selector: str) -> dict:
        found = page.locator(selector).first.bounding_box()
        assert found is not None, f"{selector} is not shown at {width} px"
        return found

    fuel = box("table.board thead th:has-text('Total fuel')")
    first_row = box("table.board tbody tr")
    assert fuel["x"] >= 0 and fuel["x"] + fuel["width"] <= width, fuel
    assert first_row["y"] + first_row["height"] <= height, first_row
    scroller = page.evaluate("() => { const s = document.querySelector('.table-scroll'); return [s.scrollWidth, "
                             "s.clientWidth]; }")
    assert scroller[0] <= scroller[1], f"the board scrolls sideways at {width} px"
    for label in page.locator(".step-chart text.chart-label").all():
        assert label.bounding_box()["height"] >= 12, "a chart label is smaller than 12 px"
    for target in page.locator(".step-chart .chart-hit").all():
        assert target.bounding_box()["width"] >= 24, "a chart point is a target under 24 px"
    if width == 375:
        shot(page, "leaderboard-phone")
    page.goto(site + f"/submissions/{shared_site.submission('lattice', 'example-naive')}/")
    total = box(".summary dt:has-text('Total fuel') + dd")
    assert total["y"] + total["height"] <= height and total["x"] + total["width"] <= width, total
    column = box("table.results thead th:has-text('Fuel')")
    assert column["x"] + column["width"] <= width, column
    assert "Rank 2" in page.locator(".place").inner_text()
    if width == 375:
        shot(page, "submission-phone")
    context.close()


def test_pages_fit_a_phone(browser, site):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    phone.goto(site + "/cases/lattice/")
    assert phone.locator("h1").is_visible()
    for region in ("main", ".side-column", "table.board"):
        box = phone.locator(region).first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, region  # nothing spills sideways
    shot(phone, "case-page-phone")
    context.close()


def test_standings_compare_and_carried_entries(page, own_site):
    site = own_site.url
    page.goto(site + "/")
    page.click("nav >> text=Standings")
    assert page.url.endswith("/standings/")
    rows = page.locator("table.standings tbody tr")
    # The examples (fast and naive on four cases, disjoint-set and breadth-first on components), the
    # starter, and the two harness runs (tests/served.py).
    assert rows.count() == 7
    assert rows.nth(0).locator("td").nth(1).inner_text() == "example-fast"
    assert rows.nth(0).locator("td").nth(3).inner_text() == "4/5"  # fast solved every published case it has
    assert "0.5 + 1.0 = 1.5" in page.locator(".method").inner_text()
    shot(page, "standings")
    page.click("details.filters-box > summary")
    page.select_option("#id_difficulty", "hard")
    page.click("button:has-text('Filter')")
    assert "difficulty=hard" in page.url
    assert page.locator("table.standings tbody tr").count() == 3  # the starter entered lattice, which is hard
    assert "1 case" in page.locator(".lead").inner_text()
    with page.expect_download() as download:
        page.click("text=Download as CSV")
    assert download.value.suggested_filename.startswith("standings-hard-")

    page.goto(site + "/cases/lattice/leaderboard/")
    page.click("table.board >> text=example-naive")
    page.click("text=Compare with the leader")
    assert "/compare/" in page.url
    assert page.locator(".ratio-list rect.chart-bar.slower").count() >= 1  # naive used more fuel
    assert page.locator("table.compare tbody tr").count() == 8
    shot(page, "compare")

    # The examples are on v4 already, from the same source under the same name: never carried twice.
    # An entry only v1 has is carried.
    own_site.manage("score", "range-sums", "--version", "v1", "--submission", "solutions/range-sums/accepted/fast",
                    "--name", "only-on-v1")
    said = own_site.manage("carry_forward", "range-sums", "--to", "v4", "--from", "v1", "--top", "10")
    assert "3 entries, 1 new, 2 already there" in said
    page.goto(site + "/cases/range-sums/leaderboard/?all=1")
    assert page.locator("table.board .badge.carried").count() == 1
    page.click("table.board tr:has(.badge.carried) >> a >> nth=0")
    page.click("dd >> text=#")  # "Carried from #N on v1"
    assert page.locator("h1").inner_text().startswith("Submission #")
    crumbs = page.locator(".crumbs").inner_text()
    assert "range-sums v1" in crumbs.lower() or "v1" in crumbs
    assert page.locator("text=Carried to").is_visible()


def test_agents_matrix_cells_chart_and_an_agents_trials(browser, page, site):
    page.goto(site + "/")
    page.click("nav >> text=Agents")
    assert page.url.endswith("/agents/")
    rows = page.locator("table.matrix tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("th").inner_text().startswith("1. openai/gpt-5.1")  # fast: the better score
    assert rows.nth(0).locator(".verified").count() == 1  # its best entry on rising, re-measured
    assert page.locator("svg.scatter-chart .chart-point.front").count() >= 1
    shot(page, "agents")
    page.click("table.matrix tbody tr >> nth=0 >> td.matrix-cell a >> nth=0")
    assert "model=openai%2Fgpt-5.1" in page.url and "all=1" in page.url
    assert page.locator("table.board tbody tr").count() == 1
    page.goto(site + "/agents/")
    page.click("table.matrix >> text=claude-x@2026-10")
    assert page.url.endswith("/agents/claude-x@2026-10/?harness=mini-swe")
    assert page.locator("h1").inner_text().startswith("claude-x@2026-10")
    assert page.locator("table.board >> text=run-18").count() == 1

    # On the narrowest phone the matrix scrolls in its own region, the agent column staying in view.
    context = browser.new_context(java_script_enabled=False, viewport={"width": 320, "height": 640}, is_mobile=True)
    phone = context.new_page()
    phone.goto(site + "/agents/")
    region = phone.locator(".matrix-scroll")
    assert region.get_attribute("role") == "region" and region.get_attribute("tabindex") == "0"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 320
    before = phone.locator("table.matrix tbody th.agent-col").first.bounding_box()
    region.evaluate("element => element.scrollLeft = element.scrollWidth")
    after = phone.locator("table.matrix tbody th.agent-col").first.bounding_box()
    assert after["x"] == before["x"] and after["x"] >= 0  # kept in view while the cells scroll past
    context.close()
    context = browser.new_context(java_script_enabled=False, viewport={"width": 375, "height": 800}, is_mobile=True)
    phone = context.new_page()
    phone.goto(site + "/agents/")
    shot(phone, "agents-phone")
    context.close()


def test_take_part_kit_and_the_method(page, site):
    page.goto(site + "/cases/lattice/")
    assert page.locator("#take-part-heading").is_visible()
    with page.expect_download() as download:
        page.click("text=Long belts kit")
    assert download.value.suggested_filename == "lattice-v3-long-belts.zip"
    with zipfile.ZipFile(download.value.path()) as archive:
        names = archive.namelist()
    assert "README.md" in names and "run/PROMPT.md" in names
    page.click("details.schema >> nth=0")
    assert page.locator("details.schema pre").first.is_visible()
    page.click("nav >> text=About")
    assert page.url.endswith("/about/")
    assert page.locator("h2#fuel").is_visible()
    shot(page, "about")

    page.click("nav >> text=API")
    assert page.url.endswith("/api/v1/docs")
    page.screenshot(path=str(SCREENSHOTS / "api-docs.png"))  # the top: the reference below is long
    page.click("a:has-text('GET /api/v1/cases/{slug}/leaderboard/')")
    assert page.url.endswith("#op-leaderboard") and page.locator("#op-leaderboard").is_visible()
    page.click("a[href='#schema-leaderboard'] >> nth=0")
    assert page.locator("#schema-leaderboard").is_visible()
    page.goto(site + "/api/v1/cases/lattice/leaderboard/")
    document = page.evaluate("() => JSON.parse(document.body.innerText)")
    assert document["results"][0]["name"] == "example-fast"


def _archive_of_new_version(tmp_path: Path) -> bytes:
    folder = tmp_path / "v5"
    shutil.copytree(ROOT / "test-cases/performance/easy/range-sums/v4", folder)
    (folder / "changelog.md").write_text("# Changelog\n\n## v5\n\nUploaded through the admin.\n")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"v5/{path.relative_to(folder).as_posix()}")
    return buffer.getvalue()


def versions_of(site, slug: str) -> list[str]:
    return site.json(f"/api/v1/cases/{slug}/")["versions"]


def test_staff_import_an_archive_through_the_admin(page, own_site, tmp_path):
    site = own_site.url
    page.goto(site + "/admin/")
    page.fill("#id_username", STAFF[0])
    page.fill("#id_password", STAFF[1])
    page.click("input[type=submit]")
    page.goto(site + "/admin/catalog/caseversion/")
    page.click("text=Import case version")

    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("v5/test-case.toml", 'slug = "range-sums"\ntype = "performance"\n')
    page.set_input_files("#id_archive", str(broken))
    page.click("input[type=submit]")
    errors = page.locator(".import-errors li")
    assert errors.count() > 3
    assert "changelog: required key is missing" in page.locator(".import-errors").inner_text()
    shot(page, "admin-import-errors")
    assert "v5" not in versions_of(own_site, "range-sums")

    archive = tmp_path / "v5.zip"
    archive.write_bytes(_archive_of_new_version(tmp_path))
    page.set_input_files("#id_archive", str(archive))
    page.click("input[type=submit]")
    assert page.url.endswith("/admin/catalog/caseversion/")
    messages = page.locator(".messagelist").inner_text()
    assert "Imported performance/easy/range-sums/v5" in messages
    # The new latest version started with v4's best entries, carried forward and scored again.
    assert "carry-forward range-sums v4 → v5: 2 entries to score" in messages.lower()
    shot(page, "admin-import")
    assert "v5" in versions_of(own_site, "range-sums")

    page.goto(site + "/cases/range-sums/")
    assert page.locator(".versions [aria-current=page]").inner_text() == "v5"
    page.goto(site + "/cases/range-sums/leaderboard/")
    assert page.locator("table.board .badge.carried").count() == 2
