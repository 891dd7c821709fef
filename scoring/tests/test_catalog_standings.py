"""Standings across the catalog: the formula, the filters, the refresh cadence, the downloads."""

from __future__ import annotations

import csv
import io
import math
import random
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from catalog.models import CaseVersion
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from scoring import snapshots
from scoring.boards.places import RANKED
from scoring.boards.updates import update_boards
from scoring.models import StandingsSnapshot, Submission
from scoring.references import set_reference
from scoring.speedups import FAST_P
from scoring.standings import refresh, request_refresh
from tests.factories import make_cases

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _refresh_on_every_change(settings, monkeypatch):
    settings.STANDINGS_REFRESH_SECONDS = 0
    monkeypatch.setattr(snapshots, "CHECK_SECONDS", 0)


def entry(version: CaseVersion, name: str, fuel: int | None, *, hidden: bool = False) -> Submission:
    """A scored submission, passed with `fuel` (None: it failed), through the scorer's board update."""
    made = Submission.objects.create(
        version=version, variant=version.variants.first(), name=name, source_kind="wasm", source=b"",
        wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST, status=Submission.State.SCORED,
        passed=fuel is not None, total_fuel=fuel, passed_count=2 if fuel is not None else 0, input_count=2,
        hidden=hidden,
    )
    update_boards([made.pk])
    return made


@pytest.fixture
def cases(db):
    """Six cases: easy, medium, hard, easy, medium, hard; the first three tagged `alpha`, the rest `beta`."""
    return make_cases(3, prefix="alpha", tags=("alpha",)) + make_cases(3, prefix="beta", tags=("beta", "shared"))


def oracle(entries: list[tuple[CaseVersion, str, int | None]], in_scope) -> dict[str, tuple]:
    """name → (score, solved, entered, geometric mean), from the formula on the standings page."""
    best_of: dict[tuple[int, str], int | None] = {}
    for version, name, fuel in entries:
        key = (version.pk, name)
        if key not in best_of or (fuel is not None and (best_of[key] is None or fuel < best_of[key])):
            best_of[key] = fuel
    best_on_case: dict[int, int] = {}
    for (case, _), fuel in best_of.items():
        if fuel is not None:
            best_on_case[case] = min(fuel, best_on_case.get(case, fuel))
    lines: dict[str, list] = {}
    scope = {version.pk for version, _, _ in entries if in_scope(version)}
    for (case, name), fuel in best_of.items():
        if case not in scope:
            continue
        line = lines.setdefault(name, [0.0, 0, 0, []])
        line[2] += 1
        if fuel is not None:
            line[0] += best_on_case[case] / fuel
            line[1] += 1
            line[3].append(fuel / best_on_case[case])
    return {name: (score, solved, entered, math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None)
            for name, (score, solved, entered, ratios) in lines.items()}


def ordered(expected: dict[str, tuple]) -> list[str]:
    return [name for name, _ in sorted(expected.items(), key=lambda item: (-round(item[1][0], 9), -item[1][1],
                                                                           item[0]))]


def test_the_worked_example_of_the_page(client, cases):
    easy, hard = cases[0], cases[2]
    entry(easy, "best", 1_000)
    entry(hard, "best", 5_000)
    entry(easy, "ana", 2_000)
    entry(hard, "ana", 4_000)
    entry(hard, "cy", None)
    document = client.get("/api/v1/standings/").json()
    assert document["cases"] == 6
    rows = {row["name"]: row for row in document["results"]}
    assert [row["name"] for row in document["results"]] == ["best", "ana", "cy"]
    assert rows["ana"]["score"] == pytest.approx(1.5) and rows["ana"]["solved"] == 2
    assert rows["ana"]["geometric_mean"] == pytest.approx(math.sqrt(2))
    assert rows["best"]["score"] == pytest.approx(1.8)
    assert rows["best"]["geometric_mean"] == pytest.approx(math.sqrt(1.25))
    assert (rows["cy"]["score"], rows["cy"]["solved"], rows["cy"]["entered"], rows["cy"]["geometric_mean"]) == (0, 0,
                                                                                                                1, None)
    assert rows["ana"]["difficulties"] == {"easy": {"solved": 1, "score": 0.5}, "medium": {"solved": 0, "score": 0},
                                           "hard": {"solved": 1, "score": 1.0}}
    page = client.get("/standings/").content.decode()
    assert "1,000 ÷ 2,000 + 4,000 ÷ 4,000 = 0.5 + 1.0 = <strong>1.5</strong>" in page  # the formula, explained
    assert ("<td class=\"num\"><strong>1.500</strong><span class=\"row-detail narrow-only\">2/6 solved</span></td>"
            in page)


