"""The case author's workbench: `startcase` writes a case that passes `check_case` as it is, and
`check_case` finds each error and each warning on purpose-made cases — real builds of the
reference (a Rust workspace), real modules, the real engine."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.importer import import_catalog
from catalog.manifest import scan_catalog
from engine.progress import ScoringProgress
from engine.tests import wat
from scoring.workbench.checking import Builds, _repeats, measure_solution
from scoring.workbench.folder import FolderVersion
from scoring.workbench.solutions import Solution

pytestmark = pytest.mark.slow


class Case:
    """A case `startcase` wrote into a catalog of the test's own, and its solutions."""

    def __init__(self, root: Path):
        self.catalog, self.solutions = root / "catalog", root / "solutions"
        self.catalog.mkdir()
        self.out = call_command_out("startcase", "demo", "--difficulty", "easy", "--catalog", str(self.catalog),
                                    "--solutions", str(self.solutions))
        self.folder = self.catalog / "performance" / "easy" / "demo" / "v1"

    def answers(self) -> dict[int, bytes]:
        """Input length → its expected answer, as the generator wrote them (the public samples too)."""
        stems = ("smoke/three", "cases/large", "workspaces/base/samples/tiny", "workspaces/base/samples/medium")
        return {len((self.folder / stem).with_suffix(".json").read_bytes()):
                (self.folder / stem).with_suffix(".out").read_bytes().strip() for stem in stems}

    def module(self, verdict: str, name: str, answers: dict[int, bytes], iterations: int = 0) -> None:
        """A module answering by input length; `iterations` of a loop on the stress input only."""
        folder = self.solutions / "demo" / verdict
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.wasm").write_bytes(wat.lookup(answers, iterations=iterations, pages=8,
                                                         slow_length=max(answers)))

    def set_limit(self, limit: int) -> None:
        manifest = self.folder / "test-case.toml"
        manifest.write_text(re.sub(r"fuel_limit = [\d_]+", f"fuel_limit = {limit}", manifest.read_text()))

    def check(self, *extra: str) -> tuple[dict, bool]:
        """check_case's JSON document on the case's folder, and whether it exited 0."""
        out = io.StringIO()
        try:
            call_command("check_case", str(self.folder), "--solutions", str(self.solutions), "--json", *extra,
                         stdout=out, stderr=io.StringIO())
            clean = True
        except CommandError as failed:
            assert failed.returncode == 1, failed
            clean = False
        (version,) = json.loads(out.getvalue())["versions"]
        return version, clean


