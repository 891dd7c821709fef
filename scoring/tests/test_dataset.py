"""The public dataset (`manage.py export_dataset`, docs/dataset.md), read by the tools a reader
uses: each Parquet table with Hugging Face's `datasets`, the folder as the Hub reads a dataset
repository (its card's configs), and the Croissant file with mlcroissant; its rows are the API's
rows, its fuel columns 64-bit integers, and no held-out byte is in any file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import CaseVersion, HeldOutInput
from scoring.agents import refresh
from scoring.boards.updates import set_hidden
from scoring.dataset.columns import TABLES
from scoring.dataset.exporting import ExportRefused, export_dataset
from scoring.dataset.folders import EXPORT_FILES, TABLE_FILES, latest_export
from scoring.models import Submission
from scoring.references import set_reference
from tests.factories import make_trials

pytestmark = pytest.mark.django_db

AT = "2026-12-05T03:00:00Z"
LATER = datetime(2027, 1, 1, tzinfo=timezone.utc)
AGENTS = [("openai/gpt-5.1", "mini-swe"), ("claude-x@2026-10", ""), ("my model", "mini-swe")]
FUEL_COLUMNS = {"cases": ("fuel_limit", "max_memory_bytes", "best_fuel", "reference_fuel"),
                "entries": ("total_fuel", "overshoot", "rank", "shared_rank", "input_tokens"),
                "results": ("fuel", "fuel_limit", "ceiling", "overshoot"), "agent_cells": ("best_fuel",)}


@pytest.fixture
def site(board, settings):
    """adder v1's board (alice twice, bob, carol: real results) with alice's best as its reference;
    agents' trials on adder's latest version (the slowest of them that passed is its reference) and
    on the experimental counter; bob's entry and one trial hidden; the agents matrix refreshed;
    every held-out input and answer made bytes that could be found in a file."""
    adder = CaseVersion.objects.get(case__slug="adder", version="v10")
    counter = CaseVersion.objects.get(case__slug="counter")
    assert counter.experimental and not settings.CATALOG_SHOW_EXPERIMENTAL
    trials = make_trials([adder, counter], AGENTS, trials=3, seed=7)
    hidden = [board["bob"].pk, trials[0].pk]
    set_hidden(Submission.objects.filter(pk__in=hidden), True)
    set_reference(board["alice-2"])
    set_reference(Submission.objects.filter(version=adder, passed=True, hidden=False).order_by("total_fuel").last())
    refresh()
    for row in HeldOutInput.objects.all():
        row.input_bytes = f'{{"secret input": "{row.pk}/{row.version_id}"}}'.encode()
        row.expected_bytes = f'{{"secret answer": "{row.pk}/{row.version_id}"}}'.encode()
        row.save()
    return {"hidden": hidden}


# adder v1, v2 and v10 and the experimental counter 1.0 hold out some of the same files.
RETIRED_TOGETHER = ("adder", "v1", "v2", "v10", "--with", "counter/1.0")


def export(tmp_path, name: str = "export") -> Path:
    output = io.StringIO()
    call_command("export_dataset", str(tmp_path / name), "--at", AT, stdout=output)
    tables = 6 if CaseVersion.objects.public().filter(retired_at__isnull=False).exists() else 5  # retired_inputs
    assert output.getvalue().splitlines()[-1].startswith(f"exported {tables} tables (")
    assert output.getvalue().splitlines()[-1].endswith(f"to {tmp_path / name} at {AT}")
    return tmp_path / name


def table(folder: Path, name: str) -> pa.Table:
    return pq.read_table(folder / f"{name}.parquet")


def every_page(client, url: str, **query) -> list[dict]:
    found, page = [], client.get(url, {**query, "page_size": 200}).json()
    found += page["results"]
    while page["next"]:
        page = client.get(page["next"]).json()
        found += page["results"]
    return found


def test_the_tables_hold_the_apis_rows_and_nothing_it_hides(site, tmp_path, client):
    folder = export(tmp_path)
    # Every file but retired_inputs, which is left out while no version is retired.
    assert sorted(path.name for path in folder.iterdir()) == sorted(set(EXPORT_FILES) - {"retired_inputs.parquet"})
    cases, entries, results = (table(folder, name).to_pylist() for name in ("cases", "entries", "results"))

    listed = every_page(client, "/api/v1/cases/")
    versions = [(case["slug"], version) for case in listed
                for version in client.get(f"/api/v1/cases/{case['slug']}/").json()["versions"]]
    assert sorted((row["case"], row["version"]) for row in cases) == sorted(versions)
    assert "counter" not in {row["case"] for row in cases} | {row["case"] for row in entries}

    for slug, version in versions:
        on_board = [row for row in entries if (row["case"], row["version"]) == (slug, version)]
        every = every_page(client, f"/api/v1/cases/{slug}/leaderboard/", version=version, all=1)
        best = every_page(client, f"/api/v1/cases/{slug}/leaderboard/", version=version)
        assert [row["submission"] for row in on_board] == [row["submission"] for row in every]
        assert [(row["rank_among_all"], row["shared_rank_among_all"], row["total_fuel"], row["speedup"])
                for row in on_board] == [(row["rank"], row["shared_rank"], row["total_fuel"], row["speedup"])
                                         for row in every]
        assert [(row["submission"], row["rank"], row["shared_rank"]) for row in on_board if row["on_leaderboard"]] \
            == [(row["submission"], row["rank"], row["shared_rank"]) for row in best]
    shown = {row["submission"] for row in entries} | {row["submission"] for row in results}
    assert not shown & set(site["hidden"])

    documents = {row["submission"]: client.get(f"/api/v1/submissions/{row['submission']}/").json()["results"]
                 for row in entries}
    assert [(row["submission"], row["input_path"], row["fuel"], row["status"]) for row in results] == [
        (submission, result["input"], result["fuel"], result["status"])
        for submission, found in documents.items() for result in found]
    assert any(row["fuel"] for row in results) and any(row["speedup"] for row in entries)


def test_the_agents_tables_are_the_matrix_of_the_api(site, tmp_path, client):
    folder = export(tmp_path)
    agents, cells = table(folder, "agents").to_pylist(), table(folder, "agent_cells").to_pylist()
    lines = every_page(client, "/api/v1/agents/", cases_page_size=100)
    assert len(agents) == len(lines) == len(AGENTS)
    assert [(row["rank"], row["model"], row["harness"], row["score"], row["fast_2"], row["fast_1_5_at_3"])
            for row in agents] == [(line["rank"], line["model"], line["harness"], line["score"],
                                    line["fast"]["2"], line["fast_at_k"]["shares"]["1.5"]) for line in lines]
    assert [(row["model"], row["case"], row["best_fuel"], row["share"]) for row in cells] == [
        (line["model"], cell["case"], cell["best_fuel"], cell["share"]) for line in lines for cell in line["cells"]]
    assert {row["case"] for row in cells} == {"adder"}  # the matrix counts no experimental case
    assert all(row["fast_1"] is not None and row["speedup_cases"] is not None for row in agents)


def test_experimental_cases_are_in_it_where_the_site_shows_them(site, tmp_path, settings, client):
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    folder = export(tmp_path)
    cases, entries = table(folder, "cases").to_pylist(), table(folder, "entries").to_pylist()
    assert [(row["version"], row["experimental"]) for row in cases if row["case"] == "counter"] == [("1.0", True)]
    assert len([row for row in entries if row["case"] == "counter"]) == client.get(
        "/api/v1/cases/counter/leaderboard/", {"all": 1}).json()["count"] > 0


def test_counts_and_fuel_stay_64_bit_integers(site, tmp_path):
    folder = export(tmp_path)
    for name, columns in FUEL_COLUMNS.items():
        schema = pq.read_schema(folder / f"{name}.parquet")
        assert {column: schema.field(column).type for column in columns} == {column: pa.int64() for column in columns}
    entries = table(folder, "entries")
    assert entries.column("total_fuel").null_count > 0  # carol, and failed trials: null, never NaN or 0
    assert pq.read_schema(folder / "entries.parquet").field("speedup").type == pa.float64()


def test_the_hub_and_croissant_read_every_table(site, tmp_path):
    """Each table loads with `datasets` as its card declares it (features, rows), the folder loads
    as a Hub repository by its card's configs, and mlcroissant reads every record of every set."""
    from datasets import Features, Value, load_dataset  # the readers take a second or two to import: here only

    call_command("retire", *RETIRED_TOGETHER, stdout=io.StringIO())  # so that every table has rows
    folder, cache = export(tmp_path), str(tmp_path / "hf")
    card = yaml.safe_load((folder / "README.md").read_text().split("---\n")[1])
    assert card["license"] == "cc-by-4.0"
    assert [config["config_name"] for config in card["configs"]] == [item.name for item in TABLES]
    declared = {info["config_name"]: info for info in card["dataset_info"]}
    for item in TABLES:
        loaded = load_dataset("parquet", data_files=str(folder / item.file), split="train", cache_dir=cache)
        assert loaded.features == Features._from_yaml_list(declared[item.name]["features"])
        assert loaded.num_rows == declared[item.name]["splits"][0]["num_examples"] == table(folder, item.name).num_rows
        assert load_dataset(str(folder), item.name, split="train", cache_dir=cache).num_rows == loaded.num_rows
    assert load_dataset("parquet", data_files=str(folder / "entries.parquet"), split="train",
                        cache_dir=cache).features["total_fuel"] == Value("int64")

    import mlcroissant

    dataset = mlcroissant.Dataset(jsonld=folder / "croissant.json")
    for item in TABLES:
        assert len(list(dataset.records(item.name))) == table(folder, item.name).num_rows
    fuel = [record["results/fuel"] for record in dataset.records("results")]
    assert fuel == table(folder, "results").column("fuel").to_pylist()


