"""The bundled catalog: valid, reproducible, solvable, and what the manual says it is.

Every case is read and validated here, every version's generator run again against its checksum
list and every validator run on every input; the cases this run proves (tests/bundled.py: five in
`make test`, every one in `make check-catalog`) are also built, checked with their solutions by
`check_case --strict`, and compared with the manual's table."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from catalog.manifest import version_sort_key
from catalog.models import CaseVersion
from catalog.seeding import seed_run
from engine.builds import pack_folder
from scoring.attempts import score
from scoring.building import build_source
from scoring.models import Submission
from scoring.recording import submit
from scoring.workbench.report import as_table
from scoring.workbench.reproduce import CHECKSUMS, GENERATOR, VALIDATOR, read_checksums
from scoring.workbench.solutions import case_solutions
from tests import bundled as scope

ROOT = Path(__file__).resolve().parent.parent
CATALOG = scope.CATALOG
EXAMPLES = scope.SOLUTIONS
SCAN = scope.whole_catalog_scan()
SLUGS = sorted({source.manifest.slug for source in SCAN.versions})
VERSIONS = {slug: sorted((source for source in SCAN.versions if source.manifest.slug == slug),
                         key=lambda source: version_sort_key(source.version)) for slug in SLUGS}
LATEST = {slug: versions[-1] for slug, versions in VERSIONS.items()}
PROVEN = [source for source in SCAN.versions if scope.proven(source.manifest.slug)]


def test_the_bundled_catalog_validates_and_holds_eight_public_cases_per_difficulty():
    assert [str(error) for error in SCAN.errors] == []
    public = [source.manifest for source in LATEST.values() if not source.manifest.experimental]
    counts = {difficulty: sum(1 for manifest in public if manifest.difficulty == difficulty)
              for difficulty in ("easy", "medium", "hard")}
    assert all(count >= 8 for count in counts.values()), counts
    assert set(scope.SUITE_CASES) <= set(SLUGS)


def test_an_experimental_version_a_case_with_several_versions_and_one_with_variants():
    assert any(source.manifest.experimental for source in SCAN.versions)
    assert [source.version for source in VERSIONS["range-sums"]] == ["v1", "v2", "v3", "v4"]
    lattice = LATEST["lattice"]
    assert len(lattice.manifest.variants) >= 2
    assert "smoke/belt-transport.json" in [case.input for case in lattice.manifest.smoke_cases]


@pytest.mark.parametrize("source", SCAN.versions, ids=[source.label for source in SCAN.versions])
def test_each_generator_reproduces_its_checksum_list(source, tmp_path):
    """In a copy without the files it should write, the generator writes them again: `sha256sum
    --check` agrees with its checksum list, and each is the version's file, byte for byte. (A
    version from before checksum lists: its held-out files.)"""
    copy = tmp_path / "version"
    shutil.copytree(source.path, copy)
    files = dict(source.files)
    listed = sorted(read_checksums_of(source))
    written = listed or [rel for case in source.manifest.cases for rel in (case.input, case.expected)]
    for rel in written:
        (copy / rel).unlink()
    subprocess.run([sys.executable, GENERATOR], cwd=copy, check=True, timeout=300, capture_output=True)
    if listed:
        checked = subprocess.run(["sha256sum", "--check", "--strict", "--quiet", CHECKSUMS], cwd=copy,
                                 capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    for rel in written:
        assert (copy / rel).read_bytes() == files[rel], rel


def read_checksums_of(source) -> dict[str, str]:
    from scoring.workbench.folder import FolderVersion
    from scoring.workbench.reproduce import Findings

    findings = Findings()
    listed = read_checksums(FolderVersion(source), findings)
    assert findings.errors == []
    return listed


VALIDATED = [source for source in SCAN.versions if VALIDATOR in dict(source.files)]


@pytest.mark.parametrize("source", VALIDATED, ids=[source.label for source in VALIDATED])
def test_each_validator_accepts_every_input_of_its_version(source):
    from scoring.workbench.folder import FolderVersion
    from scoring.workbench.reproduce import checked_inputs

    for rel in checked_inputs(FolderVersion(source)):
        done = subprocess.run([sys.executable, VALIDATOR, rel], cwd=source.path, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, (rel, done.stdout, done.stderr)


@pytest.mark.parametrize("slug", SLUGS)
def test_each_latest_version_ships_its_validator_checksums_and_pinned_compiler(slug):
    source = LATEST[slug]
    files = dict(source.files)
    assert {VALIDATOR, GENERATOR, CHECKSUMS} <= set(files), slug
    assert f"{source.manifest.workspace}/rust-toolchain.toml" in files
    assert [sample for sample in files if "/samples/" in sample and sample.endswith(".json")], slug


@pytest.mark.parametrize("slug", SLUGS)
def test_each_case_has_a_named_reference_another_accepted_a_slow_and_a_wrong_solution(slug):
    solutions = case_solutions(EXAMPLES, slug)
    assert solutions.problems == []
    names = {solution.name for solution in solutions.solutions}
    assert solutions.reference_for(LATEST[slug].version) is not None, slug
    accepted = [name for name in names if name.startswith("accepted/")]
    assert len(accepted) >= 2, names  # the reference and another approach
    assert any(name.startswith("wrong_answer/") for name in names), names
    slow = [name for name in names if name.split("/")[0] in ("over_limit", "fuel_exhausted", "timeout")]
    assert slow or len(accepted) >= 2, names  # filed under its verdict, or the slower accepted one


def test_every_example_copies_the_shared_abi_helpers_verbatim():
    template = (EXAMPLES / "rust-shared" / "abi.rs").read_bytes()
    workspaces = sorted(path.parent for path in EXAMPLES.glob("*/*/*/Cargo.toml"))
    copies = [*(workspace / "engine" / "src" / "abi.rs" for workspace in workspaces),
              ROOT / "catalog" / "startcase" / "reference" / "engine" / "src" / "abi.rs"]  # what startcase writes
    assert len(workspaces) >= 2 * len(SLUGS)
    for copy in copies:
        assert copy.read_bytes() == template, copy


# --- proven for real: built, scored, checked ------------------------------------------------------


def documented_rows() -> dict[str, str]:
    """slug → its row of the bundled catalog's table (docs/writing-cases.md)."""
    rows = {}
    section = (ROOT / "docs" / "writing-cases.md").read_text().split("## The bundled catalog", 1)[1].split("\n## ")[0]
    for line in section.splitlines():
        match = re.match(r"\| `([a-z0-9-]+)` \|", line)
        if match:
            rows[match.group(1)] = line
    return rows


