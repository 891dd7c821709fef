"""Reference entries and the speedups against them; ties sharing a place. Real scored entries on
adder v1 (the `board` fixture: alice fast and slow, bob slow, carol wrong), with dave tying bob."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from scoring.attempts import score
from scoring.boards.updates import set_hidden
from scoring.models import Submission
from scoring.recording import submit
from scoring.references import ReferenceRefused, clear_reference, set_reference
from web.templatetags.site import ratio

pytestmark = pytest.mark.django_db


@pytest.fixture
def tied(board, adder_v1, tmp_path):
    """dave sends bob's module: the same total fuel, later."""
    bob = board["bob"]
    module = tmp_path / "bobs.wasm"
    module.write_bytes(bytes(Submission.objects.get(pk=bob.pk).source))
    dave = score(submit(adder_v1, adder_v1.default_variant(), "dave", wasm_file=module))
    assert dave.total_fuel == bob.total_fuel
    return {**board, "dave": dave}


def api_rows(client) -> list[dict]:
    return client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()["results"]


def csv_rows(client) -> list[dict]:
    response = client.get("/cases/adder/leaderboard/", {"version": "v1", "format": "csv"})
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_equal_fuel_shares_a_place_and_rank_stays_the_position(tied, client):
    rows = api_rows(client)
    assert [(row["name"], row["rank"], row["shared_rank"]) for row in rows] == [
        ("alice", 1, 1), ("bob", 2, 2), ("dave", 3, 2), ("carol", None, None)]
    assert [(row["rank"], row["shared_rank"]) for row in csv_rows(client)] == [
        ("1", "1"), ("2", "2"), ("3", "2"), ("", "")]
    page = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert page.count("<td>=2<span class=\"visually-hidden\"> (tied on total fuel; the earlier submission is listed "
                      "first)</span></td>") == 2
    assert "<td>1</td>" in page and "share a place (“=1”), listed earlier submission first" in page
    dave = client.get(f"/submissions/{tied['dave'].pk}/").content.decode()
    assert ("<strong>Tied for 2nd</strong> (equal total fuel; listed 3, after the earlier submissions) "
            "of 3 ranked") in dave
    bob = client.get(f"/submissions/{tied['bob'].pk}/").content.decode()
    assert "<strong>Tied for 2nd</strong> (equal total fuel; listed 2) of 3 ranked" in bob
    alice = client.get(f"/submissions/{tied['alice-2'].pk}/").content.decode()
    assert "<strong>Rank 1</strong> of 3 ranked" in alice


def test_a_reference_gives_every_correct_entry_a_speedup(tied, client, adder_v1):
    assert {row["speedup"] for row in api_rows(client)} == {None}  # no reference yet
    page = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert "This version has no reference entry yet, so the board shows no speedups" in page
    bob, alice = tied["bob"], tied["alice-2"]
    assert set_reference(bob) is None
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel == bob.total_fuel
    document = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()
    assert document["reference_fuel"] == bob.total_fuel
    assert [(row["name"], row["speedup"]) for row in document["results"]] == [
        ("alice", round(bob.total_fuel / alice.total_fuel, 6)), ("bob", 1.0), ("dave", 1.0), ("carol", None)]
    assert [row["speedup"] for row in csv_rows(client)] == [str(round(bob.total_fuel / alice.total_fuel, 6)), "1.0",
                                                            "1.0", ""]
    page = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert '<th scope="col" class="num wide-only">Speedup</th>' in page
    assert '1× <span class="badge">reference</span>' in page
    assert f"{bob.total_fuel / alice.total_fuel:.3g}×" in page
    # The submission page: in total and input by input (the reference's fuel on each ÷ its own).
    detail = client.get(f"/submissions/{alice.pk}/").content.decode()
    assert f"<dt>Speedup</dt><dd>{bob.total_fuel / alice.total_fuel:.3g}×" in detail
    reference_fuel = dict(bob.results.filter(kind="stress").values_list("input_path", "fuel"))
    for result in alice.results.filter(kind="stress"):
        assert f"{ratio(reference_fuel[result.input_path] / result.fuel)}</td>" in detail
    assert "this entry is the version's reference" in client.get(f"/submissions/{bob.pk}/").content.decode()
    # Another reference replaces it; hidden, it stops counting, and no speedup is shown.
    assert set_reference(alice) == Submission.objects.get(pk=bob.pk)
    assert list(Submission.objects.filter(is_reference=True).values_list("pk", flat=True)) == [alice.pk]
    set_hidden(Submission.objects.filter(pk=alice.pk), True)
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel is None and {row["speedup"] for row in api_rows(client)} == {None}
    set_hidden(Submission.objects.filter(pk=alice.pk), False)
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel == alice.total_fuel
    assert clear_reference(alice) and not clear_reference(alice)
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel is None


def test_only_a_ranked_entry_can_be_the_reference(tied):
    with pytest.raises(ReferenceRefused, match="is not ranked on its board"):
        set_reference(tied["carol"])
    assert not Submission.objects.filter(is_reference=True).exists()


def test_the_command_sets_and_clears_a_reference_and_refuses_clearly(tied, adder_v1):
    out = io.StringIO()
    bob = tied["bob"]
    call_command("set_reference", str(bob.pk), stdout=out)
    assert out.getvalue() == f"#{bob.pk} bob ({bob.total_fuel:,} fuel) is the reference of adder v1\n"
    out = io.StringIO()
    call_command("set_reference", str(tied["dave"].pk), stdout=out)
    assert f"in place of #{bob.pk} bob" in out.getvalue()
    with pytest.raises(CommandError, match=f"#{tied['carol'].pk} is not ranked on its board"):
        call_command("set_reference", str(tied["carol"].pk), stdout=io.StringIO())
    with pytest.raises(CommandError, match="no submission #99999"):
        call_command("set_reference", "99999", stdout=io.StringIO())
    out = io.StringIO()
    call_command("set_reference", str(tied["dave"].pk), "--clear", stdout=out)
    assert "is no longer the reference of adder v1" in out.getvalue()
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel is None


def test_the_admin_makes_one_entry_the_reference(tied, admin_client, adder_v1):
    def act(action: str, *entries) -> str:
        response = admin_client.post("/admin/scoring/submission/", {
            "action": action, "_selected_action": [entry.pk for entry in entries]}, follow=True)
        return response.content.decode()

    assert "Choose one entry: a version has one reference." in act("make_reference", tied["bob"], tied["dave"])
    assert "is not ranked on its board" in act("make_reference", tied["carol"])
    assert f"#{tied['bob'].pk} bob is the reference of" in act("make_reference", tied["bob"])
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel == tied["bob"].total_fuel
    assert "1 reference(s) cleared." in act("clear_reference", tied["bob"], tied["dave"])
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel is None
