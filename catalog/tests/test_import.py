"""Importing a catalog: immutability, idempotence, one transaction per version, "latest"."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from catalog.importer import IMPORTED, REFUSED, UNCHANGED, import_catalog, import_version
from catalog.models import Case, CaseVersion, HeldOutInput, Tag, Variant, VersionFile
from catalog.tests.trees import ADDER_V1

pytestmark = pytest.mark.django_db


def database_state() -> dict:
    """Every catalog row, so a test can assert that nothing at all changed."""
    state = {}
    for model in (Case, CaseVersion, Variant, HeldOutInput, VersionFile, Tag):
        rows = []
        for row in model.objects.order_by("pk").values():
            rows.append({key: bytes(value) if isinstance(value, memoryview) else value for key, value in row.items()})
        state[model.__name__] = rows
    state["tags"] = sorted(CaseVersion.tags.through.objects.values_list("caseversion_id", "tag_id"))
    return state


def actions(outcome) -> dict[str, str]:
    return {result.label: result.action for result in outcome.results}


def test_it_imports_every_valid_version(catalog):
    outcome = import_catalog(catalog.root)
    assert outcome.ok
    assert actions(outcome) == {
        "performance/easy/adder/v1": IMPORTED,
        "performance/easy/adder/v10": IMPORTED,
        "performance/easy/adder/v2": IMPORTED,
        "performance/medium/counter/1.0": IMPORTED,
    }
    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    assert version.case.folder == "performance/easy/adder"
    assert version.name == "Adder"
    assert version.tag_names == ["arithmetic", "wasm"]
    assert sorted(version.tags.values_list("name", flat=True)) == ["arithmetic", "wasm"]
    assert version.max_runtime_hours == "0.5"
    assert version.fuel_limit == 1_000_000
    assert version.max_memory_bytes == 1_048_576
    assert (version.smoke_count, version.stress_count) == (1, 2)
    assert version.description.startswith("# Adder")
    assert version.changelog.startswith("# Changelog")
    assert version.specs == [
        {"source": "specs/rules.md", "dest": "specs/rules.md"},
        {"source": "specs/limits.md.hbs", "dest": "specs/limits.md"},
    ]
    assert version.domains == [{"name": "efficiency", "weight": 1.5}]
    assert version.review_items == [{"prompt": "Is the loop tight?"}]
    assert version.manifest_text == catalog.read("test-case.toml")
    assert list(version.variants.values_list("slug", "name", "position")) == [
        ("base", "Base", 0), ("long-lists", "Long lists", 1),
    ]


def test_held_out_inputs_are_stored_in_the_database_with_their_ceilings(catalog):
    import_catalog(catalog.root)
    inputs = list(HeldOutInput.objects.filter(version__case__slug="adder", version__version="v1"))
    assert [(row.kind, row.input_path, row.fuel_runway, row.ceiling) for row in inputs] == [
        ("smoke", "smoke/one.json", "1", 1_000_000),
        ("stress", "cases/small.json", "1.15", 1_150_000),
        ("stress", "cases/large.json", "1", 1_000_000),
    ]
    assert bytes(inputs[1].input_bytes) == catalog.path("cases/small.json").read_bytes()
    assert bytes(inputs[1].expected_bytes) == catalog.path("cases/small.out").read_bytes()
    # Held-out files are not among the version's other files.
    paths = set(VersionFile.objects.filter(version=inputs[0].version).values_list("path", flat=True))
    assert "cases/small.json" not in paths and "smoke/one.out" not in paths
    assert {"test-case.toml", "prompt.hbs", "schemas/input.json", "workspaces/base/Cargo.toml"} <= paths


def test_scoring_data_survives_the_catalog_folder(catalog):
    """Scoring reads the database, so deleting the catalog afterwards loses nothing."""
    import_catalog(catalog.root)
    expected = catalog.path("cases/large.out").read_bytes()
    import shutil

    shutil.rmtree(catalog.root)
    row = HeldOutInput.objects.get(version__case__slug="adder", version__version="v1", input_path="cases/large.json")
    assert bytes(row.expected_bytes) == expected


def test_reimporting_an_unchanged_catalog_is_a_no_op(catalog):
    import_catalog(catalog.root)
    before = database_state()
    outcome = import_catalog(catalog.root)
    assert set(actions(outcome).values()) == {UNCHANGED}
    assert database_state() == before


def test_a_changed_published_version_is_refused_and_nothing_changes(catalog):
    import_catalog(catalog.root)
    before = database_state()
    catalog.write("cases/small.out", '{"sum": 7}\n')
    catalog.write("cases/small.json", '{"numbers": [1, 2, 4]}\n')
    outcome = import_catalog(catalog.root)
    result = next(result for result in outcome.results if result.label == ADDER_V1)
    assert result.action == REFUSED
    assert result.code == "immutable"
    assert "published versions are immutable: add a new version folder" in result.reasons[0]
    assert not outcome.ok
    assert database_state() == before


def test_a_new_version_that_holds_out_what_a_retired_version_published_is_refused(catalog):
    """A retired version's held-out files are public: a new version may not hold them out again.
    The retired version itself, scanned again, stays as it is."""
    import shutil

    import_catalog(catalog.root)
    CaseVersion.objects.filter(case__slug="adder").update(retired_at="2026-12-01T00:00:00Z")
    shutil.copytree(catalog.root / "performance/easy/adder/v10", catalog.root / "performance/easy/adder/v11")
    before = database_state()
    outcome = import_catalog(catalog.root)
    result = next(result for result in outcome.results if result.label.endswith("adder/v11"))
    assert (result.action, result.code) == (REFUSED, "held_out_published")
    assert "is one that adder v" in result.reasons[0] and "published when it was retired" in result.reasons[0]
    assert actions(outcome)[ADDER_V1] == UNCHANGED
    assert database_state() == before


def test_a_new_version_that_holds_out_a_file_an_imported_version_gives_solvers_is_refused(catalog):
    """adder v1 gives solvers an example input in its workspace (its run roots and kits hold it);
    a later version may not hold that input out, though v1 is not validated again (it is unchanged)."""
    import shutil

    catalog.write("workspaces/base/example.json", '{"numbers": [7, 8]}\n')
    assert import_catalog(catalog.root).ok
    new = catalog.root / "performance/easy/adder/v12"
    shutil.copytree(catalog.root / "performance/easy/adder/v10", new)
    (new / "smoke/one.json").write_text('{ "numbers": [7, 8] }\n')  # the same document, laid out otherwise
    (new / "smoke/one.out").write_text('{"sum": 15}\n')
    before = database_state()
    outcome = import_catalog(catalog.root)
    result = next(result for result in outcome.results if result.label.endswith("adder/v12"))
    assert (result.action, result.code) == (REFUSED, "held_out_given"), result
    assert "is a file that adder v1 gives solvers" in result.reasons[0]
    assert actions(outcome)[ADDER_V1] == UNCHANGED
    assert database_state() == before


def test_a_new_version_folder_is_imported_beside_the_published_ones(catalog):
    import_catalog(catalog.root)
    import shutil

    shutil.copytree(catalog.root / ADDER_V1, catalog.root / "performance/easy/adder/v11")
    catalog.write("changelog.md", "# v11\n", label="performance/easy/adder/v11")
    outcome = import_catalog(catalog.root)
    assert actions(outcome)["performance/easy/adder/v11"] == IMPORTED
    assert CaseVersion.objects.filter(case__slug="adder").count() == 4


def test_latest_is_the_highest_version_in_natural_order(catalog):
    import_catalog(catalog.root)
    ordered = list(CaseVersion.objects.filter(case__slug="adder").order_by("ordinal").values_list("version", flat=True))
    assert ordered == ["v1", "v2", "v10"]
    latest = CaseVersion.objects.latest_shown().get(case__slug="adder")
    assert latest.version == "v10"


def test_invalid_versions_are_refused_with_their_errors_and_valid_ones_still_import(catalog):
    catalog.edit("fuel_limit = 1_000_000", "fuel_limit = 0")
    outcome = import_catalog(catalog.root)
    result = next(result for result in outcome.results if result.label == ADDER_V1)
    assert result.action == REFUSED
    assert result.reasons == (f"{ADDER_V1}/test-case.toml: sandbox.fuel_limit: must be greater than 0, not 0",)
    assert not CaseVersion.objects.filter(case__slug="adder", version="v1").exists()
    assert CaseVersion.objects.filter(case__slug="adder", version="v2").exists()


def test_a_slug_published_by_another_folder_is_refused(catalog):
    import_catalog(catalog.root)
    import shutil

    moved = catalog.root / "performance/hard/adder-again/v1"
    shutil.copytree(catalog.root / ADDER_V1, moved)
    catalog.edit('difficulty = "easy"', 'difficulty = "hard"', label="performance/hard/adder-again/v1")
    shutil.rmtree(catalog.root / "performance/easy/adder")  # so the scan alone sees no clash
    before = database_state()
    outcome = import_catalog(catalog.root)
    result = next(result for result in outcome.results if result.label == "performance/hard/adder-again/v1")
    assert (result.action, result.code) == (REFUSED, "slug_taken")
    assert "already published by folder `performance/easy/adder`" in result.reasons[0]
    assert database_state() == before


def test_a_folder_published_under_another_slug_is_refused(catalog):
    import_catalog(catalog.root)
    import shutil

    new = catalog.root / "performance/easy/adder/v20"
    shutil.copytree(catalog.root / ADDER_V1, new)
    catalog.edit('slug = "adder"', 'slug = "summer"', label="performance/easy/adder/v20")
    for published in ("v1", "v2", "v10"):  # off disk, so the scan alone sees no clash
        shutil.rmtree(catalog.root / "performance/easy/adder" / published)
    before = database_state()
    outcome = import_catalog(catalog.root)
    result = next(result for result in outcome.results if result.label == "performance/easy/adder/v20")
    assert (result.action, result.code) == (REFUSED, "folder_taken")
    assert "already published as slug `adder`" in result.reasons[0]
    assert database_state() == before


def test_an_import_is_one_transaction_per_version(catalog, monkeypatch):
    """A failure while writing a version leaves none of its rows behind."""
    from catalog import importer

    real_renumber = importer.renumber_versions
    calls = {"count": 0}

    def fail_on_the_second_version(case):
        calls["count"] += 1
        if calls["count"] == 2:
            raise RuntimeError("disk full")
        real_renumber(case)

    monkeypatch.setattr(importer, "renumber_versions", fail_on_the_second_version)
    scan_sources = catalog.scan().versions
    import_version(scan_sources[0])
    before = database_state()
    with pytest.raises(RuntimeError):
        import_version(scan_sources[1])
    assert database_state() == before


def test_dry_run_writes_nothing_and_says_what_would_happen(catalog):
    outcome = import_catalog(catalog.root, dry_run=True)
    assert set(actions(outcome).values()) == {IMPORTED}
    assert outcome.results[0].line(dry_run=True).startswith("would import")
    assert Case.objects.count() == 0 and CaseVersion.objects.count() == 0


# --- the commands ------------------------------------------------------------------------------


def test_validate_catalog_passes_a_valid_catalog(catalog, capsys):
    call_command("validate_catalog", str(catalog.root))
    assert "OK: 4 version(s) of 2 case(s)" in capsys.readouterr().out
    assert CaseVersion.objects.count() == 0  # validation writes nothing


def test_validate_catalog_exits_1_and_lists_every_error(catalog, capsys):
    catalog.edit("fuel_limit = 1_000_000", "fuel_limit = 0")
    catalog.edit('slug = "counter"', 'slug = "Counter"', label="performance/medium/counter/1.0")
    with pytest.raises(SystemExit) as exit_info:
        call_command("validate_catalog", str(catalog.root))
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert f"{ADDER_V1}/test-case.toml: sandbox.fuel_limit: must be greater than 0, not 0" in captured.out
    assert "performance/medium/counter/1.0/test-case.toml: slug: `Counter` must match" in captured.out
    assert "2 error(s); 2 of 4 version folder(s) invalid" in captured.err


def test_import_catalog_prints_a_line_per_version(catalog, capsys):
    call_command("import_catalog", str(catalog.root))
    out = capsys.readouterr().out
    assert "imported     performance/easy/adder/v1" in out
    assert "4 imported, 0 unchanged, 0 refused" in out
    call_command("import_catalog", str(catalog.root))
    assert "0 imported, 4 unchanged, 0 refused" in capsys.readouterr().out


def test_import_catalog_exits_1_when_a_version_is_refused(catalog, capsys):
    call_command("import_catalog", str(catalog.root))
    catalog.write("changelog.md", "# rewritten history\n")
    with pytest.raises(SystemExit) as exit_info:
        call_command("import_catalog", str(catalog.root))
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert f"refused      {ADDER_V1}" in captured.out
    assert "immutable" in captured.out
    assert "0 imported, 3 unchanged, 1 refused" in captured.err


def test_import_catalog_dry_run_writes_nothing(catalog, capsys):
    call_command("import_catalog", str(catalog.root), "--dry-run")
    assert "would import performance/easy/adder/v1" in capsys.readouterr().out
    assert CaseVersion.objects.count() == 0


def test_the_file_a_held_out_symlink_names_is_not_stored_as_an_ordinary_file(catalog, db):
    import os

    from catalog.models import VersionFile

    catalog.write("data/real.out", catalog.read("cases/small.out"))
    catalog.remove("cases/small.out")
    os.symlink("../data/real.out", catalog.path("cases/small.out"))
    assert import_catalog(catalog.root).ok
    stored = set(VersionFile.objects.filter(version__version="v1", version__case__slug="adder").values_list("path",
                                                                                                            flat=True))
    assert "data/real.out" not in stored and "cases/small.out" not in stored
