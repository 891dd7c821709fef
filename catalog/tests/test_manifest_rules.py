"""Every catalog rule (docs/writing-cases.md): one broken copy of a valid catalog per rule.

Each case breaks exactly one rule and expects an error of the form `<file>: <key>: <message>`
that names the offending file and key, and expects the broken version not to validate.
"""

from __future__ import annotations

import os
from decimal import Decimal

import pytest

from catalog.manifest import (
    FORBIDDEN_TABLES,
    ManifestError,
    Variant,
    fuel_ceiling,
    humanize_slug,
    version_sort_key,
)
from catalog.tests.broken_manifests import RULES, VARIANT_FILE, VARIANT_RULES
from catalog.tests.trees import ADDER_V1

MANIFEST = f"{ADDER_V1}/test-case.toml"


def _find(errors: list[ManifestError], file: str, key: str, fragment: str) -> ManifestError | None:
    for error in errors:
        if error.file == file and error.key == key and fragment in error.message:
            return error
    return None


def assert_error(catalog, key: str, fragment: str, file: str = MANIFEST, label: str = ADDER_V1):
    scan = catalog.scan()
    found = _find(scan.errors, file, key, fragment)
    assert found, f"no error {file}: {key}: …{fragment}… in:\n" + "\n".join(map(str, scan.errors))
    assert label not in {source.label for source in scan.versions}, "the broken version still validated"
    return found


def test_the_valid_catalog_has_no_errors(catalog):
    scan = catalog.scan()
    assert scan.errors == []
    assert sorted(source.label for source in scan.versions) == [
        "performance/easy/adder/v1",
        "performance/easy/adder/v10",
        "performance/easy/adder/v2",
        "performance/medium/counter/1.0",
    ]


def test_errors_render_as_file_key_message():
    error = ManifestError("a/b/test-case.toml", "case[2].fuel_runway", "must be at least 1")
    assert str(error) == "a/b/test-case.toml: case[2].fuel_runway: must be at least 1"


@pytest.mark.parametrize("rule_id, mutate, key, fragment", RULES, ids=[rule[0] for rule in RULES])
def test_each_broken_rule_is_reported_with_file_and_key(catalog, rule_id, mutate, key, fragment):
    mutate(catalog)
    assert_error(catalog, key, fragment)


@pytest.mark.parametrize("table", sorted(FORBIDDEN_TABLES))
def test_forbidden_tables_are_errors_naming_the_table(catalog, table):
    header = "[[check]]" if table == "check" else f"[{table}]"
    catalog.append(f"\n{header}\nanything = 1\n")
    error = assert_error(catalog, table, "is not allowed in a performance case")
    assert header in error.message


def test_all_errors_of_a_manifest_are_reported_at_once(catalog):
    catalog.edit('slug = "adder"', 'slug = "Bad Slug"')
    catalog.edit("fuel_runway = 1.15", "fuel_runway = 0.5")
    catalog.edit("fuel_limit = 1_000_000", "fuel_limit = -1")
    catalog.remove("changelog.md")
    keys = {error.key for error in catalog.scan().errors if error.file == MANIFEST}
    assert {"slug", "case[1].fuel_runway", "sandbox.fuel_limit", "changelog"} <= keys


# --- variant files -----------------------------------------------------------------------------


@pytest.mark.parametrize("rule_id, text, key, fragment", VARIANT_RULES, ids=[rule[0] for rule in VARIANT_RULES])
def test_variant_file_rules(catalog, rule_id, text, key, fragment):
    catalog.write("variants/long-lists.toml", text)
    assert_error(catalog, key, fragment, file=VARIANT_FILE)


def test_variant_specs_accept_tables_and_plain_paths(catalog):
    catalog.write(
        "variants/long-lists.toml",
        'slug = "long-lists"\nname = "Long"\nspec = ["specs/long-lists.md", {source = "specs/rules.md", dest = '
        '"extra/rules.md"}]\n',
    )
    catalog.write("specs/rules.md", "# Rules\n")
    source = next(s for s in catalog.scan().versions if s.label == ADDER_V1)
    variant = source.manifest.variants[1]
    assert variant.name == "Long"
    assert [(spec.source, spec.dest) for spec in variant.specs] == [
        ("specs/long-lists.md", "specs/long-lists.md"),
        ("specs/rules.md", "extra/rules.md"),
    ]


# --- defaults ----------------------------------------------------------------------------------