def test_no_held_out_input_or_answer_is_in_any_file(site, tmp_path):
    folder = export(tmp_path)
    secrets = [bytes(value) for pair in HeldOutInput.objects.values_list("input_bytes", "expected_bytes")
               for value in pair]
    assert len(secrets) > 10
    readable = [path.read_bytes() for path in folder.iterdir()]
    readable += [json.dumps(table(folder, name.removesuffix(".parquet")).to_pylist(), default=str).encode()
                 for name in TABLE_FILES if (folder / name).exists()]  # the tables as their values, not compressed
    assert not (folder / "retired_inputs.parquet").exists()  # no version is retired
    assert [secret for secret in secrets if any(secret in content for content in readable)] == []


def test_a_retired_versions_held_out_data_is_in_it_and_no_current_versions(site, tmp_path):
    """Retiring adder v1, v2 and v10 (and counter 1.0, which shares their files) publishes their
    inputs and answers (`retired_inputs`, `cases.retired_at`; counter is experimental, so not
    shown); a current version's stay out of every file."""
    current = CaseVersion.objects.get(case__slug="adder", version="v2")
    CaseVersion.objects.filter(pk=current.pk).update(held_out_digests=[])  # made to share nothing: stays current
    call_command("retire", "adder", "v1", "v10", "--with", "counter/1.0", stdout=io.StringIO())
    folder = export(tmp_path)
    retired = CaseVersion.objects.filter(case__slug="adder", retired_at__isnull=False).order_by("ordinal")
    assert [version.version for version in retired] == ["v1", "v10"]
    rows = table(folder, "retired_inputs").to_pylist()
    assert [(row["case"], row["version"], row["input_path"], row["input"].encode(), row["expected"].encode())
            for row in rows] == [("adder", version.version, item.input_path, bytes(item.input_bytes),
                                  bytes(item.expected_bytes))
                                 for version in retired for item in version.held_out_inputs.order_by("position")]
    cases = {(row["case"], row["version"]): row["retired_at"] for row in table(folder, "cases").to_pylist()}
    assert [key for key, when in cases.items() if when is not None] == [("adder", "v1"), ("adder", "v10")]
    secrets = [bytes(value) for pair in HeldOutInput.objects.filter(version=current).values_list(
        "input_bytes", "expected_bytes") for value in pair]
    assert len(secrets) > 4
    readable = [path.read_bytes() for path in folder.iterdir()]
    readable += [json.dumps(table(folder, name.removesuffix(".parquet")).to_pylist(), default=str).encode()
                 for name in TABLE_FILES]
    assert [secret for secret in secrets if any(secret in content for content in readable)] == []