@pytest.fixture(scope="module")
def checked() -> dict:
    """`check_case --strict` on the cases this run proves, every version, with their solutions
    (real builds, kept for the run)."""
    out = io.StringIO()
    try:
        call_command("check_case", str(scope.catalog()), "--solutions", str(EXAMPLES), "--json", "--strict",
                     stdout=out, stderr=io.StringIO())
    except SystemExit:
        pass  # its document says why; the tests below show it
    except Exception as failed:  # CommandError: the document was written first
        if not out.getvalue():
            raise failed
    return json.loads(out.getvalue())


def by_version(document: dict) -> dict:
    return {(version["case"], version["version"]): version for version in document["versions"] if "case" in version}


# The tests on check_case's document run in one process: the catalog is checked once.
@pytest.mark.slow
@pytest.mark.catalog
@pytest.mark.xdist_group("check-case")
def test_every_proven_case_passes_check_case_strict(checked):
    """Every solution gets the verdict of its folder, on every version; the expected answers are
    the references'; validators, generators and limits raise nothing (a superseded version's
    findings are notes: it is published, and the later version mends them)."""
    versions = by_version(checked)
    assert [problem for problem in checked["versions"] if "case" not in problem] == []
    assert {key: version["errors"] for key, version in versions.items() if version["errors"]} == {}
    assert {key: version["warnings"] for key, version in versions.items() if version["warnings"]} == {}
    assert {slug for slug, _ in versions} == {slug for slug in SLUGS if scope.proven(slug)}
    for slug in {slug for slug, _ in versions}:
        version = versions[(slug, LATEST[slug].version)]
        wrong = [run for run in version["solutions"] if run["expected"] == "wrong_answer"]
        assert wrong and all(run["decided_by"].startswith("smoke/") for run in wrong), slug  # a smoke input


@pytest.mark.slow
@pytest.mark.catalog
@pytest.mark.xdist_group("check-case")
def test_the_manuals_table_is_what_check_case_measures(checked):
    """The manual's table of the bundled cases is `check_case --table`'s, row for row, and each
    case's fastest and slow solutions are several-fold apart (the ranking means something)."""
    manifests = {(source.manifest.slug, source.version): source.manifest for source in SCAN.versions}
    names = {slug: [source.version for source in versions] for slug, versions in VERSIONS.items()}
    measured = {match.group(1): line for line in as_table(checked, manifests, names).splitlines()
                if (match := re.match(r"\| `([a-z0-9-]+)` \|", line))}
    documented = documented_rows()
    assert set(documented) == set(SLUGS), "every bundled case has its row in docs/writing-cases.md"
    for slug, line in measured.items():
        assert documented[slug] == line, "update docs/writing-cases.md's table: manage.py check_case --table"
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        fastest, slow = cells[4].replace(",", ""), cells[5].replace(",", "")
        if slow.isdigit():
            assert int(fastest) * 5 < int(slow), line


@pytest.mark.slow
@pytest.mark.catalog
@pytest.mark.parametrize("source", PROVEN, ids=[source.label for source in PROVEN])
def test_each_starter_workspace_builds_and_runs_cleanly(bundled, source):
    """A starter's answer may be wrong, but it builds, is a valid module, and never traps."""
    version = CaseVersion.objects.get(case__slug=source.manifest.slug, version=source.version)
    submission = score(submit(version, version.default_variant(), "starter",
                              folder=source.path / source.manifest.workspace))
    assert submission.status == Submission.State.SCORED, submission.message + submission.build_log
    statuses = set(submission.results.values_list("status", flat=True))
    assert statuses <= {"passed", "wrong_answer", "skipped"}, statuses


def _variants():
    return [(source, variant.slug) for source in PROVEN for variant in source.manifest.variants]


@pytest.mark.slow
@pytest.mark.catalog
@pytest.mark.parametrize("source, variant", _variants(), ids=[f"{s.label}:{v}" for s, v in _variants()])
def test_a_seeded_run_root_builds_with_the_manifests_commands(bundled, source, variant, tmp_path):
    version = CaseVersion.objects.get(case__slug=source.manifest.slug, version=source.version)
    root = seed_run(version, version.variants.get(slug=variant), tmp_path / "run").root
    assert (root / "PROMPT.md").is_file()
    for spec in source.manifest.specs:
        assert (root / spec.dest).is_file()
    built = build_source(pack_folder(root, max_bytes=settings.SCORING_MAX_SOURCE_BYTES), version)
    assert built.ok, built.log
    assert built.module.startswith(b"\0asm")