def _adder(catalog):
    scan = catalog.scan()
    assert scan.errors == []
    return next(source for source in scan.versions if source.label == ADDER_V1).manifest


def test_defaults_of_optional_keys(catalog):
    catalog.edit("max_runtime_hours = 0.5\n", "")
    catalog.edit('variants = ["variants/base.toml", "variants/long-lists.toml"]\n', "")
    manifest = _adder(catalog)
    assert manifest.experimental is False
    assert manifest.max_runtime_hours == Decimal(1)
    assert manifest.variants == (Variant(slug="base", name="Base"),)
    assert manifest.cases[0].kind == "smoke"
    assert manifest.cases[2].kind == "stress"  # kind defaults to stress
    assert manifest.cases[2].fuel_runway == Decimal("1.0")
    assert manifest.cases[1].fuel_runway == Decimal("1.15")


def test_spec_dest_defaults_to_source_without_hbs(catalog):
    manifest = _adder(catalog)
    assert [(spec.source, spec.dest) for spec in manifest.specs] == [
        ("specs/rules.md", "specs/rules.md"),
        ("specs/limits.md.hbs", "specs/limits.md"),
    ]


def test_variant_name_defaults_to_the_humanized_slug(catalog):
    manifest = _adder(catalog)
    assert [(variant.slug, variant.name) for variant in manifest.variants] == [("base", "Base"), ("long-lists",
                                                                                                  "Long lists")]
    assert humanize_slug("long-belts") == "Long belts"


def test_domains_and_review_items_are_stored_as_given(catalog):
    manifest = _adder(catalog)
    assert manifest.domains == ({"name": "efficiency", "weight": 1.5},)
    catalog.edit("weight = 1.5", "weight = 1e400\nmissing = nan")
    assert _adder(catalog).domains == ({"name": "efficiency", "weight": "1E+400", "missing": "NaN"},)
    assert manifest.review_items == ({"prompt": "Is the loop tight?"},)


def test_fuel_ceiling_is_exact_decimal_arithmetic():
    assert fuel_ceiling(100, Decimal("1.15")) == 115  # float arithmetic gives 114
    assert fuel_ceiling(5_000_000_000, Decimal("10.0")) == 50_000_000_000
    assert fuel_ceiling(3, Decimal("1.5")) == 4  # floor(4.5)
    assert fuel_ceiling(9_223_372_036_854_775_807, Decimal(1)) == 9_223_372_036_854_775_807


# --- folder structure and cross-version rules --------------------------------------------------


def test_slug_must_be_the_same_for_every_version_of_a_folder(catalog):
    catalog.edit('slug = "adder"', 'slug = "adder-two"', label="performance/easy/adder/v10")
    assert_error(catalog, "slug", "differs from the slug of this folder's first version",
                 file="performance/easy/adder/v10/test-case.toml", label="performance/easy/adder/v10")


def test_slug_must_be_unique_across_folders(catalog):
    catalog.edit('slug = "counter"', 'slug = "adder"', label="performance/medium/counter/1.0")
    assert_error(catalog, "slug", "is already the slug of folder `performance/easy/adder`",
                 file="performance/medium/counter/1.0/test-case.toml", label="performance/medium/counter/1.0")


def test_version_folder_names_must_match_the_pattern(catalog):
    os.rename(catalog.root / "performance/easy/adder/v2", catalog.root / "performance/easy/adder/v 2")
    errors = catalog.errors()
    assert "performance/easy/adder/v 2: version folder name must match ^[A-Za-z0-9][A-Za-z0-9._-]*$" in errors


def test_leaderboard_is_not_a_version_name(catalog):
    os.rename(catalog.root / "performance/easy/adder/v2", catalog.root / "performance/easy/adder/leaderboard")
    assert "performance/easy/adder/leaderboard: `leaderboard` is reserved and cannot name a version" in catalog.errors()


def test_a_version_folder_needs_a_manifest(catalog):
    catalog.remove("test-case.toml")
    assert f"{ADDER_V1}: version folder has no test-case.toml" in catalog.errors()


def test_difficulty_folders_must_be_known(catalog):
    (catalog.root / "performance/extreme/thing/v1").mkdir(parents=True)
    assert any(error.startswith("performance/extreme: `extreme` is not a difficulty folder") for error in
    catalog.errors())


