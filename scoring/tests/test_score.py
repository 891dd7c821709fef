"""Scoring a submission end to end: submit → build → sandbox → stored results, and `score`."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from django.core.management import CommandError, call_command

from catalog.models import CaseVersion
from engine.sandbox import WASMTIME_VERSION
from engine.tests import wat
from scoring.attempts import score
from scoring.models import Result, Submission
from scoring.recording import submit

pytestmark = pytest.mark.django_db


def score_command(*args: str) -> tuple[dict, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command("score", *args, "--json", stdout=stdout, stderr=stderr)
    return json.loads(stdout.getvalue()), stderr.getvalue()


def test_a_correct_module_is_scored_and_every_result_stored(adder_v1, correct_wasm):
    submission = score(submit(adder_v1, adder_v1.default_variant(), "alice", wasm_file=correct_wasm))
    submission.refresh_from_db()
    assert submission.status == Submission.State.SCORED
    assert submission.passed is True
    assert submission.wasmtime_version == WASMTIME_VERSION
    assert submission.variant.slug == "base"
    results = list(submission.results.order_by("position"))
    assert [(r.kind, r.input_path, r.status) for r in results] == [
        ("smoke", "smoke/one.json", "passed"),
        ("stress", "cases/small.json", "passed"),
        ("stress", "cases/large.json", "passed"),
    ]
    assert [(r.fuel_limit, r.ceiling) for r in results] == [(1_000_000, 1_000_000), (1_000_000, 1_150_000), (1_000_000,
                                                                                                             1_000_000)]
    assert submission.total_fuel == results[1].fuel + results[2].fuel  # smoke fuel is not scored
    assert submission.passed_count == 3
    assert submission.module_digest and submission.module_size == correct_wasm.stat().st_size


def test_scoring_reads_the_database_not_the_catalog_folder(imported, adder_v1, correct_wasm):
    shutil.rmtree(imported.root)
    submission = score(submit(adder_v1, adder_v1.default_variant(), "alice", wasm_file=correct_wasm))
    assert submission.passed


def test_score_json_has_the_specified_shape(adder_v1, correct_wasm):
    document, _ = score_command("adder", "--version", "v1", "--wasm", str(correct_wasm), "--name", "alice")
    assert list(document) == ["submission", "case", "version", "variant", "name", "status", "passed", "total_fuel",
                              "wasmtime", "results"]
    assert (document["case"], document["version"], document["variant"], document["name"]) == ("adder", "v1", "base",
                                                                                              "alice")
    assert (document["status"], document["passed"], document["wasmtime"]) == ("scored", True, WASMTIME_VERSION)
    assert isinstance(document["total_fuel"], int)
    assert [list(result) for result in document["results"]] == [
        ["kind", "input", "status", "fuel", "fuel_limit", "ceiling", "overshoot", "wall_ms", "message"]
    ] * 3
    assert [result["input"] for result in document["results"]] == ["smoke/one.json", "cases/small.json",
                                                                   "cases/large.json"]
    stored = Submission.objects.get(pk=document["submission"])
    assert stored.total_fuel == document["total_fuel"]


def test_score_defaults_to_the_latest_version_and_the_default_variant(imported, correct_wasm):
    document, _ = score_command("adder", "--wasm", str(correct_wasm), "--name", "bob")
    assert (document["version"], document["variant"]) == ("v10", "base")


def test_score_records_the_variant_named(adder_v1, correct_wasm):
    document, _ = score_command("adder", "--version", "v1", "--variant", "long-lists", "--wasm", str(correct_wasm),
                                "--name", "c")
    assert document["variant"] == "long-lists"
    assert Submission.objects.get(pk=document["submission"]).variant.slug == "long-lists"


def test_score_progress_goes_to_stderr_as_plain_lines_when_not_a_terminal(adder_v1, correct_wasm):
    _, progress = score_command("adder", "--version", "v1", "--wasm", str(correct_wasm), "--name", "alice")
    lines = progress.splitlines()
    assert lines[0].startswith("submission #") and "adder v1 (variant base)" in lines[0]
    assert sum(1 for line in lines if line.startswith("[")) == 3
    assert "\r" not in progress and "\033" not in progress


def test_score_prints_a_summary_table_without_json(adder_v1, correct_wasm):
    out = io.StringIO()
    call_command("score", "adder", "--version", "v1", "--wasm", str(correct_wasm), "--name", "alice", stdout=out)
    text = out.getvalue()
    assert "kind    input" in text and "cases/large.json" in text
    assert "passed; total fuel" in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["nope", "--wasm", "x.wasm"], "no case with slug `nope` has been imported"),
        (["adder", "--version", "v9", "--wasm", "x.wasm"], "case `adder` has no version `v9` (it has: v1, v2, v10)"),
        (["adder", "--variant", "huge", "--wasm", "x.wasm"],
         "adder v10 has no variant `huge` (it has: base, long-lists)"),
        (["adder", "--wasm", "/nonexistent.wasm"], "wasm file /nonexistent.wasm does not exist"),
        (["adder", "--submission", "/nonexistent"], "submission folder /nonexistent does not exist"),
    ],
)
def test_usage_errors_fail_the_command_and_record_nothing(imported, args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call_command("score", *args, "--name", "x", stdout=io.StringIO(), stderr=io.StringIO())
    assert Submission.objects.count() == 0


def test_an_invalid_module_is_recorded_with_no_results_and_the_command_succeeds(adder_v1, tmp_path):
    wasm = tmp_path / "bad.wasm"
    wasm.write_bytes(wat.module(imports='(import "env" "now" (func))'))
    document, _ = score_command("adder", "--version", "v1", "--wasm", str(wasm), "--name", "eve")
    assert (document["status"], document["passed"], document["total_fuel"], document["results"]) == ("invalid_module",
                                                                                                     False, None, [])
    submission = Submission.objects.get(pk=document["submission"])
    assert "import-free" in submission.message
    assert Result.objects.filter(submission=submission).count() == 0


def test_a_failed_smoke_case_skips_the_stress_cases(adder_v1, tmp_path, imported):
    from scoring.tests.helpers import adder_answers

    answers = adder_answers(imported)
    smoke_length = len(imported.path("smoke/one.json", "performance/easy/adder/v1").read_bytes())
    answers[smoke_length] = b'{"sum": 8}'
    wasm = tmp_path / "wrong-smoke.wasm"
    wasm.write_bytes(wat.lookup(answers))
    document, _ = score_command("adder", "--version", "v1", "--wasm", str(wasm), "--name", "eve")
    assert [result["status"] for result in document["results"]] == ["wrong_answer", "skipped", "skipped"]
    assert [result["fuel"] for result in document["results"]][1:] == [None, None]
    assert document["results"][0]["message"] == 'answer differs from the expected answer at JSON pointer "/sum"'
    assert (document["passed"], document["total_fuel"]) == (False, None)


# --- building from a folder ----------------------------------------------------------------------


def test_a_submission_folder_is_built_with_the_manifests_commands(adder_v1, correct_wasm, tmp_path):
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(correct_wasm, folder / "solution.wasm")
    document, _ = score_command("adder", "--version", "v1", "--submission", str(folder), "--name", "dan")
    assert (document["status"], document["passed"]) == ("scored", True)
    submission = Submission.objects.get(pk=document["submission"])
    assert "$ cp solution.wasm out.wasm" in submission.build_log
    assert sorted(path.name for path in folder.iterdir()) == ["solution.wasm"]  # never modified


def test_a_failing_build_is_build_failed_with_its_log(adder_v1, tmp_path):
    folder = tmp_path / "empty-submission"
    folder.mkdir()
    document, _ = score_command("adder", "--version", "v1", "--submission", str(folder), "--name", "dan")
    assert (document["status"], document["passed"], document["results"]) == ("build_failed", False, [])
    submission = Submission.objects.get(pk=document["submission"])
    assert submission.message == "build command failed with exit status 1"
    assert "cp: cannot stat 'solution.wasm'" in submission.build_log


def _new_version(catalog, version: str, edits: dict[str, str]) -> CaseVersion:
    """Publish adder `version`: a copy of v1 with `edits` (old → new manifest text) applied."""
    from catalog.importer import import_catalog

    shutil.copytree(catalog.root / "performance/easy/adder/v1", catalog.root / "performance/easy/adder" / version)
    for old, new in edits.items():
        catalog.edit(old, new, label=f"performance/easy/adder/{version}")
    assert import_catalog(catalog.root).ok
    return CaseVersion.objects.get(case__slug="adder", version=version)


def _reimport_with_build(catalog, build: str) -> CaseVersion:
    """A fresh version v3 of adder whose [build] command is `build`."""
    return _new_version(catalog, "v3", {'build = "cp solution.wasm out.wasm"': f"build = {json.dumps(build)}"})


@pytest.mark.slow
def test_a_build_that_runs_too_long_is_killed(imported, tmp_path, settings):
    settings.SCORING_BUILD_TIMEOUT = 1
    version = _reimport_with_build(imported, "sleep 60 & sleep 60")
    folder = tmp_path / "slow"
    folder.mkdir()
    submission = score(submit(version, version.default_variant(), "slow", folder=folder))
    assert submission.status == Submission.State.BUILD_FAILED
    assert submission.message == "build command timed out after 1 s"


@pytest.mark.slow
def test_a_build_that_produces_no_module_is_build_failed(imported, tmp_path):
    version = _reimport_with_build(imported, "echo nothing to do")
    folder = tmp_path / "lazy"
    folder.mkdir()
    submission = score(submit(version, version.default_variant(), "lazy", folder=folder))
    assert (submission.status, submission.message) == (Submission.State.BUILD_FAILED,
                                                       "the build did not produce the module out.wasm")
    assert "nothing to do" in submission.build_log


@pytest.mark.slow
def test_the_build_log_keeps_only_its_tail(imported, tmp_path, settings):
    settings.SCORING_BUILD_LOG_BYTES = 4096
    version = _reimport_with_build(imported, "seq 1 100000; exit 3")
    folder = tmp_path / "noisy"
    folder.mkdir()
    submission = score(submit(version, version.default_variant(), "noisy", folder=folder))
    assert submission.message == "build command failed with exit status 3"
    assert len(submission.build_log) < 4096 + 200
    assert "earlier bytes of output omitted" in submission.build_log
    assert "100000" in submission.build_log


@pytest.mark.slow
def test_a_real_rust_submission_builds_with_cargo_and_scores(imported):
    """The Debian toolchain builds a cdylib for wasm32-unknown-unknown, offline, no crates."""
    from pathlib import Path

    version = _new_version(imported, "v4", {
        'install = "true"': 'install = "cargo fetch"',
        'build = "cp solution.wasm out.wasm"': 'build = "cargo build --release --target wasm32-unknown-unknown -p '
                                               'engine"',
        'module = "out.wasm"': 'module = "target/wasm32-unknown-unknown/release/engine.wasm"',
        "max_memory_bytes = 1_048_576": "max_memory_bytes = 16_777_216",  # Rust starts with 17 pages
    })
    source = Path(__file__).parent / "data" / "rust-adder"
    submission = score(submit(version, version.default_variant(), "rustacean", folder=source))
    assert submission.status == Submission.State.SCORED, submission.message + submission.build_log
    assert submission.passed
    assert "$ cargo build --release --target wasm32-unknown-unknown -p engine" in submission.build_log
    assert not (source / "target").exists()  # built in a copy, never in place


def test_score_examples_scores_each_example_once(imported, correct_wasm, tmp_path):
    from scoring.examples import score_examples

    examples = tmp_path / "examples"
    (examples / "adder" / "accepted" / "lookup").mkdir(parents=True)
    shutil.copy(correct_wasm, examples / "adder" / "accepted" / "lookup" / "solution.wasm")
    (examples / "adder" / "wrong_answer" / "off").mkdir(parents=True)  # wrong on purpose: for check_case only
    first = score_examples(examples)
    # One run per imported adder version (v1, v2, v10), each scored and passed.
    assert [(run.version, run.skipped) for run in first] == [("v1", False), ("v2", False), ("v10", False)]
    assert all(run.submission.passed for run in first)
    again = score_examples(examples)
    assert all(run.skipped for run in again)
    assert Submission.objects.filter(name="example-lookup").count() == 3
    # A changed example is scored again.
    (examples / "adder" / "accepted" / "lookup" / "README").write_text("now documented\n")
    assert not any(run.skipped for run in score_examples(examples))


def test_within_sharing_builds_a_source_is_built_once_for_each_build_configuration(adder_v1, correct_wasm, tmp_path):
    """What score_examples does for the versions of a case that build alike; real builds."""
    from engine.builds import pack_folder
    from scoring import building

    real = getattr(building.build_source, "real", building.build_source)  # not the test run's kept builds
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(correct_wasm, folder / "solution.wasm")
    source = pack_folder(folder, max_bytes=1 << 20)
    broken = pack_folder(tmp_path, max_bytes=1 << 20)  # no solution.wasm at its top: the build fails
    with building.sharing_builds():
        first = real(source, adder_v1)
        assert first.ok and real(source, adder_v1) is first
        assert real(source, adder_v1, wall_seconds=30) is not first  # other limits: another build
        assert not real(broken, adder_v1).ok and real(broken, adder_v1) is not real(broken, adder_v1)
    again = real(source, adder_v1)
    assert again is not first and again.module == first.module  # outside it, every call builds


def test_without_a_build_sandbox_score_says_so_instead_of_a_traceback(adder_v1, correct_wasm, tmp_path, monkeypatch):
    """The entry waits, pending, its attempt not spent and no `error` written; staff see why."""
    from engine import builds as build_module

    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(correct_wasm, folder / "solution.wasm")
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no bubblewrap on this machine
    build_module.sandbox_problem.cache_clear()
    try:
        with pytest.raises(CommandError, match="was recorded but not built: bubblewrap \\(bwrap\\) is not installed"):
            call_command("score", "adder", "--version", "v1", "--submission", str(folder), "--name", "x",
                         stdout=io.StringIO(), stderr=io.StringIO())
    finally:
        build_module.sandbox_problem.cache_clear()
    submission = Submission.objects.get(name="x")
    assert (submission.status, submission.job_state, submission.attempt) == ("pending", "queued", 0)
    assert submission.sandbox_waits == 1 and submission.message == "waiting for a build sandbox"
    assert "bubblewrap (bwrap) is not installed" in submission.detail


def test_an_entry_built_without_its_own_account_and_cgroup_says_so_wherever_it_is_shown(client, board):
    """Only a development site (SCORING_ALLOW_UNCONFINED_BUILDS) stores such an entry; every page and
    document that shows it says how it was built."""
    entry = board["alice-2"]
    Submission.objects.filter(pk=entry.pk).update(build_confinement="unconfined")
    said = "built without an account and a cgroup of its own (a development site)"
    assert said in client.get(f"/submissions/{entry.pk}/").content.decode()
    assert said in client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert client.get(f"/api/v1/submissions/{entry.pk}/").json()["build"] == "unconfined"
    rows = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1"}).json()["results"]
    assert [row["build"] for row in rows if row["submission"] == entry.pk] == ["unconfined"]
    Submission.objects.filter(pk=entry.pk).update(build_confinement="confined")
    assert said not in client.get(f"/submissions/{entry.pk}/").content.decode()


def test_an_attempt_writes_only_its_outcome_and_a_failed_one_leaves_no_earlier_result(adder_v1, correct_wasm):
    """Staff's changes made while an entry is scored stay; an attempt that fails ranks nothing."""
    from scoring.boards.updates import set_hidden
    from scoring.jobs import new_attempt

    entry = score(submit(adder_v1, adder_v1.default_variant(), "ada", wasm_file=correct_wasm))
    entry.refresh_from_db()
    assert (entry.passed, entry.board_group) == (True, 0)
    stale = new_attempt(entry, enqueue=False)  # the instance a worker holds while it scores
    set_hidden(Submission.objects.filter(pk=entry.pk), True)  # staff hide it meanwhile
    score(stale)
    entry.refresh_from_db()
    assert (entry.status, entry.hidden, entry.passed) == ("scored", True, True)
    # Its stored module is now garbage: the next attempt fails, and nothing of the last one stands.
    set_hidden(Submission.objects.filter(pk=entry.pk), False)
    Submission.objects.filter(pk=entry.pk).update(source=b"not wasm")
    score(new_attempt(entry, enqueue=False))
    entry.refresh_from_db()
    assert (entry.status, entry.passed, entry.total_fuel, entry.passed_count) == ("invalid_module", False, None, 0)
    assert entry.board_group != 0  # not ranked