def test_a_second_export_of_the_same_data_is_the_same_bytes(site, tmp_path):
    first, second = export(tmp_path, "first"), export(tmp_path, "second")
    assert {path.name: path.read_bytes() for path in first.iterdir()} == {
        path.name: path.read_bytes() for path in second.iterdir()}
    later = export_dataset(tmp_path / "later", exported_at=LATER)
    changed = [path.name for path in first.iterdir() if path.read_bytes() != (later.folder / path.name).read_bytes()]
    assert sorted(changed) == ["README.md", "croissant.json"]  # the export's time, and nothing else


@pytest.mark.parametrize("make", ["a file", "a folder that holds a file", "a folder inside a file"])
def test_a_bad_folder_is_a_one_line_error_and_writes_nothing(db, tmp_path, make):
    target = tmp_path / "target"
    if make == "a file":
        target.write_text("x")
    elif make == "a folder that holds a file":
        target.mkdir()
        (target / "notes").write_text("x")
    else:
        (tmp_path / "plain").write_text("x")
        target = tmp_path / "plain" / "export"
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(CommandError) as refused:
        call_command("export_dataset", str(target), stdout=io.StringIO())
    assert "\n" not in str(refused.value) and str(target) in str(refused.value)
    assert sorted(tmp_path.rglob("*")) == before