def test_other_test_types_are_refused_by_name(catalog):
    target = catalog.root / "adversarial/hard/duel/v1"
    target.mkdir(parents=True)
    (target / "test-case.toml").write_text('slug = "duel"\ntype = "adversarial"\ndifficulty = "hard"\n[match]\nrounds '
                                           '= 3\n')
    errors = catalog.errors()
    assert ("adversarial/hard/duel/v1/test-case.toml: type: test type `adversarial` is not importable: only "
            "`performance` cases can be imported") in errors
    # Its own tables are not reported against performance rules.
    assert not any("duel" in error and "[match]" in error for error in errors)


def test_a_symlink_anywhere_in_the_folder_that_leaves_it_is_an_error(catalog):
    os.symlink("/etc", catalog.path("specs/etc-link"))
    os.symlink("/etc/hostname", catalog.path("specs/hostname"))
    errors = catalog.errors()
    assert f"{ADDER_V1}/specs/etc-link: symlink points outside the version folder" in errors
    assert f"{ADDER_V1}/specs/hostname: symlink points outside the version folder" in errors


def test_a_case_or_version_folder_that_is_a_link_is_an_error_and_never_read(catalog, tmp_path):
    """A link could lead out of the catalog (to a folder anyone may write): never followed."""
    import shutil

    outside = tmp_path / "outside"
    shutil.copytree(catalog.path(""), outside / "v1")
    (outside / "v1" / "test-case.toml").write_text(
        (outside / "v1" / "test-case.toml").read_text().replace('slug = "adder"', 'slug = "linked"'))
    os.symlink(outside, catalog.root / "performance/easy/linked")
    os.symlink(outside / "v1", catalog.root / "performance/easy/adder/v9")
    os.symlink(tmp_path / "nowhere", catalog.root / "performance/easy/dangling")  # no folder: nothing to read
    scan = catalog.scan()
    errors = [str(error) for error in scan.errors]
    link = "is a link to a folder: a catalog's folders are read where they are, never through a link"
    assert sorted(errors) == [f"performance/easy/adder/v9: {link}", f"performance/easy/linked: {link}"], errors
    assert not any("linked" in source.label or "/v9" in source.label for source in scan.versions)


def test_a_folder_made_a_link_while_the_catalog_is_walked_is_never_read(catalog, tmp_path, monkeypatch):
    """Between listing a case's versions and reading one, someone who may write to the catalog
    swaps the case folder for a link to another place: the version is refused, not read there."""
    import shutil

    from catalog.manifest import scan as scanning

    outside = tmp_path / "outside"
    shutil.copytree(catalog.path(""), outside / "v1")
    (outside / "v1" / "description.md").write_text("# Secret\n\nSECRET-OUTSIDE\n")
    case = catalog.root / "performance/easy/adder"
    listed = scanning._subdirectories

    def swapped(path, root, errors):
        found = listed(path, root, errors)
        if path == case:  # listed: now the case folder goes, and a link to the other place takes its name
            case.rename(tmp_path / "adder-real")
            os.symlink(outside, case)
        return found

    monkeypatch.setattr(scanning, "_subdirectories", swapped)
    scan = catalog.scan()
    assert f"{ADDER_V1}: {scanning.LINKED_FOLDER}" in [str(error) for error in scan.errors]
    assert not any(source.label == ADDER_V1 for source in scan.versions)


def test_huge_files_are_refused_without_being_read(catalog):
    from catalog.manifest import FileLimits, scan_catalog

    with open(catalog.path("cases/huge.bin"), "wb") as sparse:
        sparse.truncate(300 << 20)  # a 300 MiB sparse file: cheap to make, costly to read
    scan = scan_catalog(catalog.root, limits=FileLimits(max_file_bytes=256 << 20))
    assert (f"{ADDER_V1}/cases/huge.bin: is 314,572,800 bytes, more than the 268,435,456-byte limit for one file"
            in map(str, scan.errors))
    assert ADDER_V1 not in {source.label for source in scan.versions}