def test_each_line_opens_the_submitters_best_entry_per_case(client, cases):
    easy, hard = cases[0], cases[2]
    entry(easy, "ana", 3_000)
    best = entry(easy, "ana", 2_000)
    failed = entry(hard, "ana", None)
    entry(easy, "bo", 1_000)
    entry(hard, "secret", 10, hidden=True)
    page = client.get("/standings/").content.decode()
    assert '<a href="/submitters/ana/">ana</a>' in page
    # The two numbers of a difficulty cell say what they are, and the mean over how many cases.
    assert '<span class="visually-hidden">easy: solved </span>1' in page and "over 1 case<" in page
    mine = client.get("/submitters/ana/")
    assert mine.status_code == 200
    html = mine.content.decode()
    assert f'href="/submissions/{best.pk}/"' in html and f'href="/submissions/{failed.pk}/"' in html
    assert "1 of 2 solved" in html
    assert "2 <span class=\"muted small\">of 2</span>" in html  # ana is second of two on easy
    assert client.get("/submitters/nobody/").status_code == 404
    assert client.get("/submitters/secret/").status_code == 404  # a hidden entry is on no board
    from django.urls import reverse

    # Any name a submitter may have is a URL of its own, and the page's link leads to it, even a name
    # a browser would change on the way (an empty or a dot segment, the escape's own mark).
    for name in ("team a/b ü", "a//b", "..", "a/./b", "~tilde", "trailing/", "100%", "q?x#y"):
        entry(easy, name, 5_000)
        url = reverse("submitter", args=[name])
        found = client.get(url)
        assert found.status_code == 200 and f"<h1>{name}</h1>" in found.content.decode().replace("&#x27;", "'"), name
        assert f'href="{url}"' in client.get("/standings/").content.decode(), name
    # Another spelling of a name is sent to its one URL.
    moved = client.get("/submitters/~ana/")
    assert (moved.status_code, moved["Location"]) == (301, "/submitters/ana/")


def test_every_scope_matches_the_formula_on_random_entries(client, cases):
    chooser = random.Random(7)
    names = ["ana", "bob", "cy", "dee", "eve"]
    entries = []
    for version in cases:
        for name in chooser.sample(names, chooser.randint(1, len(names))):
            for _ in range(chooser.randint(1, 2)):
                fuel = chooser.choice([None, chooser.randint(1_000, 50_000)])
                entry(version, name, fuel)
                entries.append((version, name, fuel))
    scopes = {
        "": lambda version: True,
        "difficulty=medium": lambda version: version.difficulty == "medium",
        "tag=beta": lambda version: "beta" in version.tag_names,
        "difficulty=hard&tag=alpha": lambda version: version.difficulty == "hard" and "alpha" in version.tag_names,
    }
    for query, in_scope in scopes.items():
        expected = oracle(entries, in_scope)
        rows = client.get(f"/api/v1/standings/?{query}").json()["results"]
        assert [row["name"] for row in rows] == ordered(expected), query
        for row in rows:
            score, solved, entered, mean = expected[row["name"]]
            assert (row["score"], row["solved"], row["entered"]) == (pytest.approx(score, abs=1e-6), solved, entered)
            assert row["geometric_mean"] == (pytest.approx(mean, abs=1e-6) if mean is not None else None)
            assert row["rank"] == rows.index(row) + 1


def test_hidden_entries_and_experimental_cases_do_not_count(client, cases):
    entry(cases[0], "ana", 1_000)
    entry(cases[0], "bob", 500, hidden=True)
    CaseVersion.objects.filter(pk=cases[1].pk).update(experimental=True, latest_public=False)
    entry(cases[1], "bob", 700)
    from sitecache.models import CATALOG, Generation

    Generation.bump(CATALOG)
    document = client.get("/api/v1/standings/").json()
    assert document["cases"] == 5
    assert [(row["name"], row["score"]) for row in document["results"]] == [("ana", 1.0)]


