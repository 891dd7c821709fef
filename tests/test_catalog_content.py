"""The bundled catalog: valid, reproducible, solvable, and what the manual says it is."""

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

from catalog.manifest import scan_catalog
from catalog.models import CaseVersion
from catalog.seeding import seed_run
from engine.builds import pack_folder
from scoring.attempts import score
from scoring.building import build_source
from scoring.models import Submission
from scoring.recording import submit

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "test-cases"
EXAMPLES = ROOT / "solutions"
SCAN = scan_catalog(CATALOG)
SLUGS = sorted({source.manifest.slug for source in SCAN.versions})


def test_the_bundled_catalog_validates():
    assert [str(error) for error in SCAN.errors] == []
    assert SLUGS == ["components", "distinct", "lattice", "range-sums", "rising"]


def test_one_case_per_difficulty_an_experimental_one_and_a_case_with_two_versions():
    by_difficulty = {source.manifest.difficulty for source in SCAN.versions if not source.manifest.experimental}
    assert by_difficulty == {"easy", "medium", "hard"}
    assert any(source.manifest.experimental for source in SCAN.versions)
    versions = {}
    for source in SCAN.versions:
        versions.setdefault(source.manifest.slug, []).append(source.version)
    assert sorted(versions["range-sums"]) == ["v1", "v2", "v3", "v4"]
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
    template = (ROOT / "solutions" / "rust-shared" / "abi.rs").read_bytes()
    copies = [*sorted(EXAMPLES.glob("*/*/*/engine/src/abi.rs")),
              ROOT / "catalog" / "startcase" / "reference" / "engine" / "src" / "abi.rs"]  # what startcase writes
    assert len(copies) == 11
    for copy in copies:
        assert copy.read_bytes() == template, copy


# --- scored for real ----------------------------------------------------------------------------


def documented_figures() -> dict[str, tuple[int, int | None]]:
    """slug → (the fastest accepted solution's total fuel, the slow one's: None when it does not
    answer every input within its ceiling) from the bundled catalog's table (docs/writing-cases.md)."""
    figures = {}
    for line in (ROOT / "docs" / "writing-cases.md").read_text().splitlines():
        match = re.match(r"\|\s*`([a-z-]+)`.*\|\s*([\d,]+)\s*\|\s*([\d,]+|—[^|]*)\s*\|\s*[\d,]+\s*\|\s*$", line)
        if match:
            slow = match.group(3).replace(",", "")
            figures[match.group(1)] = (int(match.group(2).replace(",", "")), int(slow) if slow.isdigit() else None)
    return figures


@pytest.fixture(scope="module")
def checked() -> dict:
    """`check_case` on the whole bundled catalog, with its solutions (real builds, kept for the run)."""
    out = io.StringIO()
    call_command("check_case", str(CATALOG), "--json", stdout=out, stderr=io.StringIO())
    return {(version["case"], version["version"]): version for version in json.loads(out.getvalue())["versions"]}


def latest(slug: str) -> str:
    return max((source for source in SCAN.versions if source.manifest.slug == slug),
               key=lambda source: int(source.version.removeprefix("v"))).version


def stress_total(version: dict, name: str) -> int | None:
    run = next(run for run in version["solutions"] if run["name"] == name)
    stress = [result for result in run["results"] if result["input"].startswith("cases/")]
    return sum(result["fuel"] for result in stress) if all(result["status"] == "passed" for result in stress) else None


# The tests on check_case's document run in one process: the catalog is checked once.
@pytest.mark.slow
@pytest.mark.xdist_group("check-case")
def test_every_bundled_case_passes_check_case_and_its_latest_version_warns_of_nothing(checked):
    """Every solution gets the verdict of its folder, on every version; the expected answers are
    the references'; the only warnings are those of published versions a later one fixed."""
    assert {key: version["errors"] for key, version in checked.items() if version["errors"]} == {}
    assert {key for key, version in checked.items() if version["warnings"]} == {("range-sums", "v1"), ("range-sums",
                                                                                                       "v2")}
    for slug in SLUGS:
        version = checked[(slug, latest(slug))]
        verdicts = {run["expected"] for run in version["solutions"]}
        assert {"accepted",
                "wrong_answer"} <= verdicts and len(verdicts) >= 2, slug  # a slow one, of its intended verdict
        assert all(run["verdict"] == run["expected"] for run in version["solutions"])
        wrong = [run for run in version["solutions"] if run["expected"] == "wrong_answer"]
        assert all(run["decided_by"].startswith("smoke/") for run in wrong), slug  # a smoke input catches it


@pytest.mark.slow
@pytest.mark.xdist_group("check-case")
@pytest.mark.parametrize("slug", SLUGS)
def test_each_case_s_solutions_are_far_apart_and_the_manual_says_how_far(checked, slug):
    version = checked[(slug, latest(slug))]
    accepted = sorted(run["name"] for run in version["solutions"] if run["expected"] == "accepted")
    slow = next(run["name"] for run in version["solutions"] if run["name"] != accepted[0]
                and run["expected"] != "wrong_answer")
    fast = min(accepted, key=lambda name: stress_total(version, name))
    fast_total, slow_total = stress_total(version, fast), stress_total(version, slow)
    if slow_total is not None:
        assert fast_total * 5 < slow_total, (fast_total, slow_total)  # several-fold apart: the ranking means something
    assert documented_figures()[slug] == (fast_total,
                                          slow_total), "update the bundled catalog's table in docs/writing-cases.md"


@pytest.mark.slow
@pytest.mark.parametrize("source", SCAN.versions, ids=[source.label for source in SCAN.versions])
def test_each_starter_workspace_builds_and_runs_cleanly(bundled, source):
    """A starter's answer may be wrong, but it builds, is a valid module, and never traps."""
    version = CaseVersion.objects.get(case__slug=source.manifest.slug, version=source.version)
    submission = score(submit(version, version.default_variant(), "starter",
                              folder=source.path / source.manifest.workspace))
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
