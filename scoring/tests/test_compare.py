"""Comparing two submissions on the same version, input by input."""

from __future__ import annotations

import re

import pytest

from catalog.models import CaseVersion
from engine.tests import wat
from scoring.attempts import score
from scoring.models import Result
from scoring.recording import submit
from scoring.tests.helpers import adder_answers
from web.templatetags.site import compact, times

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(adder_v1, imported, tmp_path):
    """fast and slow (both pass every input), wrong (fails the large input), on adder v1."""
    answers = adder_answers(imported)
    wrong = dict(answers)
    wrong[max(wrong)] = b'{"sum": 1}'
    made = {}
    for name, wasm in (("fast", wat.lookup(answers)), ("slow", wat.lookup(answers, iterations=3000)),
                       ("wrong", wat.lookup(wrong))):
        path = tmp_path / f"{name}.wasm"
        path.write_bytes(wasm)
        made[name] = score(submit(adder_v1, adder_v1.default_variant(), name, wasm_file=path))
    return made


def fuel_by_input(submission) -> dict[str, int]:
    return dict(Result.objects.filter(submission=submission).values_list("input_path", "fuel"))


def test_the_page_sets_every_input_side_by_side_with_the_ratio(client, pair):
    slow, fast = pair["slow"], pair["fast"]
    response = client.get(f"/submissions/{slow.pk}/compare/{fast.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    rows = re.findall(r'<tr>\s*<td class="wide-only">(smoke|stress)</td>\s*<td><code>([^<]+)</code>(.*?)</tr>', page,
                      re.S)
    slow_fuel, fast_fuel = fuel_by_input(slow), fuel_by_input(fast)
    assert [path for _, path, _ in rows] == list(slow_fuel)
    for _, path, cells in rows:
        # Each fuel in full (wide screens) and compact (narrow ones), then the ratio.
        numbers = re.findall(r'<td class="num">(?:<span class="wide-only">([^<]*)</span>)?([^<]*)', cells)
        assert [whole or alone for whole, alone in numbers] == [
            f"{slow_fuel[path]:,}", f"{fast_fuel[path]:,}", times(slow_fuel[path] / fast_fuel[path])]
        assert f'<span class="narrow-only" title="{slow_fuel[path]:,}">{compact(slow_fuel[path])}</span>' in cells
    assert f"{times(slow.total_fuel / fast.total_fuel)}</strong> B's total fuel" in page
    assert "×" not in page.split("<main", 1)[1]  # a ratio of fuel to fuel: in words
    # One bar per input, to the right of the middle line: A (slow) used more on each.
    assert len(re.findall(r'<rect class="chart-bar slower"', page)) == len(rows)


def test_inputs_one_side_failed_have_no_ratio_and_no_bar(client, pair):
    page = client.get(f"/submissions/{pair['wrong'].pk}/compare/{pair['fast'].pk}/").content.decode()
    assert "The totals are not comparable" in page
    assert page.count('<rect class="chart-bar') == 2  # the large input failed on A's side
    assert "status-wrong_answer" in page


def test_the_api_twin_has_the_same_figures(client, pair):
    slow, fast = pair["slow"], pair["fast"]
    document = client.get(f"/api/v1/submissions/{slow.pk}/compare/{fast.pk}/").json()
    assert (document["a"]["submission"], document["b"]["submission"]) == (slow.pk, fast.pk)
    assert document["total_ratio"] == pytest.approx(slow.total_fuel / fast.total_fuel)
    slow_fuel, fast_fuel = fuel_by_input(slow), fuel_by_input(fast)
    assert [(row["input"], row["a"]["fuel"], row["b"]["fuel"], row["ratio"]) for row in document["inputs"]] == [
        (path, slow_fuel[path], fast_fuel[path],
         pytest.approx(slow_fuel[path] / fast_fuel[path])) for path in slow_fuel]


def test_submissions_on_different_versions_are_a_400_with_the_reason(client, pair, tmp_path, imported):
    v2 = CaseVersion.objects.get(case__slug="adder", version="v2")
    path = tmp_path / "v2.wasm"
    path.write_bytes(wat.lookup(adder_answers(imported)))
    other = score(submit(v2, v2.default_variant(), "other", wasm_file=path))
    page = client.get(f"/submissions/{pair['fast'].pk}/compare/{other.pk}/")
    assert page.status_code == 400 and "only submissions on the same version" in page.content.decode()
    api = client.get(f"/api/v1/submissions/{pair['fast'].pk}/compare/{other.pk}/")
    assert api.status_code == 400 and "adder v1" in api.json()["detail"] and "adder v2" in api.json()["detail"]
    assert client.get(f"/submissions/{pair['fast'].pk}/compare/999999/").status_code == 404
    assert client.get(f"/api/v1/submissions/999999/compare/{other.pk}/").status_code == 404


def test_each_submission_page_links_to_a_comparison_with_the_leader(client, pair):
    leader = pair["fast"]
    slow_page = client.get(f"/submissions/{pair['slow'].pk}/").content.decode()
    assert f'href="/submissions/{pair["slow"].pk}/compare/{leader.pk}/"' in slow_page
    assert "Compare with the leader" not in client.get(f"/submissions/{leader.pk}/").content.decode()
