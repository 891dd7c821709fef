"""The record progression (API, chart, feeds) and staff annotations (admin, audit trail, boards)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import CaseVersion
from engine.tests import wat
from scoring.attempts import score
from scoring.boards.rebuilding import rebuild
from scoring.boards.updates import set_hidden, update_boards
from scoring.models import AnnotationChange, RecordStep, Submission
from scoring.recording import submit
from scoring.tests.helpers import adder_answers
from scoring.tests.helpers import admin_change as change

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def timeline(imported, adder_v1, tmp_path):
    """Entries scored a day apart, with these loop counts (more iterations: more fuel)."""
    answers = adder_answers(imported)
    made = []

    def add(name: str, iterations: int | None, *, variant: str = "base", model: str = "") -> Submission:
        path = tmp_path / f"{len(made)}.wasm"
        path.write_bytes(wat.lookup(answers if iterations is not None else {}, iterations=iterations or 0))
        submission = score(submit(adder_v1, adder_v1.variants.get(slug=variant), name, wasm_file=path,
                                  run={"model": model} if model else {}))
        Submission.objects.filter(pk=submission.pk).update(scored_at=timezone.now() + timedelta(days=len(made)))
        rebuild([adder_v1.pk])  # the steps follow the moved times
        submission.refresh_from_db()
        made.append(submission)
        return submission

    return add


def history(client, **query) -> list[tuple[str, int | None]]:
    document = client.get("/api/v1/cases/adder/history/", {"version": "v1", **query}).json()
    return [(row["name"], row["previous_fuel"]) for row in document["results"]]


def test_the_progression_is_every_entry_that_beat_the_best_before_it(client, timeline):
    first = timeline("first", 3000)
    timeline("worse", 4000)
    timeline("wrong", None)
    second = timeline("second", 1000, model="m2")
    timeline("tie", 1000)
    third = timeline("third", 0, variant="long-lists")
    assert history(client) == [("first", None), ("second", first.total_fuel), ("third", second.total_fuel)]
    assert history(client, variant="base") == [("first", None), ("second", first.total_fuel)]
    document = client.get("/api/v1/cases/adder/history/", {"version": "v1"}).json()
    assert document["count"] == 3 and document["results"][1]["model"] == "m2"
    assert document["results"][2]["url"].endswith(f"/submissions/{third.pk}/")
    paged = client.get("/api/v1/cases/adder/history/", {"version": "v1", "page_size": 1, "page": 2}).json()
    assert [(row["name"], row["previous_fuel"]) for row in paged["results"]] == [("second", first.total_fuel)]
    assert paged["next"] and paged["previous"]
    assert client.get("/api/v1/cases/adder/history/", {"variant": "nope"}).status_code == 404
    assert client.get("/api/v1/cases/nope/history/").status_code == 404


def test_hiding_excluding_showing_and_deleting_a_record_rewrite_the_progression(client, timeline):
    first = timeline("first", 3000)
    second = timeline("second", 2000)
    timeline("third", 2500)
    set_hidden(Submission.objects.filter(pk=first.pk), True)
    assert history(client) == [("second", None)]
    set_hidden(Submission.objects.filter(pk=first.pk), False)
    assert history(client) == [("first", None), ("second", first.total_fuel)]
    Submission.objects.filter(pk=second.pk).update(excluded=True)
    update_boards([second.pk])
    assert [name for name, _ in history(client)] == ["first", "third"]
    Submission.objects.filter(pk=second.pk).update(excluded=False)
    update_boards([second.pk])
    second.delete()
    assert [name for name, _ in history(client)] == ["first", "third"]
    kept = set(RecordStep.objects.values_list("version_id", "variant_key", "submission_id", "scored_at", "total_fuel"))
    rebuild()
    assert set(RecordStep.objects.values_list("version_id", "variant_key", "submission_id", "scored_at",
                                              "total_fuel")) == kept


def test_the_leaderboard_draws_the_progression_as_a_step_chart(client, timeline):
    timeline("first<b>", 3000)
    timeline("second", 1000)
    html = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert '<svg role="group" aria-labelledby="history-title"' in html
    assert "2 records" in html and 'class="chart-step" d="M78' in html
    assert "first&lt;b&gt;" in html and "first<b>" not in html
    assert html.count('class="chart-point"') == 2
    assert '/feeds/cases/adder/records/' in html


def test_the_feeds_list_new_records(client, timeline):
    timeline("first", 3000)
    record = timeline("second<script>", 1000, model="m2")
    for url in ("/feeds/records/", "/feeds/cases/adder/records/"):
        response = client.get(url)
        assert response.status_code == 200 and response["Content-Type"].startswith("application/atom+xml")
        feed = ElementTree.fromstring(response.content)
        entries = feed.findall(f"{ATOM}entry")
        assert len(entries) == 2
        assert entries[0].find(f"{ATOM}link").get("href").endswith(f"/submissions/{record.pk}/")
        assert "second<script>" in entries[0].find(f"{ATOM}title").text  # text, escaped in the XML
        assert b"second<script>" not in response.content
        summary = entries[0].find(f"{ATOM}summary")
        assert summary.get("type") == "html" and "Model: m2" in summary.text
        assert "<script>" not in summary.text and "second&lt;script&gt;" in summary.text  # HTML, once decoded
    assert client.get("/feeds/cases/nope/records/").status_code == 404


def test_an_experimental_cases_records_stay_out_of_the_feeds(client, timeline, settings):
    timeline("first", 3000)
    CaseVersion.objects.filter(case__slug="adder").update(experimental=True)
    assert b"<entry>" not in client.get("/feeds/records/").content
    assert client.get("/feeds/cases/adder/records/").status_code == 404


def test_staff_annotate_and_exclude_an_entry_in_the_admin_with_an_audit_trail(admin_client, admin_user, client,
                                                                              timeline):
    best = timeline("cheater", 0)
    honest = timeline("honest", 1000)
    url = f"/admin/scoring/submission/{best.pk}/change/"
    change(admin_client, url, annotation="  reads the answers from a table <i>  ", excluded="on")
    best.refresh_from_db()
    assert best.excluded and best.annotation == "reads the answers from a table <i>"
    trail = AnnotationChange.objects.get(submission=best)
    assert (trail.changed_by, trail.excluded) == (admin_user, True)
    change(admin_client, url, annotation="reads the answers from a table <i>")  # included again
    change(admin_client, url, annotation="reads the answers from a table <i>  ")  # no change once trimmed
    assert list(AnnotationChange.objects.filter(submission=best).values_list("excluded", flat=True)) == [False, True]
    page = admin_client.get(url).content.decode()
    assert "annotation history" in page.lower() and "reads the answers from a table &lt;i&gt;" in page
    change(admin_client, url, annotation="reads the answers from a table <i>", excluded="on")

    document = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()
    assert [(row["name"], row["rank"], row["group"]) for row in document["results"]] == [
        ("honest", 1, "ranked"), ("cheater", None, "excluded")]
    assert document["results"][1]["annotation"] == "reads the answers from a table <i>"
    assert CaseVersion.objects.get(pk=best.version_id).best_fuel == honest.total_fuel
    html = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert "excluded from ranking" in html and "reads the answers from a table &lt;i&gt;" in html
    assert html.index("honest") < html.index("cheater", html.index('<table class="board">'))
    detail = client.get(f"/submissions/{best.pk}/").content.decode()
    assert "Staff note:</strong> reads the answers from a table &lt;i&gt;" in detail
    api = client.get(f"/api/v1/submissions/{best.pk}/").json()
    assert api["excluded"] is True and api["annotation"].startswith("reads the answers")
    assert [name for name, _ in history(client)] == ["honest"]  # an excluded entry is never a record

    from scoring.standings import refresh

    CaseVersion.objects.filter(pk=best.version_id).update(latest_public=True)
    refresh()
    standings_document = client.get("/api/v1/standings/").json()
    line = next(line for line in standings_document["results"] if line["name"] == "cheater")
    assert line["solved"] == 0 and line["annotations"] == [
        {"case": "adder", "submission": best.pk, "text": "reads the answers from a table <i>"}]
    assert "reads the answers from a table &lt;i&gt;" in client.get("/standings/").content.decode()


def test_the_audit_trail_outlives_its_submission(admin_client, timeline):
    entry = timeline("gone", 0)
    change(admin_client, f"/admin/scoring/submission/{entry.pk}/change/", annotation="suspicious")
    number = entry.pk
    entry.delete()
    assert list(AnnotationChange.objects.values_list("submission_number", "submission", "annotation")) == [
        (number, None, "suspicious")]


def test_a_hidden_entry_stays_hidden_whatever_its_annotation(client, timeline):
    hidden = timeline("hidden", 0)
    Submission.objects.filter(pk=hidden.pk).update(annotation="a note", excluded=True)
    set_hidden(Submission.objects.filter(pk=hidden.pk), True)
    assert client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()["count"] == 0
