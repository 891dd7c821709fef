"""The bundled catalog: valid, reproducible, solvable, and what the manual says it is."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from catalog.importer import import_scan
from catalog.manifest import scan_catalog
from catalog.models import CaseVersion
from catalog.seeding import seed_run
from engine.builds import pack_folder
from scoring.examples import example_folders
from scoring.models import Submission
from scoring.building import build_source
from scoring.attempts import score
from scoring.recording import submit

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "test-cases"
EXAMPLES = ROOT / "examples" / "submissions"
SCAN = scan_catalog(CATALOG)
SLUGS = sorted({source.manifest.slug for source in SCAN.versions})


def test_the_bundled_catalog_validates():
    assert [str(error) for error in SCAN.errors] == []
    assert SLUGS == ["distinct", "lattice", "range-sums", "rising"]


def test_one_case_per_difficulty_an_experimental_one_and_a_case_with_two_versions():
    by_difficulty = {source.manifest.difficulty for source in SCAN.versions if not source.manifest.experimental}
    assert by_difficulty == {"easy", "medium", "hard"}
    assert any(source.manifest.experimental for source in SCAN.versions)
    versions = {}
    for source in SCAN.versions:
        versions.setdefault(source.manifest.slug, []).append(source.version)
    assert sorted(versions["range-sums"]) == ["v1", "v2"]
    lattice = next(source for source in SCAN.versions if source.manifest.slug == "lattice")
    assert len(lattice.manifest.variants) >= 2
    assert "smoke/belt-transport.json" in [case.input for case in lattice.manifest.smoke_cases]


@pytest.mark.parametrize("source", SCAN.versions, ids=[source.label for source in SCAN.versions])
def test_each_generator_reproduces_its_inputs_and_answers(source, tmp_path):
    """The Python reference wrote every held-out file; running it again changes nothing."""
    copy = tmp_path / "version"
    shutil.copytree(source.path, copy)
    subprocess.run([sys.executable, "generator/generate.py"], cwd=copy, check=True)
    for case in source.manifest.cases:
        for rel in (case.input, case.expected):
            assert (copy / rel).read_bytes() == (source.path / rel).read_bytes(), rel


def test_every_example_copies_the_shared_abi_helpers_verbatim():
    template = (ROOT / "examples" / "rust-shared" / "abi.rs").read_bytes()
    copies = sorted(EXAMPLES.glob("*/*/engine/src/abi.rs"))
    assert len(copies) == 8
    for copy in copies:
        assert copy.read_bytes() == template, copy


# --- scored for real ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def bundled_scan():
    """The bundled catalog validated as import_catalog(CATALOG) validates it into an empty
    database (nothing unchanged, nothing held out elsewhere), once per test process: two seconds
    of validation, then a tenth of a second to import into each test's database."""
    from catalog.importer import file_limits

    return scan_catalog(CATALOG, is_unchanged=lambda label, digest: False, limits=file_limits(),
                        held_out_elsewhere={})


@pytest.fixture
def bundled(db, settings, tmp_path, bundled_scan):
    settings.SCORING_CACHE_DIR = tmp_path / "module-cache"
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert not CaseVersion.objects.exists()  # the scan was made for an empty database
    assert import_scan(bundled_scan).ok
    return CaseVersion.objects


def documented_figures() -> dict[str, tuple[int, int]]:
    """slug → (fast total fuel, naive total fuel) from the bundled catalog's table (docs/writing-cases.md)."""
    figures = {}
    for line in (ROOT / "docs" / "writing-cases.md").read_text().splitlines():
        match = re.match(r"\|\s*`([a-z-]+)`.*\|\s*([\d,]+)\s*\|\s*([\d,]+)\s*\|\s*[\d,]+\s*\|\s*$", line)
        if match:
            figures[match.group(1)] = (int(match.group(2).replace(",", "")), int(match.group(3).replace(",", "")))
    return figures


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_fast_and_naive_examples_pass_and_fast_uses_less_fuel(bundled, slug):
    version = max(CaseVersion.objects.filter(case__slug=slug), key=lambda row: row.ordinal)
    totals = {}
    for case_slug, folder in example_folders(EXAMPLES):
        if case_slug != slug:
            continue
        submission = score(submit(version, version.default_variant(), folder.name, folder=folder))
        assert submission.status == Submission.State.SCORED, submission.message + submission.build_log
        assert submission.passed, [(r.input_path, r.status, r.message) for r in submission.results.all()]
        totals[folder.name] = submission.total_fuel
    assert set(totals) == {"fast", "naive"}
    assert totals["fast"] * 5 < totals["naive"], totals  # several-fold apart: the ranking means something
    assert documented_figures()[slug] == (totals["fast"], totals["naive"]), "update the bundled catalog's table in docs/writing-cases.md"


@pytest.mark.slow
@pytest.mark.parametrize("source", SCAN.versions, ids=[source.label for source in SCAN.versions])
def test_each_starter_workspace_builds_and_runs_cleanly(bundled, source):
    """A starter's answer may be wrong, but it builds, is a valid module, and never traps."""
    version = CaseVersion.objects.get(case__slug=source.manifest.slug, version=source.version)
    submission = score(submit(version, version.default_variant(), "starter", folder=source.path / source.manifest.workspace))
    assert submission.status == Submission.State.SCORED, submission.message + submission.build_log
    statuses = set(submission.results.values_list("status", flat=True))
    assert statuses <= {"passed", "wrong_answer", "skipped"}, statuses


def _variants():
    return [(source, variant.slug) for source in SCAN.versions for variant in source.manifest.variants]


@pytest.mark.slow
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