@pytest.mark.parametrize("command", ["validate_catalog", "import_catalog"])
def test_a_huge_held_out_input_is_refused_by_name_under_a_memory_cap(catalog, tmp_path, command):
    """A 3 GiB sparse held-out input, under a 2 GB address-space cap: one line naming the file and
    its cap, in a few seconds, whatever rule reads the file (the schema check, the privacy check)."""
    import resource
    import subprocess
    import sys

    from tests.helpers import ROOT, SubprocessDatabase, command_env

    with open(catalog.path("smoke/one.json"), "wb") as sparse:
        sparse.truncate(3 << 30)

    def capped():
        resource.setrlimit(resource.RLIMIT_AS, (2_000_000_000, 2_000_000_000))

    database = SubprocessDatabase.migrated(tmp_path)
    try:
        done = subprocess.run([sys.executable, "manage.py", command, str(catalog.root)], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, preexec_fn=capped, env=command_env(database, tmp_path))
        imported = database.query("SELECT c.slug, v.version FROM catalog_caseversion v JOIN catalog_case c "
                                  "ON v.case_id = c.id")
        assert ("adder", "v1") not in imported  # the others are imported as usual
    finally:
        database.drop()
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in said and "MemoryError" not in said, said
    assert f"{ADDER_V1}/smoke/one.json: is 3,221,225,472 bytes, more than the 268,435,456-byte limit for one file" \
        in said


def test_a_version_folder_over_the_total_or_count_caps_is_refused(catalog):
    from catalog.manifest import FileLimits, scan_catalog

    errors = [str(e) for e in scan_catalog(catalog.root, limits=FileLimits(max_version_bytes=1_000)).errors]
    assert any("the version folder holds more than 1,000 bytes" in error for error in errors)
    errors = [str(e) for e in scan_catalog(catalog.root, limits=FileLimits(max_files=5)).errors]
    assert any("the version folder holds more than 5 files" in error for error in errors)


def test_a_symlink_inside_the_folder_is_fine(catalog):
    os.symlink("rules.md", catalog.path("specs/rules-link.md"))
    catalog.edit('source = "specs/rules.md"', 'source = "specs/rules-link.md"')
    assert catalog.errors() == []


def test_a_missing_catalog_folder_is_an_error(tmp_path):
    from catalog.manifest import scan_catalog

    scan = scan_catalog(tmp_path / "nowhere")
    assert [str(error) for error in scan.errors] == [f"{tmp_path / 'nowhere'}: catalog folder does not exist"]


# --- versions ----------------------------------------------------------------------------------


def test_versions_sort_naturally():
    def natural(versions):
        return sorted(versions, key=version_sort_key)

    assert natural(["v10", "v2", "v1"]) == ["v1", "v2", "v10"]
    assert natural(["1.10", "1.9", "1.2.3", "2.0"]) == ["1.2.3", "1.9", "1.10", "2.0"]
    assert natural(["v1-rc", "v1", "v01"])[-1] == "v1-rc"


def test_digest_covers_paths_and_bytes(catalog):
    before = {source.label: source.digest for source in catalog.scan().versions}
    assert before["performance/easy/adder/v1"] == before["performance/easy/adder/v10"]  # same bytes
    catalog.write("specs/rules.md", "# Rules\n\nReturn the sum!\n")
    after = {source.label: source.digest for source in catalog.scan().versions}
    assert after[ADDER_V1] != before[ADDER_V1]
    os.rename(catalog.path("specs/long-lists.md"), catalog.path("specs/long.md"))
    catalog.edit('spec = ["specs/long-lists.md"]', 'spec = ["specs/long.md"]', rel="variants/long-lists.toml")
    renamed = {source.label: source.digest for source in catalog.scan().versions}
    assert renamed[ADDER_V1] not in (before[ADDER_V1], after[ADDER_V1])


# --- names that cannot be stored are errors, never a failed import -------------------------------


def test_a_file_name_that_is_not_utf8_is_an_error_naming_the_file(catalog):
    bad = os.fsencode(catalog.path("specs")) + b"/caf\xe9.md"
    with open(bad, "wb") as stream:
        stream.write(b"# notes\n")
    error = assert_error(catalog, "", "file name is not valid UTF-8", file=f"{ADDER_V1}/specs/caf\\xe9.md")
    assert str(error) == f"{ADDER_V1}/specs/caf\\xe9.md: file name is not valid UTF-8"


def test_a_file_name_with_control_characters_is_an_error(catalog):
    catalog.write("specs/line\nbreak.md", "# notes\n")
    assert_error(catalog, "", "file name contains control characters", file=f"{ADDER_V1}/specs/line\\x0abreak.md")


def test_a_workspace_file_name_with_a_backslash_is_an_error(catalog):
    """A Windows extractor would read it as a path climbing out of the kit's folder."""
    catalog.write("workspaces/base/..\\..\\..\\..\\evil.bat", "echo owned\n")
    assert_error(catalog, "", "file name contains a backslash",
                 file=f"{ADDER_V1}/workspaces/base/..\\..\\..\\..\\evil.bat")


