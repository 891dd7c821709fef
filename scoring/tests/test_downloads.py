"""CSV downloads of leaderboards: every entry, the page's columns, safe in a spreadsheet."""

from __future__ import annotations

import csv
import io

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from scoring.models import Submission
from tests.factories import make_cases, make_submissions

pytestmark = pytest.mark.django_db


def rows_of(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.fixture
def board(db):
    version = make_cases(1, prefix="csv")[0]
    make_submissions(version, 75)
    return version


def test_the_leaderboard_csv_holds_every_entry_in_board_order(client, board):
    response = client.get("/cases/csv-00000/leaderboard/", {"format": "csv"})
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    today = timezone.now().date().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="csv-00000-v1-leaderboard-{today}.csv"'
    rows = rows_of(response)
    assert rows[0] == ["rank", "name", "submission", "variant", "group", "status", "passed", "total_fuel",
                       "share_of_limit_percent", "overshoot", "passed_inputs", "inputs", "fuel:cases/0.json",
                       "fuel:cases/1.json", "submitted_at", "engine", "carried_from", "model", "harness", "run_url",
                       "cost_usd", "input_tokens", "output_tokens", "wall_seconds", "annotation", "verification",
                       "shared_rank", "speedup"]
    shown = []
    for number in (1, 2):  # the pages, 50 entries each
        shown += client.get("/api/v1/cases/csv-00000/leaderboard/", {"page": number}).json()["results"]
    assert len(rows) - 1 == len(shown) == 75
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        (str(entry["rank"] or ""), entry["name"], str(entry["submission"])) for entry in shown]
    first = rows[1]
    submission = Submission.objects.get(pk=first[2])
    assert first[7] == str(submission.total_fuel) and first[12:14] == ["100", "101"]
    assert float(first[8]) == pytest.approx(submission.total_fuel * 100 / (2 * board.fuel_limit), abs=1e-3)


def test_every_submission_and_the_api_twin(client, board):
    every = rows_of(client.get("/cases/csv-00000/leaderboard/", {"format": "csv", "all": "1"}))
    assert len(every) - 1 == 75
    api = client.get("/api/v1/cases/csv-00000/leaderboard.csv")
    assert api["Content-Type"] == "text/csv; charset=utf-8" and len(rows_of(api)) == 76
    # ?format=csv, as the JSON operation once answered CSV, is sent on to the CSV operation.
    moved = client.get("/api/v1/cases/csv-00000/leaderboard/", {"format": "csv", "all": "1"})
    assert moved.status_code == 301
    assert moved["Location"] == f"{django_settings.SITE_URL}/api/v1/cases/csv-00000/leaderboard.csv?all=1"


def test_names_never_become_formulas(client, board):
    Submission.objects.filter(pk=Submission.objects.order_by("board_group",
                                                             "board_key").first().pk).update(name="@SUM(A1)")
    from scoring.boards.rebuilding import rebuild
    rebuild([board.pk])
    rows = rows_of(client.get("/cases/csv-00000/leaderboard/", {"format": "csv", "all": "1"}))
    assert rows[1][1] == "'@SUM(A1)"


def test_an_unknown_format_is_a_400(client, board):
    assert client.get("/cases/csv-00000/leaderboard/", {"format": "xlsx"}).status_code == 400
    # The API's JSON operations have no format parameter: CSV is an operation of its own.
    assert client.get("/api/v1/cases/csv-00000/leaderboard/", {"format": "xlsx"})["Content-Type"] == "application/json"


def test_the_page_links_to_its_download(client, board):
    page = client.get("/cases/csv-00000/leaderboard/", {"all": "1"}).content.decode()
    assert 'href="?all=1&amp;format=csv"' in page or 'href="?all=1&format=csv"' in page


def test_every_cell_is_quoted_so_no_separator_can_start_a_formula(client, board):
    Submission.objects.filter(pk=Submission.objects.order_by("board_group", "board_key").first().pk).update(
        name="a;=1+2")
    second = Submission.objects.order_by("board_group", "board_key")[1]
    Submission.objects.filter(pk=second.pk).update(name=' "=cmd')
    from scoring.boards.rebuilding import rebuild
    rebuild([board.pk])
    text = b"".join(client.get("/cases/csv-00000/leaderboard/", {"format": "csv",
                                                                 "all": "1"}).streaming_content).decode()
    lines = text.splitlines()
    assert lines[1].startswith('"1","a;=1+2",') and all(line.startswith('"') for line in lines)
    assert rows_of(client.get("/cases/csv-00000/leaderboard/", {"format": "csv", "all": "1"}))[2][1] == "' \"=cmd"


def test_pandas_reads_counts_and_fuel_as_integers(client, board):
    """An entry that holds no rank leaves `rank` empty (and `total_fuel`, a stress input's fuel,
    `carried_from` where there is no such number): read with nullable integer columns, as the
    README says, every count and fuel is an integer and an empty cell is missing, not 0."""
    import pandas

    response = client.get("/api/v1/cases/csv-00000/leaderboard.csv", {"all": "1"})
    table = pandas.read_csv(io.BytesIO(b"".join(response.streaming_content)), dtype_backend="numpy_nullable")
    for column in ("rank", "submission", "total_fuel", "passed_inputs", "inputs", "fuel:cases/0.json"):
        assert str(table[column].dtype) == "Int64", column
    assert table["rank"].isna().any() and table["rank"].notna().any()  # failing entries hold no rank
    assert table["rank"].dropna().is_monotonic_increasing
    first = Submission.objects.get(pk=int(table["submission"][0]))
    assert int(table["total_fuel"].dropna().iloc[0]) == first.total_fuel
    standings = client.get("/api/v1/standings.csv")
    lines = pandas.read_csv(io.BytesIO(b"".join(standings.streaming_content)), dtype_backend="numpy_nullable")
    for column in ("rank", "solved", "entered", "cases"):
        assert str(lines[column].dtype) == "Int64", column
