"""Carry-forward: the best entries of a version are scored again against the next one."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from django.core.management import CommandError, call_command

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from engine.tests import wat
from scoring.attempts import score
from scoring.boards.reading import Leaderboard
from scoring.boards.updates import set_hidden
from scoring.carry import CarryRefused, carry_forward, score_carried
from scoring.models import Submission
from scoring.recording import submit
from scoring.references import set_reference
from scoring.tests.helpers import adder_answers, admin_change
from tests.written_rows import entries_once

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions(imported):
    return {version.version: version for version in CaseVersion.objects.filter(case__slug="adder")}


@pytest.fixture
def modules(imported, tmp_path):
    """Answers for adder (every version holds the same inputs): fast, slow, slower, wrong."""
    answers = adder_answers(imported)
    paths = {}
    for kind, wasm in (("fast", wat.lookup(answers)), ("slow", wat.lookup(answers, iterations=2000)),
                       ("slower", wat.lookup(answers, iterations=4000)), ("wrong", wat.lookup({}))):
        paths[kind] = tmp_path / f"{kind}.wasm"
        paths[kind].write_bytes(wasm)
    return paths


@pytest.fixture
def v1_board(versions, modules):
    """On adder v1: ada (fast on long-lists, and slow), bob (slow), cy (slower), dan (wrong);
    scored for real once per test process, then written again (tests/written_rows.py)."""
    v1 = versions["v1"]
    base, long_lists = v1.variants.get(slug="base"), v1.variants.get(slug="long-lists")
    return entries_once("carry-v1", lambda: {
        "ada-slow": score(submit(v1, base, "ada", wasm_file=modules["slow"])),
        "ada-fast": score(submit(v1, long_lists, "ada", wasm_file=modules["fast"])),
        "bob": score(submit(v1, base, "bob", wasm_file=modules["slow"])),
        "cy": score(submit(v1, base, "cy", wasm_file=modules["slower"])),
        "dan": score(submit(v1, base, "dan", wasm_file=modules["wrong"])),
    })


def test_each_submitters_best_correct_entry_is_carried_and_scored(versions, v1_board):
    carried = carry_forward(versions["v2"], source=versions["v1"])
    # Board order; dan answered wrongly and stays behind; ada's best is her fast entry.
    assert [item.source.pk for item in carried] == [v1_board[key].pk for key in ("ada-fast", "bob", "cy")]
    assert all(item.submission.status == Submission.State.PENDING for item in carried)
    score_carried(carried, inline=True)
    fresh = {item.source.name: item.submission for item in carried}
    assert {name: (row.version.version, row.variant.slug, row.carried_from_id, row.status, row.passed)
            for name, row in fresh.items()} == {
        "ada": ("v2", "long-lists", v1_board["ada-fast"].pk, "scored", True),
        "bob": ("v2", "base", v1_board["bob"].pk, "scored", True),
        "cy": ("v2", "base", v1_board["cy"].pk, "scored", True),
    }
    assert bytes(Submission.objects.get(pk=fresh["ada"].pk).source) == bytes(
        Submission.objects.get(pk=v1_board["ada-fast"].pk).source)
    board = list(Leaderboard(versions["v2"]))
    assert [(entry.name, entry.rank, entry.carried_from) for entry in board] == [
        ("ada", 1, v1_board["ada-fast"].pk), ("bob", 2, v1_board["bob"].pk), ("cy", 3, v1_board["cy"].pk)]


def test_a_carried_entry_is_measured_by_todays_engine(versions, v1_board):
    from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION

    Submission.objects.filter(pk=v1_board["bob"].pk).update(wasmtime_version="1.0.0", engine_digest="old")
    carried = carry_forward(versions["v2"], source=versions["v1"])
    assert {(item.submission.wasmtime_version, item.submission.engine_digest) for item in carried} == {
        (WASMTIME_VERSION, ENGINE_DIGEST)}


def test_carrying_again_scores_nothing_again(versions, v1_board):
    first = carry_forward(versions["v2"], source=versions["v1"])
    score_carried(first, inline=True)
    count = Submission.objects.count()
    again = carry_forward(versions["v2"], source=versions["v1"])
    assert [item.skipped for item in again] == [True, True, True]
    assert Submission.objects.count() == count


def test_an_entry_its_operator_already_sent_to_the_new_version_is_not_carried_twice(versions, v1_board, modules):
    """bob sent the same source under the same name to v2 before anyone carried: his entry is there."""
    v2 = versions["v2"]
    own = score(submit(v2, v2.variants.get(slug="base"), "bob", wasm_file=modules["slow"]))
    carried = {item.source.name: item for item in carry_forward(v2, source=versions["v1"])}
    assert carried["bob"].skipped and carried["bob"].there == own
    assert (carried["bob"].as_json()["status"], carried["bob"].as_json()["submission"]) == ("already_submitted", own.pk)
    assert not carried["ada"].skipped and not carried["cy"].skipped
    assert Submission.objects.filter(version=v2, name="bob").count() == 1


def test_top_takes_the_first_entries_of_the_board(versions, v1_board):
    carried = carry_forward(versions["v2"], source=versions["v1"], top=2)
    assert [item.source.name for item in carried] == ["ada", "bob"]
    assert carry_forward(versions["v2"], source=versions["v1"], top=0) == []


def test_a_variant_the_new_version_lacks_falls_back_to_its_default(versions, v1_board):
    versions["v2"].variants.filter(slug="long-lists").delete()
    carried = carry_forward(versions["v2"], source=versions["v1"], top=1)
    assert carried[0].submission.variant.slug == "base"


def test_hidden_entries_are_not_carried(versions, v1_board):
    set_hidden(Submission.objects.filter(pk=v1_board["ada-fast"].pk), True)
    carried = carry_forward(versions["v2"], source=versions["v1"])
    assert [item.source.pk for item in carried] == [v1_board[key].pk for key in ("ada-slow", "bob", "cy")]


def test_refused_carries(versions, v1_board):
    with pytest.raises(CarryRefused, match="to itself"):
        carry_forward(versions["v1"], source=versions["v1"])
    other = CaseVersion.objects.get(case__slug="counter")
    with pytest.raises(CarryRefused, match="different cases"):
        carry_forward(other, source=versions["v1"])
    assert carry_forward(versions["v1"]) == []  # the first version: nothing before it


def test_the_command_carries_idempotently_and_reports_json(versions, v1_board):
    out, err = io.StringIO(), io.StringIO()
    call_command("carry_forward", "adder", "--to", "v2", "--json", stdout=out, stderr=err)
    document = json.loads(out.getvalue())
    assert (document["case"], document["from"], document["to"]) == ("adder", "v1", "v2")
    assert [(row["name"], row["from"], row["status"], row["passed"]) for row in document["carried"]] == [
        ("ada", v1_board["ada-fast"].pk, "scored", True), ("bob", v1_board["bob"].pk, "scored", True),
        ("cy", v1_board["cy"].pk, "scored", True)]
    assert "adder v1 → v2: 3 entries, 3 new, 0 already there" in err.getvalue()
    assert "[8/8]" not in err.getvalue() and "[3/3]" in err.getvalue()  # per-input progress of each

    out = io.StringIO()
    call_command("carry_forward", "adder", "--to", "v2", "--top", "1", stdout=out)
    assert "1 entry, 0 new, 1 already there" in out.getvalue()
    assert "already there" in out.getvalue().splitlines()[-1]


def test_the_command_takes_an_explicit_source(versions, v1_board):
    out = io.StringIO()
    call_command("carry_forward", "adder", "--to", "v10", "--from", "v1", "--top", "1", "--json", stdout=out,
                 stderr=io.StringIO())
    carried = json.loads(out.getvalue())["carried"]
    assert Submission.objects.get(pk=carried[0]["submission"]).version.version == "v10"


@pytest.mark.parametrize("args, message", [
    (["--to", "v9"], "has no version `v9`"),
    (["--to", "v1"], "is the first version"),
    (["--to", "v2", "--from", "v2"], "to itself"),
    (["--to", "v2", "--top", "-1"], "--top must be 0 or more"),
])
def test_the_command_refuses_clearly(versions, v1_board, args, message):
    count = Submission.objects.count()
    with pytest.raises(CommandError, match=message):
        call_command("carry_forward", "adder", *args, stdout=io.StringIO(), stderr=io.StringIO())
    assert Submission.objects.count() == count


def _add_version(imported, name: str) -> None:
    shutil.copytree(imported.path("", "performance/easy/adder/v10"), imported.root / "performance/easy/adder" / name)


def test_importing_a_new_latest_version_carries_the_previous_ones_best(imported, versions, modules, settings,
                                                                       django_capture_on_commit_callbacks):
    settings.CARRY_FORWARD_TOP = 2
    v10 = versions["v10"]
    for name, kind in (("ada", "slow"), ("bob", "fast"), ("cy", "slower")):
        score(submit(v10, v10.default_variant(), name, wasm_file=modules[kind]))
    _add_version(imported, "v11")
    lines = []
    with django_capture_on_commit_callbacks(execute=True):
        assert import_catalog(imported.root, report=lines.append).ok
    v11 = CaseVersion.objects.get(case__slug="adder", version="v11")
    carried = list(Submission.objects.filter(version=v11).order_by("total_fuel"))
    assert [(row.name, row.status, row.carried_from.version.version) for row in carried] == [
        ("bob", "scored", "v10"), ("ada", "scored", "v10")]
    assert lines[0] == "carry-forward adder v10 → v11: 2 entries to score"
    assert lines[1].startswith("    bob: #") and "passed" in lines[1]


def test_importing_an_older_version_or_with_carry_off_carries_nothing(imported, versions, modules, settings,
                                                                      django_capture_on_commit_callbacks):
    v10 = versions["v10"]
    score(submit(v10, v10.default_variant(), "ada", wasm_file=modules["fast"]))
    _add_version(imported, "v3")  # before v10 in version order: not the latest
    with django_capture_on_commit_callbacks(execute=True):
        assert import_catalog(imported.root).ok
    assert not Submission.objects.filter(version__version="v3").exists()
    settings.CARRY_FORWARD_TOP = 0
    _add_version(imported, "v12")
    with django_capture_on_commit_callbacks(execute=True):
        assert import_catalog(imported.root).ok
    assert not Submission.objects.filter(version__version="v12").exists()


def test_a_dry_run_carries_nothing(imported, versions, modules, django_capture_on_commit_callbacks):
    v10 = versions["v10"]
    score(submit(v10, v10.default_variant(), "ada", wasm_file=modules["fast"]))
    _add_version(imported, "v11")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        import_catalog(imported.root, dry_run=True)
    assert callbacks == [] and not CaseVersion.objects.filter(version="v11").exists()


def test_pages_mark_and_link_carried_entries(client, versions, v1_board):
    carried = carry_forward(versions["v2"], source=versions["v1"], top=1)
    score_carried(carried, inline=True)
    new = carried[0].submission
    page = client.get("/cases/adder/leaderboard/", {"version": "v2"}).content.decode()
    assert 'class="badge carried"' in page and "were carried forward" in page
    assert 'class="badge carried"' not in client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    detail = client.get(f"/submissions/{new.pk}/").content.decode()
    assert f'href="/submissions/{v1_board["ada-fast"].pk}/"' in detail and "Carried from" in detail
    source_page = client.get(f"/submissions/{v1_board['ada-fast'].pk}/").content.decode()
    assert f'href="/submissions/{new.pk}/"' in source_page and "Carried to" in source_page
    entries = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v2"}).json()["results"]
    assert entries[0]["carried_from"] == v1_board["ada-fast"].pk
    assert client.get(f"/api/v1/submissions/{new.pk}/").json()["carried_from"] == v1_board["ada-fast"].pk


def test_the_admin_action_carries_to_the_selected_version(admin_client, versions, v1_board,
                                                          django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/admin/catalog/caseversion/", {
            "action": "carry_forward_to", "_selected_action": [versions["v2"].pk]}, follow=True)
    assert response.status_code == 200
    assert "3 entries carried forward and queued, 0 already there" in response.content.decode()
    assert set(Submission.objects.filter(version=versions["v2"]).values_list("name", "status")) == {
        ("ada", "scored"), ("bob", "scored"), ("cy", "scored")}


def test_the_admin_action_needs_the_right_to_change_submissions(client, django_user_model, versions, v1_board):
    from django.contrib.auth.models import Permission

    staff = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_caseversion"))
    client.force_login(staff)
    assert 'value="carry_forward_to"' not in client.get("/admin/catalog/caseversion/").content.decode()
    response = client.post("/admin/catalog/caseversion/", {
        "action": "carry_forward_to", "_selected_action": [versions["v2"].pk]}, follow=True)
    assert response.status_code == 200  # the admin's list again, the action unknown to this account
    assert not Submission.objects.filter(version=versions["v2"]).exists()


@pytest.mark.slow
def test_the_bundled_examples_carry_from_range_sums_v1_to_v2_with_the_real_build(tmp_path, db,
                                                                                django_capture_on_commit_callbacks):
    from pathlib import Path

    from scoring.examples import score_examples

    root = Path(__file__).resolve().parents[2]
    catalog = tmp_path / "catalog"
    case = "performance/easy/range-sums"
    shutil.copytree(root / "test-cases" / case / "v1", catalog / case / "v1")
    examples = tmp_path / "examples"
    shutil.copytree(root / "solutions/range-sums/accepted", examples / "range-sums" / "accepted")
    assert import_catalog(catalog).ok
    on_v1 = {run.name: run.submission for run in score_examples(examples)}
    assert {name: row.passed for name, row in on_v1.items()} == {"example-fast": True, "example-naive": True}

    shutil.copytree(root / "test-cases" / case / "v2", catalog / case / "v2")
    lines = []
    with django_capture_on_commit_callbacks(execute=True):
        assert import_catalog(catalog, report=lines.append).ok
    assert lines[0] == "carry-forward range-sums v1 → v2: 2 entries to score"
    v2 = CaseVersion.objects.get(case__slug="range-sums", version="v2")
    board = list(Leaderboard(v2))
    assert [(entry.name, entry.rank, entry.carried_from) for entry in board] == [
        ("example-fast", 1, on_v1["example-fast"].pk), ("example-naive", 2, on_v1["example-naive"].pk)]
    carried = Submission.objects.get(pk=board[0].submission)
    assert carried.source_kind == "submission" and carried.module_digest
    assert "\nbuilt " in carried.build_log  # built again from its source, not handed the old module
    assert carried.results.count() == v2.smoke_count + v2.stress_count
    assert all(result.fuel for result in carried.results.all())


def test_an_experimental_version_is_never_the_source_of_a_published_one(versions, v1_board, modules):
    """v1 published, v2 experimental with its own entries, v10 published: v10 carries from v1."""
    v2, v10 = versions["v2"], versions["v10"]
    CaseVersion.objects.filter(pk=v2.pk).update(experimental=True)
    v2.refresh_from_db()
    score(submit(v2, v2.default_variant(), "secret", wasm_file=modules["fast"]))
    carried = carry_forward(v10)
    assert {item.source.version.version for item in carried} == {"v1"} and "secret" not in {
        item.source.name for item in carried}
    with pytest.raises(CarryRefused, match="experimental"):
        carry_forward(v10, source=v2)
    assert carry_forward(v2, source=versions["v1"], top=1)[0].submission.version == v2  # into experimental: fine


def test_excluding_or_hiding_an_entry_reaches_its_carried_copies_with_the_same_note(admin_client, versions,
                                                                                    v1_board):
    """Carried to v2 and from there to v10, bob's copies follow what staff decide of bob's entry:
    excluded with the same annotation (each copy with its own audit trail), then hidden."""
    from scoring.models import AnnotationChange

    to_v2 = carry_forward(versions["v2"], source=versions["v1"])
    score_carried(to_v2, inline=True)
    to_v10 = carry_forward(versions["v10"], source=versions["v2"])
    score_carried(to_v10, inline=True)
    bob = v1_board["bob"]
    copies = [Submission.objects.get(version=versions[name], name="bob") for name in ("v2", "v10")]
    assert [copy.carried_from_id for copy in copies] == [bob.pk, copies[0].pk]

    admin_change(admin_client, f"/admin/scoring/submission/{bob.pk}/change/", annotation="hard-codes the answers",
                 excluded="on")
    for entry in (bob, *copies):
        entry.refresh_from_db()
        assert (entry.excluded, entry.annotation) == (True, "hard-codes the answers"), entry.version
        assert AnnotationChange.objects.filter(submission=entry, excluded=True).count() == 1
    v10 = [(entry.name, entry.rank, entry.group) for entry in Leaderboard(versions["v10"])]
    assert ("bob", None, "excluded") in v10 and all(rank != 2 or name != "bob" for name, rank, _ in v10)

    set_hidden(Submission.objects.filter(pk=bob.pk), True)
    assert all(Submission.objects.get(pk=copy.pk).hidden for copy in copies)
    assert "bob" not in [entry.name for entry in Leaderboard(versions["v10"])]
    set_hidden(Submission.objects.filter(pk=bob.pk), False)
    assert "bob" in [entry.name for entry in Leaderboard(versions["v10"])]


def test_a_carried_copy_takes_its_sources_annotation(versions, v1_board):
    Submission.objects.filter(pk=v1_board["cy"].pk).update(annotation="uses a lookup table")
    carried = {item.source.name: item.submission for item in carry_forward(versions["v2"], source=versions["v1"])}
    assert carried["cy"].annotation == "uses a lookup table" and carried["bob"].annotation == ""


def test_the_reference_is_carried_wherever_it_stands_and_is_the_new_versions_reference(versions, v1_board):
    set_reference(v1_board["cy"])  # third on v1's board
    carried = carry_forward(versions["v2"], source=versions["v1"], top=1)
    assert [item.source.name for item in carried] == ["ada", "cy"]
    copy = next(item.submission for item in carried if item.source.name == "cy")
    assert Submission.objects.get(pk=copy.pk).is_reference
    versions["v2"].refresh_from_db()
    assert versions["v2"].reference_fuel is None  # it counts once it passes there
    score_carried(carried, inline=True)
    versions["v2"].refresh_from_db()
    assert versions["v2"].reference_fuel == Submission.objects.get(pk=copy.pk).total_fuel
    assert [entry.speedup for entry in Leaderboard(versions["v2"])][1] == 1.0


def test_a_version_that_has_a_reference_keeps_it_when_entries_are_carried(versions, v1_board, modules):
    own = score(submit(versions["v2"], versions["v2"].default_variant(), "eve", wasm_file=modules["fast"]))
    set_reference(own)
    set_reference(v1_board["bob"])
    carried = carry_forward(versions["v2"], source=versions["v1"])
    score_carried(carried, inline=True)
    assert list(Submission.objects.filter(version=versions["v2"], is_reference=True)) == [own]