def test_a_version_folder_name_with_a_trailing_newline_is_an_error(catalog):
    import shutil

    shutil.copytree(catalog.root / ADDER_V1, catalog.root / "performance/easy/adder/v3\n")
    messages = [str(error) for error in catalog.scan().errors]
    assert any(message.startswith("performance/easy/adder/v3\\x0a") for message in messages), messages


def test_a_case_folder_name_that_is_not_utf8_is_an_error(catalog):
    import shutil

    target = os.fsencode(catalog.root / "performance/easy") + b"/add\xff"
    shutil.copytree(os.fsencode(catalog.root / ADDER_V1), target + b"/v1")
    scan = catalog.scan()
    assert "performance/easy/add\\xff: folder name is not valid UTF-8" in [str(error) for error in scan.errors]


def test_a_version_folder_name_longer_than_the_database_stores_is_an_error(catalog):
    import shutil

    long_name = "v" + "1" * 120
    shutil.copytree(catalog.root / ADDER_V1, catalog.root / f"performance/easy/adder/{long_name}")
    assert f"performance/easy/adder/{long_name}: version folder name must be at most 100 characters" in catalog.errors()


def test_a_symlink_loop_is_an_error_not_a_traceback(catalog):
    os.symlink("b", catalog.path("a"))
    os.symlink("a", catalog.path("b"))
    assert_error(catalog, "", "symlink loops or cannot be resolved", file=f"{ADDER_V1}/a")


DISTINCT_INPUT = '{"numbers": [48151623, 42, 7, 99]}\n'


def test_no_version_may_seed_what_another_version_holds_out(catalog):
    catalog.write("cases/large.json", DISTINCT_INPUT)  # v1's own held-out input
    catalog.write("workspaces/base/sample.json", DISTINCT_INPUT, label="performance/easy/adder/v10")
    error = assert_error(catalog, "workspace", "has the content of a held-out file of `performance/easy/adder/v1`",
                         file="performance/easy/adder/v10/test-case.toml", label="performance/easy/adder/v10")
    assert "`workspaces/base/sample.json`" in error.message
    assert ADDER_V1 in {source.label for source in catalog.scan().versions}  # v1 itself is fine


def test_no_new_version_may_seed_what_an_imported_version_holds_out(catalog, db):
    import shutil

    from catalog.importer import import_catalog

    catalog.write("cases/large.json", DISTINCT_INPUT)
    assert import_catalog(catalog.root).ok
    new = "performance/easy/adder/v11"
    shutil.copytree(catalog.root / "performance/easy/adder/v10", catalog.root / new)
    catalog.write("workspaces/base/sample.json", DISTINCT_INPUT, label=new)
    shutil.rmtree(catalog.root / ADDER_V1)  # gone from the folder, still published
    outcome = import_catalog(catalog.root)
    refused = next(result for result in outcome.results if result.label == new)
    assert refused.action == "refused"
    assert any(f"has the content of a held-out file of `{ADDER_V1}`" in reason for reason in refused.reasons)


# --- names the site's template context lacks: warnings, never refusals ------------------------------


def test_names_the_site_lacks_are_warnings_and_the_version_still_validates(catalog):
    catalog.write("prompt.hbs", "Hi {{name}},\nmodel: {{harness_model}}\ncase: {{case.nmae}}\n")
    scan = catalog.scan()
    assert ADDER_V1 in {source.label for source in scan.versions}
    messages = [str(warning) for warning in scan.warnings_for(ADDER_V1)]
    assert (f"{MANIFEST}: prompt: `prompt.hbs` line 1: `name` names nothing in the site's template context and "
            "renders as nothing") in messages[0]
    assert any("line 2: `harness_model` names nothing" in message for message in messages)
    assert any("line 3: `case.nmae`" in message and "(did you mean `case.name`?)" in message for message in messages)
    assert not any("nmae" in str(error) for error in scan.errors)


def test_paths_are_normalised_once_by_the_reader(catalog):
    """A manifest may spell a path `./specs/../specs/rules.md`; every reader after the manifest
    sees its one spelling."""
    catalog.edit('prompt = "prompt.hbs"', 'prompt = "./specs/../prompt.hbs"')
    scan = catalog.scan()
    assert scan.errors == []
    source = next(source for source in scan.versions if source.label == ADDER_V1)
    assert source.manifest.prompt == "prompt.hbs"