def test_a_page_is_refreshed_at_most_once_per_interval(client, cases, settings):
    settings.STANDINGS_REFRESH_SECONDS = 3600
    entry(cases[0], "ana", 1_000)
    assert [row["name"] for row in client.get("/api/v1/standings/").json()["results"]] == ["ana"]  # the first computes
    computed = StandingsSnapshot.objects.get().computed_at
    entry(cases[0], "bob", 500)
    # Within the interval: the snapshot stands, however many scores land.
    assert [row["name"] for row in client.get("/api/v1/standings/").json()["results"]] == ["ana"]
    assert StandingsSnapshot.objects.get().computed_at == computed
    StandingsSnapshot.objects.update(computed_at=timezone.now() - timedelta(seconds=3601))
    assert [row["name"] for row in client.get("/api/v1/standings/").json()["results"]] == ["bob", "ana"]
    # Nothing changed since: however old, no refresh.
    StandingsSnapshot.objects.update(computed_at=timezone.now() - timedelta(days=1))
    assert request_refresh() is False


def test_with_workers_the_refresh_is_queued_not_run_in_the_request(client, cases, settings,
                                                                   django_capture_on_commit_callbacks):
    from django_tasks_db.models import DBTaskResult

    settings.TASKS_BACKEND = "database"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    entry(cases[0], "ana", 1_000)
    with django_capture_on_commit_callbacks(execute=True):
        document = client.get("/api/v1/standings/").json()
        assert document["computing"] is True and document["results"] == []
        assert "being computed" in client.get("/standings/").content.decode()
    asked = DBTaskResult.objects.filter(task_path="scoring.standings.computing.refresh_standings_job")
    assert asked.count() == 1  # asked once
    refresh()  # what the worker runs
    assert [row["name"] for row in client.get("/api/v1/standings/").json()["results"]] == ["ana"]


def test_a_page_of_the_standings_costs_the_same_queries_at_any_size(client, cases):
    def queries() -> int:
        refresh()
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/standings/").status_code == 200
        return len(captured)

    entry(cases[0], "ana", 1_000)
    small = queries()
    for index in range(120):
        entry(cases[index % 6], f"solver-{index:03d}", 1_000 + index)
    assert queries() == small


def test_pages_of_the_standings(client, cases):
    for index in range(60):
        entry(cases[index % 6], f"solver-{index:03d}", 1_000 + index)
    first = client.get("/standings/")
    assert first.status_code == 200 and "Page 1 of 2" in first.content.decode()
    second = client.get("/api/v1/standings/", {"page": "2"}).json()
    assert (second["count"], len(second["results"])) == (60, 10) and second["previous"].endswith("/api/v1/standings/")
    assert second["results"][0]["rank"] == 51


@pytest.mark.parametrize("query, message, refused", [
    ({"difficulty": "extreme"}, "unknown difficulty", "difficulty"),
    ({"tag": "nope"}, "no published case carries that tag", None),
    ({"tag": "a\x00b"}, "Null characters are not allowed", "tag"),
    ({"page": "zero"}, "page", "page"),
    ({"format": "xml"}, "only download format is csv", "format"),
])
def test_bad_filters_are_a_400_with_the_reason(client, cases, query, message, refused):
    page = client.get("/standings/", query)
    assert page.status_code == 400 and message in page.content.decode()
    api = client.get("/api/v1/standings/", query)
    if refused == "format":  # the API's JSON operation has no format parameter: standings.csv is its own
        assert api.status_code == 200 and api["Content-Type"] == "application/json"
        return
    assert api["Content-Type"] == "application/problem+json"
    if refused:  # the parameter's type refuses it: a 400 naming it, with the reason
        assert api.status_code == 400 and list(api.json()["errors"]) == [refused]
    else:  # a well-formed tag that names nothing: as an unknown variant, a 404
        assert api.status_code == 404 and message in api.json()["detail"]


def test_the_csv_download_has_the_pages_columns_and_every_line(client, cases):
    for index in range(60):
        entry(cases[index % 6], f"solver-{index:03d}", 1_000 + index)
    entry(cases[0], "=HYPERLINK(1)", 900)
    response = client.get("/standings/", {"format": "csv", "difficulty": "easy"})
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    today = timezone.now().date().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="standings-easy-{today}.csv"'
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == ["rank", "name", "score", "solved", "entered", "cases", "geometric_mean", "easy_solved",
                       "easy_score",
                       "models", "annotations", "reference_cases", "fast_0.5", "fast_0.8", "fast_1", "fast_1.5",
                       "fast_2", "fast_5", "fast_10", "speedup", "speedup_cases", "harmonic_speedup", "shared_rank"]
    document = client.get("/api/v1/standings/", {"difficulty": "easy"}).json()
    assert len(rows) - 1 == document["count"] == 21
    assert rows[1][:4] == ["1", "'=HYPERLINK(1)", "1.0", "1"]  # never a formula in a spreadsheet
    assert [row[1] for row in rows[2:]] == [line["name"] for line in document["results"][1:]]
    api = client.get("/api/v1/standings.csv", {"difficulty": "easy"})
    assert api["Content-Type"] == "text/csv; charset=utf-8"
    assert list(csv.reader(io.StringIO(b"".join(api.streaming_content).decode()))) == rows
    moved = client.get("/api/v1/standings/", {"format": "csv", "difficulty": "easy"})
    assert moved.status_code == 301
    assert moved["Location"] == f"{django_settings.SITE_URL}/api/v1/standings.csv?difficulty=easy"


