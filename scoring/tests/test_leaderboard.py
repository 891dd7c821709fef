"""Leaderboards (docs/reading.md): ranking, the default best-per-submitter view, pages and JSON."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import call_command

from engine.sandbox import WASMTIME_VERSION
from scoring.attempts import score
from scoring.boards.reading import Leaderboard
from scoring.boards.rebuilding import rebuild
from scoring.boards.updates import set_hidden, update_boards
from scoring.models import Submission
from scoring.recording import submit

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
RANKED, OVER_LIMIT, UNRANKED = "ranked", "over_limit", "unranked"


def row(name: str, *, passed: bool, total: int | None, passed_count: int = 0, minutes: int = 0,
        overshoot: int = 0, status: str = "scored") -> dict:
    return {"name": name, "status": status, "passed": passed, "total_fuel": total, "overshoot": overshoot,
            "passed_count": passed_count, "submitted_at": START + timedelta(minutes=minutes)}


def stored(version, rows: list[dict]) -> list[int]:
    """Submissions with these outcomes, on the boards as the scoring write path puts them."""
    made = [Submission.objects.create(version=version, variant=version.default_variant(), source_kind="wasm",
                                      source=b"", wasmtime_version=WASMTIME_VERSION, input_count=3, **fields)
            for fields in rows]
    for submission, fields in zip(made, rows):  # auto_now_add ignores a given time
        Submission.objects.filter(pk=submission.pk).update(submitted_at=fields["submitted_at"])
    update_boards([submission.pk for submission in made])
    return [submission.pk for submission in made]


@pytest.mark.django_db
def test_passed_submissions_rank_by_total_fuel_then_by_time(adder_v1):
    stored(adder_v1, [
        row("slow", passed=True, total=900, minutes=0),
        row("fast", passed=True, total=100, minutes=5),
        row("tie-late", passed=True, total=500, minutes=9),
        row("tie-early", passed=True, total=500, minutes=1),
    ])
    entries = list(Leaderboard(adder_v1))
    assert [(entry.rank, entry.name) for entry in entries] == [(1, "fast"), (2, "tie-early"), (3, "tie-late"), (4,
                                                                                                                "slow")]


@pytest.mark.django_db
def test_unranked_entries_follow_over_limit_first_then_by_passed_inputs(adder_v1):
    stored(adder_v1, [
        row("broken", passed=False, total=None, passed_count=0, status="build_failed"),
        row("some", passed=False, total=None, passed_count=2),
        row("over", passed=False, total=5_000, overshoot=40),
        row("winner", passed=True, total=9_000),
        row("over-less", passed=False, total=4_000, overshoot=10),
    ])
    entries = list(Leaderboard(adder_v1))
    assert [(entry.name, entry.group, entry.rank) for entry in entries] == [
        ("winner", RANKED, 1),
        ("over-less", OVER_LIMIT, None),  # correct but over the line: total and overshoot shown
        ("over", OVER_LIMIT, None),
        ("some", UNRANKED, None),
        ("broken", UNRANKED, None),
    ]


@pytest.mark.django_db
def test_the_default_view_keeps_each_submitters_best(adder_v1):
    pks = stored(adder_v1, [
        row("alice", passed=True, total=300, minutes=0),
        row("alice", passed=True, total=200, minutes=1),
        row("alice", passed=False, total=None, minutes=2),
        row("bob", passed=True, total=250, minutes=3),
    ])
    best = list(Leaderboard(adder_v1))
    every = list(Leaderboard(adder_v1, include_all=True))
    assert [(entry.name, entry.submission) for entry in best] == [("alice", pks[1]), ("bob", pks[3])]
    assert [entry.submission for entry in every] == [pks[1], pks[3], pks[0], pks[2]]
    assert [entry.rank for entry in every] == [1, 2, 3, None]


# --- with the database (the `board` fixture: conftest.py) ----------------------------------------------


def test_leaderboard_command_json_carries_what_the_api_leaderboard_does(client, board):
    out = io.StringIO()
    call_command("leaderboard", "adder", "--version", "v1", "--json", stdout=out)
    document = json.loads(out.getvalue())
    assert (document["case"], document["version"], document["reference_fuel"]) == ("adder", "v1", None)
    api = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()
    def same(entry):  # (a time, as each writes it)
        return {**entry, "submitted_at": datetime.fromisoformat(entry["submitted_at"].replace("Z", "+00:00"))}

    assert [same(entry) for entry in document["entries"]] == [same(entry) for entry in api["results"]]
    assert {"rank", "shared_rank", "speedup", "reviews", "total_fuel"} <= set(document["entries"][0])
    assert [(entry["rank"], entry["name"]) for entry in document["entries"]] == [(1, "alice"), (2, "bob"), (None,
                                                                                                            "carol")]
    assert document["entries"][0]["submission"] == board["alice-2"].pk
    datetime.fromisoformat(document["entries"][0]["submitted_at"])


def test_the_leaderboard_page_ranks_and_links_every_entry(client, board):
    response = client.get("/cases/adder/leaderboard/", {"version": "v1"})
    assert response.status_code == 200
    html = response.content.decode()
    table = html[html.index('<table class="board">'):html.index('</table>')]  # the record chart links past records too
    for key in ("alice-2", "bob", "carol"):
        assert f'href="/submissions/{board[key].pk}/"' in table
    assert f'href="/submissions/{board["alice-1"].pk}/"' not in table  # alice's best only
    assert html.index("alice") < html.index("bob") < html.index("carol")
    # Columns: total fuel, share of the limit, fuel per stress input, submitted time.
    assert "cases/small.json" in html and "cases/large.json" in html and "Share of the fuel limit" in html
    assert f"{board['alice-2'].total_fuel:,}" in html
    # The top entries' totals as a list of bars, after the table (the table is what a reader came for).
    assert '<ol class="bar-list" aria-labelledby="bars-title">' in html
    assert html.index('<table class="board">') < html.index('class="bar-list"') < html.index('class="step-chart"')
    assert "2/3 inputs passed" in html  # carol: the smoke and one stress input


def test_all_submissions_and_variant_selection(client, board):
    every = client.get("/cases/adder/leaderboard/", {"version": "v1", "all": "1"}).content.decode()
    assert f'href="/submissions/{board["alice-1"].pk}/"' in every
    long_lists = client.get("/cases/adder/leaderboard/", {"version": "v1", "variant": "long-lists"}).content.decode()
    assert "bob" in long_lists and "alice" not in long_lists
    assert client.get("/cases/adder/leaderboard/", {"variant": "nope"}).status_code == 404
    assert client.get("/cases/adder/leaderboard/", {"version": "v99"}).status_code == 404


def test_the_latest_version_is_the_default_leaderboard(client, board):
    html = client.get("/cases/adder/leaderboard/").content.decode()
    assert "v10" in html and "No submissions yet." in html


def test_hidden_submissions_stay_off_leaderboards(client, board):
    set_hidden(Submission.objects.filter(pk=board["alice-2"].pk), True)
    entries = Leaderboard(board["bob"].version)
    assert [entry.submission for entry in entries][0] == board["alice-1"].pk
    assert client.get(f"/submissions/{board['alice-2'].pk}/").status_code == 200  # the page itself stays


def test_entries_from_another_wasmtime_version_are_flagged(client, board):
    Submission.objects.filter(pk=board["bob"].pk).update(wasmtime_version="49.0.0")
    rebuild()  # as if scored before an upgrade: what the boards then know
    html = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert "measured with wasmtime 49.0.0" in html and "†" in html
    assert "Some entries were measured with wasmtime 49.0.0" in html


def test_entries_scored_under_another_engine_configuration_are_flagged(client, board):
    from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION

    assert board["bob"].engine_digest == ENGINE_DIGEST  # recorded with every submission
    html = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert "†" not in html
    Submission.objects.filter(pk=board["bob"].pk).update(engine_digest="0123456789ab")
    rebuild()
    html = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert f"measured with wasmtime {WASMTIME_VERSION} (0123456789ab)" in html and html.count("†") >= 2


def test_the_case_page_shows_the_top_of_the_leaderboard(client, board):
    html = client.get("/cases/adder/v1/").content.decode()
    assert f'href="/submissions/{board["alice-2"].pk}/"' in html


def test_the_submission_page_shows_badges_bars_and_messages(client, board):
    html = client.get(f"/submissions/{board['carol'].pk}/").content.decode()
    assert 'class="status status-wrong_answer"' in html
    assert 'answer differs from the expected answer at JSON pointer &quot;/sum&quot;' in html
    assert html.count('class="fuel-bar"') == 3
    assert "passes within 1 M · may run to 1.15 M" in html


def test_the_submission_page_says_its_place_and_a_failure_first(client, board):
    bob = client.get(f"/submissions/{board['bob'].pk}/").content.decode()
    assert "<strong>Rank 2</strong> of 2 ranked" in bob and "Compare with the leader" in bob
    carol = client.get(f"/submissions/{board['carol'].pk}/").content.decode()
    assert "unranked: only an entry that passes every input holds a rank" in carol
    # The reason it failed is the first thing under the title, and there is nothing to compare.
    reason = carol.index("Why it did not pass:")
    assert carol.index("<h1>") < reason < carol.index('class="facts summary"')
    assert "wrong answer" in carol[reason:reason + 400]
    assert "Compare with the leader" not in carol
    earlier = client.get(f"/submissions/{board['alice-1'].pk}/").content.decode()
    assert "Not on the leaderboard: the board shows each submitter's best entry" in earlier


def test_the_place_is_the_rank_the_board_shows(client, board):
    from scoring.boards.reading import place_of

    shown = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()["results"]
    assert [(row["submission"], row["rank"]) for row in shown] == [
        (row["submission"], place_of(Submission.objects.get(pk=row["submission"])).rank) for row in shown]
    assert place_of(board["alice-2"]).rank == 1 and place_of(board["bob"]).rank == 2
    assert place_of(board["carol"]).rank is None and place_of(board["carol"]).ranked == 2
    assert place_of(board["alice-1"]) is None  # not alice's best


def test_the_build_log_is_for_staff_only(client, admin_client, adder_v1, tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    failed = score(submit(adder_v1, adder_v1.default_variant(), "dave", folder=folder))
    public = client.get(f"/submissions/{failed.pk}/").content.decode()
    assert "build command failed with exit status 1" in public
    assert "cp: cannot stat" not in public
    assert "cp: cannot stat" in admin_client.get(f"/submissions/{failed.pk}/").content.decode()


def test_unknown_submissions_are_404(client, db):
    assert client.get("/submissions/999999/").status_code == 404
    missing = client.get("/api/v1/submissions/999999/")
    assert missing["Content-Type"] == "application/problem+json"
    assert missing.json() == {"type": "about:blank", "title": "Not Found", "status": 404,
                              "detail": "No Submission matches the given query."}


def test_the_leaderboard_api_matches_the_page(client, board):
    document = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()
    assert [entry["name"] for entry in document["results"]] == ["alice", "bob", "carol"]
    every = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1", "all": "1"}).json()
    assert len(every["results"]) == 4


def test_the_submission_api(client, board):
    document = client.get(f"/api/v1/submissions/{board['alice-2'].pk}/").json()
    assert (document["status"], document["passed"], document["name"]) == ("scored", True, "alice")
    assert [result["input"] for result in document["results"]] == ["smoke/one.json", "cases/small.json",
                                                                   "cases/large.json"]


def test_staff_can_hide_a_submission_from_leaderboards(admin_client, board):
    target = board["alice-2"]
    response = admin_client.post("/admin/scoring/submission/", {
        "action": "hide_from_leaderboards", "_selected_action": [target.pk],
    }, follow=True)
    assert response.status_code == 200
    target.refresh_from_db()
    assert target.hidden
    names = [entry.submission for entry in Leaderboard(target.version)]
    assert target.pk not in names
    admin_client.post("/admin/scoring/submission/", {"action": "show_on_leaderboards", "_selected_action": [target.pk]})
    target.refresh_from_db()
    assert not target.hidden


def test_submissions_are_read_only_except_hiding(admin_client, board):
    target = board["bob"]
    page = admin_client.get(f"/admin/scoring/submission/{target.pk}/change/").content.decode()
    assert 'name="hidden"' in page and 'name="name"' not in page and 'name="total_fuel"' not in page
    assert admin_client.get("/admin/scoring/submission/add/").status_code == 403