def test_an_unwritable_place_is_refused_and_leaves_nothing(db, tmp_path):
    place = Path("/proc/fuelboard-export") if os.geteuid() == 0 else tmp_path / "closed" / "export"
    if os.geteuid() != 0:
        place.parent.mkdir(mode=0o500)
    with pytest.raises(ExportRefused) as refused:
        export_dataset(place, exported_at=LATER)
    assert refused.value.code == "unwritable" and not place.exists()


def test_the_api_links_the_latest_export_and_the_site_serves_its_files(db, tmp_path, settings, client):
    """The latest export is the folder holding one whose name sorts last; its files, and no other
    name, are served at /datasets/latest/."""
    assert client.get("/api/v1/").json()["dataset"] is None
    settings.DATASET_DIR = str(tmp_path)
    export(tmp_path, "2026-12-04")
    export(tmp_path, "2026-12-05")
    (tmp_path / ".export-unfinished").mkdir()
    (tmp_path / "2026-12-06").mkdir()  # no export in it
    (tmp_path / "zz-link").symlink_to(tmp_path / "2026-12-04")  # a link is no export
    assert latest_export(tmp_path) == tmp_path / "2026-12-05"
    assert client.get("/api/v1/").json()["dataset"] == "http://127.0.0.1:8000/datasets/latest/croissant.json"
    assert client.get("/datasets/latest/retired_inputs.parquet").status_code == 404  # none retired: not written
    for name in set(EXPORT_FILES) - {"retired_inputs.parquet"}:
        response = client.get(f"/datasets/latest/{name}")
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == (tmp_path / "2026-12-05" / name).read_bytes()
    assert client.get("/datasets/latest/entries.parquet")["Content-Type"] == "application/vnd.apache.parquet"
    for name in ("..%2F2026-12-04%2Fcases.parquet", "settings.py", "2026-12-04", ".export-unfinished"):
        assert client.get(f"/datasets/latest/{name}").status_code == 404


def test_every_table_and_column_is_in_the_manual_and_is_a_file_the_site_serves():
    """docs/dataset.md names every column of every table; the files the site serves from an export
    (scoring/dataset/folders.py, which loads no pyarrow) are the tables' files."""
    manual = (Path(__file__).resolve().parents[2] / "docs" / "dataset.md").read_text()
    missing = [f"{item.name}.{column.name}" for item in TABLES for column in item.columns
               if f"`{column.name}`" not in manual]
    assert missing == []
    assert TABLE_FILES == tuple(item.file for item in TABLES)


def test_the_licence_is_the_operators_and_a_malformed_one_stops_start_up(db, tmp_path, settings):
    settings.DATASET_LICENSE = "odc-by"
    folder = export(tmp_path)
    assert yaml.safe_load((folder / "README.md").read_text().split("---\n")[1])["license"] == "odc-by"
    assert json.loads((folder / "croissant.json").read_text())["license"] == "odc-by"
    started = subprocess.run([sys.executable, "manage.py", "check"], cwd=Path(__file__).resolve().parents[2],
                             env={"PATH": "/usr/bin:/bin", "VAR_DIR": str(tmp_path / "var"),
                                  "DATASET_LICENSE": "CC BY: 4.0"}, capture_output=True, text=True)
    assert started.returncode != 0 and "DATASET_LICENSE='CC BY: 4.0': a licence identifier" in started.stderr