def test_the_refresh_command_recomputes_now(cases, settings):
    from django.core.management import call_command

    settings.STANDINGS_REFRESH_SECONDS = 3600
    entry(cases[0], "ana", 1_000)
    entry(cases[3], "bob", 1_000)
    out = io.StringIO()
    call_command("refresh_standings", stdout=out)
    assert "standings: 2 submitter(s) over 6 case(s)" in out.getvalue()
    snapshot = StandingsSnapshot.objects.get()
    assert snapshot.scopes["tag:alpha"] == {"cases": 3, "references": 0,
                                            "rows": 1} and snapshot.scopes["difficulty:easy"]["rows"] == 2


def test_a_process_looks_at_most_once_a_second(cases, settings, monkeypatch):
    settings.STANDINGS_REFRESH_SECONDS = 60
    monkeypatch.setattr(snapshots, "CHECK_SECONDS", 1.0)
    monkeypatch.setattr(snapshots, "_last_check", {})
    entry(cases[0], "ana", 1_000)
    with CaptureQueriesContext(connection) as first:
        assert request_refresh() is True  # no snapshot yet: computed now (the immediate backend)
    with CaptureQueriesContext(connection) as second:
        entry(cases[0], "bob", 500)
        assert request_refresh() is False
    assert first.captured_queries and not [query for query in second.captured_queries
                                           if "standingssnapshot" in query["sql"]]


ENTRIES = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["ana", "bob", "cy", "dee"]),
                             st.one_of(st.none(), st.integers(1, 5_000))), min_size=1, max_size=20)
REFERENCES = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 10)), max_size=4)


def against_oracle(entries, references: dict[int, int]) -> dict[str, tuple]:
    """name → (fast counts per p, speedup cases, geometric mean speedup) from the definitions, in
    plain Python: a submitter's best fuel on each case with a reference, against that reference."""
    best: dict[tuple[int, str], int | None] = {}
    for case, name, fuel in entries:
        if (case, name) not in best or (fuel is not None and (best[(case, name)] is None or fuel < best[(case, name)])):
            best[(case, name)] = fuel
    lines: dict[str, tuple] = {}
    for name in {name for _, name, _ in entries}:
        solved = [(references[case], fuel) for (case, who), fuel in best.items()
                  if who == name and case in references and fuel is not None]
        fast = {f"{p:g}": sum(1 for reference, fuel in solved if reference / fuel >= p) for p in FAST_P}
        mean = math.exp(sum(math.log(reference / fuel) for reference, fuel in solved) / len(solved)) if solved else None
        lines[name] = (fast, len(solved), mean)
    return lines


@hypothesis_settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=ENTRIES, chosen=REFERENCES)
def test_fast_p_and_the_speedups_match_their_definitions(client, cases, entries, chosen):
    Submission.objects.all().delete()
    CaseVersion.objects.update(reference_fuel=None)
    for case, name, fuel in entries:
        entry(cases[case], name, fuel)
    references = {}
    for case, pick in chosen:  # a ranked entry of the case, if it has one, is made its reference
        ranked = list(Submission.objects.filter(version=cases[case], board_group=RANKED).order_by("pk"))
        if ranked:
            reference = ranked[pick % len(ranked)]
            set_reference(reference)
            references[case] = reference.total_fuel
    document = client.get("/api/v1/standings/").json()
    assert document["reference_cases"] == len(references)
    expected = against_oracle(entries, references)
    for row in document["results"]:
        fast, solved, mean = expected[row["name"]]
        assert row["speedup_cases"] == solved
        assert row["speedup"] == (pytest.approx(mean, rel=1e-5) if mean is not None else None)
        assert row["fast"] == ({key: pytest.approx(count / len(references), abs=1e-6) for key, count in fast.items()}
                               if references else {key: None for key in fast})