def call_command_out(*arguments: str) -> str:
    out = io.StringIO()
    call_command(*arguments, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def case(tmp_path) -> Case:
    return Case(tmp_path)


def reference_fuel(version: dict) -> int:
    """The reference's fuel on the stress input."""
    results = next(run for run in version["solutions"] if run["name"] == "accepted/reference")["results"]
    return next(result["fuel"] for result in results if result["input"] == "cases/large.json")


def test_a_started_case_validates_and_passes_check_case_as_it_is(case):
    assert "next: .venv/bin/python manage.py check_case" in case.out
    assert "OK: 1 version(s) of 1 case(s)" in call_command_out("validate_catalog", str(case.catalog))
    version, clean = case.check()
    assert clean and (version["errors"], version["warnings"]) == ([], [])
    (run,) = version["solutions"]
    assert (run["name"], run["expected"], run["verdict"]) == ("accepted/reference", "accepted", "accepted")
    assert [result["status"] for result in run["results"]] == ["passed", "passed"]
    assert version["suggested_fuel_limit"] >= 2 * reference_fuel(version)
    # The text report: the table, the calibration and the summary.
    out = io.StringIO()
    call_command("check_case", str(case.folder), "--solutions", str(case.solutions), stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "cases/large.json (stress)" in text and "accepted ✓" in text and "suggested" in text
    assert "1 version(s): 0 error(s), 0 warning(s)" in text


def test_each_error_names_the_solution_and_the_input_that_decided_it(case):
    right = case.answers()
    wrong = {length: b'{"total":1}' for length in right}
    case.module("accepted", "sloppy", wrong)  # filed as accepted, wrong from the first smoke input
    case.module("trapped", "hopeful", right)  # filed as trapped, but it passes
    version, clean = case.check()
    assert not clean
    assert any(error.startswith("accepted/sloppy is not correct within the pass line on every input: its verdict is "
                                "wrong_answer (decided by smoke/three.json: answer differs from the expected answer")
               for error in version["errors"]), version["errors"]
    assert "trapped/hopeful is not trapped: its verdict is accepted" in version["errors"]
    assert len(version["errors"]) == 2  # the reference (the first accepted by name) agrees with the answers
    (case.folder / "cases" / "large.out").write_text('{"total":12345}\n')  # an answer the reference does not give
    version, clean = case.check()
    assert ('the expected answer of cases/large.json is not what the reference accepted/reference gives: answer '
            'differs from the expected answer at JSON pointer "/total"') in version["errors"]


def test_a_measurement_that_does_not_repeat_is_an_error(case, tmp_path):
    """The engine is deterministic, so no module can be made to differ between two runs: the
    comparison is shown on two real measurements that do differ (two modules)."""
    source = scan_catalog(case.catalog).versions[0]
    version = FolderVersion(source)
    builds = Builds()
    right = case.answers()
    quick, slow = tmp_path / "quick.wasm", tmp_path / "slow.wasm"
    quick.write_bytes(wat.lookup(right, pages=8))
    slow.write_bytes(wat.lookup(right, iterations=50, pages=8))
    solution = Solution("accepted", "quick", quick)
    first = measure_solution(solution, version, builds, ScoringProgress())
    second = measure_solution(Solution("accepted", "slow", slow), version, builds, ScoringProgress())
    assert _repeats(solution, first, first) == []
    problems = _repeats(solution, first, second)
    assert len(problems) == 2 and "does not repeat" in problems[0] and "smoke/three.json" in problems[0]


def test_limits_with_no_headroom_or_no_bite_are_warned_of_and_a_limit_is_suggested(case):
    measured, _ = case.check()
    fuel = reference_fuel(measured)
    case.set_limit(fuel * 3 // 2)
    tight, clean = case.check()
    assert clean and any(warning.startswith("no headroom: the slowest accepted solution, accepted/reference, uses")
                         for warning in tight["warnings"])
    assert tight["suggested_fuel_limit"] == measured["suggested_fuel_limit"]
    case.set_limit(fuel * 20)
    loose, _ = case.check()
    assert any(warning.startswith("a loose limit: the pass line") for warning in loose["warnings"])


def test_a_verdict_that_flips_at_one_and_a_half_times_the_limit_and_a_wrong_answer_smoke_misses(case):
    right = case.answers()
    case.module("over_limit", "slow", right, iterations=20_000)
    measured, _ = case.check()
    slow_fuel = next(result["fuel"] for run in measured["solutions"] if run["name"] == "over_limit/slow"
                     for result in run["results"] if result["input"] == "cases/large.json")
    case.set_limit(slow_fuel * 10 // 12)  # over the line at the limit, under it at 1.5×
    late = dict(right)
    late[max(right)] = b'{"total":1}'  # right on the smoke input, wrong on the stress one
    case.module("wrong_answer", "late", late)
    version, clean = case.check()
    verdicts = {run["name"]: run["verdict"] for run in version["solutions"]}
    assert verdicts["over_limit/slow"] == "over_limit" and verdicts["wrong_answer/late"] == "wrong_answer"
    assert any(warning.startswith("over_limit/slow: over_limit at the fuel limit, accepted at 1.5× it")
               for warning in version["warnings"]), version["warnings"]
    assert ("wrong_answer/late: its wrong answer is caught by the stress input cases/large.json only: no smoke input "
            "catches it (a smoke input is what tells a solver early)") in version["warnings"]


@pytest.mark.django_db
def test_write_expected_fills_a_new_version_and_refuses_an_imported_one(case):
    answers = {path: path.read_bytes() for path in sorted(case.folder.glob("*/*.out"))}
    for path in answers:
        path.write_text('{"total":0}\n')  # placeholders, valid against the schema
    version, clean = case.check("--write-expected")
    assert clean and version["errors"] == []
    # The reference's answers, as the generator wrote them.
    assert {path: path.read_bytes() for path in answers} == answers
    assert import_catalog(case.catalog).ok
    before = {path: path.read_bytes() for path in answers}
    with pytest.raises(CommandError, match="demo v1 is imported: a published version never changes"):
        call_command("check_case", str(case.folder), "--solutions", str(case.solutions), "--write-expected",
                     stdout=io.StringIO(), stderr=io.StringIO())
    assert {path: path.read_bytes() for path in answers} == before


def test_startcase_refuses_a_slug_or_folder_in_use_and_writes_nothing(case, tmp_path):
    files = sorted(path for path in tmp_path.rglob("*"))
    with pytest.raises(CommandError, match="the slug demo is taken"):
        call_command("startcase", "demo", "--difficulty", "hard", "--catalog", str(case.catalog),
                     "--solutions", str(case.solutions), stdout=io.StringIO())
    with pytest.raises(CommandError, match="is not a slug"):
        call_command("startcase", "Not A Slug", "--difficulty", "hard", "--catalog", str(case.catalog),
                     stdout=io.StringIO())
    (case.solutions / "other").mkdir()
    with pytest.raises(CommandError, match="other exists already: nothing was written"):
        call_command("startcase", "other", "--difficulty", "hard", "--catalog", str(case.catalog),
                     "--solutions", str(case.solutions), stdout=io.StringIO())
    assert sorted(path for path in tmp_path.rglob("*")) == [*files, case.solutions / "other"]


def test_the_manual_s_walk_through_prints_what_check_case_prints(tmp_path, monkeypatch):
    """docs/writing-cases.md shows startcase and check_case with their output: the same, here."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "writing-cases.md").read_text()
    shown = page.split("### From `startcase` to a published version", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test-cases").mkdir()
    call_command_out("startcase", "word-count", "--difficulty", "easy", "--catalog", "test-cases")
    out = io.StringIO()
    call_command("check_case", "test-cases/performance/easy/word-count/v1", stdout=out, stderr=io.StringIO())
    printed = out.getvalue().replace(str(tmp_path / "test-cases"), "test-cases")
    assert printed == shown


# --- the version's own programs, the reference, and what one run shows ----------------------------


def test_an_input_the_validator_refuses_is_an_error_naming_it(case):
    validator = case.folder / "validator" / "validate.py"
    validator.write_text(validator.read_text().replace("if len(values) > LIMIT:", "if len(values) == 3:"))
    version, clean = case.check()
    assert not clean
    assert "smoke/three.json: the input validator refuses it: 3 values: at most 100000" in version["errors"]
    assert [error for error in version["errors"] if "validator" in error] == [
        "smoke/three.json: the input validator refuses it: 3 values: at most 100000"]
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("validate_catalog", str(case.folder), stdout=out, stderr=io.StringIO())
    assert "performance/easy/demo/v1: smoke/three.json: the input validator refuses it" in out.getvalue()


def test_a_generator_that_no_longer_reproduces_its_checksum_list_is_an_error(case):
    generator = case.folder / "generator" / "generate.py"
    generator.write_text(generator.read_text().replace("SEED = 20261205", "SEED = 20261206"))
    version, clean = case.check()
    assert not clean
    assert ("re-running generator/generate.py gives other bytes for cases/large.json than "
            "generator/checksums.sha256 lists") in version["errors"]
    (case.folder / "generator" / "checksums.sha256").unlink()
    version, clean = case.check("--strict")
    assert not clean and ("re-running generator/generate.py gives other bytes for cases/large.json than the version "
                          "folder holds") in version["errors"]
    assert any(warning.startswith("no checksum list") for warning in version["warnings"])


def test_the_reference_is_named_never_chosen_by_its_name_s_order(case):
    right = case.answers()
    case.module("accepted", "naive", right)  # sorts before reference: never the reference for that
    (case.folder / "cases" / "large.out").write_text('{"total":12345}\n')
    version, _ = case.check()
    assert any("is not what the reference accepted/reference gives" in error for error in version["errors"])
    reference = case.solutions / "demo" / "accepted" / "reference"
    reference.rename(case.solutions / "demo" / "accepted" / "plain")
    version, clean = case.check()
    assert not clean and any(error.startswith("demo v1: no reference solution to check the expected answers "
                                              "against: put it in") for error in version["errors"])
    (case.solutions / "demo" / "solutions.toml").write_text('reference = "accepted/plain"\n')
    version, _ = case.check()
    assert any("is not what the reference accepted/plain gives" in error for error in version["errors"])


def test_a_smoke_failure_still_shows_what_the_stress_inputs_show(case):
    """A wrong smoke answer gates the site's stress inputs, not an author's check: one run shows a
    second defect too (here: a wrong expected answer of a stress input)."""
    (case.folder / "smoke" / "three.out").write_text('{"total":40}\n')
    (case.folder / "cases" / "large.out").write_text('{"total":12345}\n')
    version, clean = case.check()
    assert not clean
    wrong = [error for error in version["errors"] if "is not what the reference" in error]
    assert [error.split(" is not")[0] for error in wrong] == ["the expected answer of smoke/three.json",
                                                              "the expected answer of cases/large.json"]
    (run,) = version["solutions"]
    assert [result["status"] for result in run["results"]] == ["wrong_answer", "wrong_answer"]


def test_strict_makes_warnings_fail(case):
    measured, _ = case.check()
    case.set_limit(reference_fuel(measured) * 3 // 2)  # no headroom: a warning
    version, clean = case.check()
    assert clean and version["warnings"]
    version, clean = case.check("--strict")
    assert not clean and version["errors"] == []


def test_a_trap_says_why_and_peak_memory_and_a_memory_cap_are_reported(case, tmp_path):
    (case.solutions / "demo" / "trapped").mkdir()
    (case.solutions / "demo" / "trapped" / "divides.wat").write_text(
        '(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024))'
        ' (func (export "solve") (param i32 i32) (result i64) (i64.div_s (i64.const 1) (i64.const 0))))')
    version, clean = case.check()
    assert clean, version["errors"]
    trapped = next(run for run in version["solutions"] if run["name"] == "trapped/divides")
    assert (trapped["verdict"], trapped["decided_by"]) == ("trapped", "smoke/three.json")
    assert "divide by zero" in trapped["reason"]
    reference = next(run for run in version["solutions"] if run["name"] == "accepted/reference")
    assert all(result["memory"] >= 65536 and result["memory"] % 65536 == 0 for result in reference["results"])
    assert version["peak_memory"] == max(result["memory"] for result in reference["results"])
    assert version["suggested_max_memory_bytes"] >= 2 * version["peak_memory"]
    assert version["suggested_max_memory_bytes"] % (1 << 20) == 0
    out = io.StringIO()
    call_command("check_case", str(case.folder), "--solutions", str(case.solutions), stdout=out, stderr=io.StringIO())
    assert "trapped/divides: trapped on smoke/three.json: " in out.getvalue()
    assert "peak memory" in out.getvalue() and "memory cap: 67,108,864 bytes" in out.getvalue()


def test_with_no_solution_under_the_pass_line_a_limit_is_still_suggested(case):
    measured, _ = case.check()
    case.set_limit(reference_fuel(measured) // 10)
    version, clean = case.check()
    assert not clean  # the reference is over the line
    assert version["suggested_from_runway"] == 1000
    assert version["suggested_fuel_limit"] == measured["suggested_fuel_limit"]


def test_unchanged_documents_are_not_checked_against_their_schemas_again(case, monkeypatch, settings, tmp_path):
    from catalog.manifest import sections

    settings.VAR_DIR = tmp_path / "state"  # nothing remembered from other checks
    checked = []
    validating = sections.first_schema_violation

    def counting(validator, document):
        checked.append(document)
        return validating(validator, document)

    monkeypatch.setattr(sections, "first_schema_violation", counting)
    case.check()
    first = len(checked)
    assert first >= 8  # two held-out inputs and answers, two samples and answers
    checked.clear()
    case.check()
    assert checked == []
    (case.folder / "cases" / "large.out").write_text('{"total":12345}\n')
    case.check()
    assert checked == [{"total": 12345}]  # only what changed
