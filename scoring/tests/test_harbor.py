"""The catalog as Harbor tasks (`manage.py export_harbor`, docs/harbor.md), read by Harbor itself:
every bundled case's tasks load with the pinned Harbor's own task model and pass its linter, two
exports are the same bytes, a task's oracle (its reference solution) passes the task's own tests
run outside a container and the starter does not, and a task given a site and a token scores its
workspace there and is rewarded with the site's speedup."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from catalog.importer import file_limits, import_scan
from catalog.models import CaseVersion, HeldOutInput
from scoring.boards.places import speedup
from scoring.harbor.exporting import FIXED_TIME
from scoring.harbor.payload import verify
from scoring.models import Submission
from scoring.references import set_reference
from tests import bundled

# One process runs them all: the whole catalog is read once, Harbor's virtualenv checked once.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("harbor")]

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
# Run by Harbor's own Python: each task folder named loaded with Harbor's task model, and what it read.
LOAD = """
import json, sys
from harbor.models.task.task import Task
for folder in sys.argv[1:]:
    task = Task(folder)
    config = task.config
    print(json.dumps({"folder": folder, "name": task.name, "instruction": task.instruction,
                      "metadata": config.metadata, "agent_seconds": config.agent.timeout_sec,
                      "verifier_seconds": config.verifier.timeout_sec,
                      "verifier_mode": config.verifier.environment_mode.value,
                      "verifier_env": config.verifier.env, "artifacts": [item.source for item in config.artifacts],
                      "solution": task.paths.discovered_solve_path is not None,
                      "tests": task.paths.discovered_test_path is not None}))
"""
# Then `harbor lint --json` over the same folders, in the same process (Harbor's command line,
# as its `harbor` script runs it): its findings, one JSON document, after the tasks.
LOAD_AND_LINT = LOAD + """
import contextlib, io
from harbor.cli.main import app
said = io.StringIO()
with contextlib.redirect_stdout(said):
    try:
        app(["lint", "--json", *sys.argv[1:]])
    except SystemExit as done:
        assert done.code in (0, None), done.code
print(json.dumps({"lint": json.loads(said.getvalue())}))
"""


@pytest.fixture(scope="session")
def harbor_python() -> Path:
    """Harbor's virtualenv, made (or brought up to date) once for the run: scripts/harbor-venv.sh
    waits for a process already making it."""
    made = subprocess.run([str(ROOT / "scripts/harbor-venv.sh")], capture_output=True, text=True, timeout=1200)
    assert made.returncode == 0, made.stdout + made.stderr
    return ROOT / ".venv-harbor/bin/python"


@pytest.fixture(scope="session")
def catalog_scan():
    """Every bundled case, validated once for the run (a few seconds)."""
    return bundled.whole_catalog_scan(limits=file_limits())


@pytest.fixture
def every_case(db, settings, catalog_scan):
    """The whole bundled catalog imported, experimental cases shown."""
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert import_scan(catalog_scan).ok


def export(folder: Path, *arguments: str) -> str:
    out = io.StringIO()
    call_command("export_harbor", str(folder), "--solutions", str(SOLUTIONS), *arguments, stdout=out)
    return out.getvalue()


def every_file(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each file and folder under `folder`: (mode, modification time, bytes)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        found[str(path.relative_to(folder))] = (stat.S_IMODE(info.st_mode), int(info.st_mtime),
                                                path.read_bytes() if path.is_file() else b"")
    return found


def harbor(python: Path, *arguments: str) -> str:
    done = subprocess.run([str(python), *arguments], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.long
def test_every_bundled_case_exports_tasks_harbor_loads_and_lints_clean_and_again_the_same_bytes(
        every_case, harbor_python, tmp_path):
    """One task per latest version and variant, loaded by the pinned Harbor's task model with the
    case's prompt, metadata, timeouts and a separate verifier; Harbor's linter finds nothing; a
    second export is the same files, modes and times; no file is a held-out input or answer."""
    printed = export(tmp_path / "first")
    versions = CaseVersion.objects.latest_shown().select_related("case")
    expected = {f"{version.case.slug}-{version.version}-{variant.slug}": (version, variant)
                for version in versions for variant in version.variants.all()}
    assert len(expected) >= 24 and f"exported {len(expected)} task(s)" in printed
    folders = sorted(str(tmp_path / "first" / name) for name in expected)
    assert sorted(path.name for path in (tmp_path / "first").iterdir()) == sorted(expected)

    *loaded, linted = [json.loads(line) for line in harbor(harbor_python, "-c", LOAD_AND_LINT, *folders).splitlines()]
    assert len(loaded) == len(expected)
    assert linted == {"lint": []}
    for task in loaded:
        name = Path(task["folder"]).name
        version, variant = expected[name]
        assert task["name"] == f"fuelboard/{name}"
        assert {key: task["metadata"][key] for key in ("case", "version", "variant", "difficulty", "tags")} == {
            "case": version.case.slug, "version": version.version, "variant": variant.slug,
            "difficulty": version.difficulty, "tags": version.tag_names}
        assert task["metadata"]["url"].endswith(f"/cases/{version.case.slug}/{version.version}/")
        assert task["instruction"].startswith(variant.rendered_prompt().decode().rstrip("\n") + "\n\n---\n")
        assert "`/workspace`" in task["instruction"]
        assert task["agent_seconds"] == version.max_runtime_seconds
        assert task["verifier_seconds"] > 2 * 60 and task["verifier_mode"] == "separate"
        assert task["artifacts"] == ["/workspace"] and set(task["verifier_env"]) >= {"FUELBOARD_URL",
                                                                                   "FUELBOARD_TOKEN"}
        assert task["solution"] and task["tests"]

    export(tmp_path / "second")
    first, second = every_file(tmp_path / "first"), every_file(tmp_path / "second")
    assert first == second
    held_out = {bytes(content) for pair in HeldOutInput.objects.filter(version__in=versions)
                .values_list("input_bytes", "expected_bytes") for content in pair}
    assert [path for path, (_, _, content) in first.items() if content in held_out] == []
    assert {mode for mode, _, _ in first.values()} == {0o644, 0o755}
    assert {time for _, time, _ in first.values()} == {FIXED_TIME}


def lay_out(task: Path, folder: Path) -> dict[str, str]:
    """The task's run root copied to `folder`/workspace as the image holds it at /workspace, and
    what its scripts are told outside a container (Debian's cargo first on PATH, as in the image)."""
    shutil.copytree(task / "environment" / "run", folder / "workspace")
    (folder / "home").mkdir()
    return {"PATH": "/usr/bin:/bin", "HOME": str(folder / "home"), "LANG": "C.UTF-8",
            "FUELBOARD_WORKSPACE": str(folder / "workspace"), "FUELBOARD_REWARDS": str(folder / "rewards"),
            "FUELBOARD_METER_PYTHON": str(ROOT / ".venv/bin/python")}


def run_script(script: Path, environment: dict[str, str]) -> str:
    done = subprocess.run(["bash", str(script)], env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_a_tasks_reference_solution_passes_its_own_tests_and_the_starter_gets_0(every_case, tmp_path):
    """Run outside a container as Harbor's oracle runs them: solve.sh, then test.sh, without a site:
    the reward is 1, every sample passed; the starter as seeded is wrong on them, and gets 0."""
    export(tmp_path / "tasks", "--case", "range-sums", "--case", "max-subarray")
    for name in ("range-sums-v4-base", "max-subarray-v1-ledger"):
        task = tmp_path / "tasks" / name
        environment = lay_out(task, tmp_path / name)
        run_script(task / "solution" / "solve.sh", environment)
        said = run_script(task / "tests" / "test.sh", environment)
        assert "every sample passed" in said and "passed" in said, said
        assert (tmp_path / name / "rewards" / "reward.txt").read_text() == "1\n", said
    task = tmp_path / "tasks" / "range-sums-v4-base"
    environment = lay_out(task, tmp_path / "starter")
    said = run_script(task / "tests" / "test.sh", environment)
    assert "wrong_answer" in said
    assert (tmp_path / "starter" / "rewards" / "reward.txt").read_text() == "0\n"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_task_given_a_site_and_a_token_is_scored_there_and_rewarded_with_its_speedup(
        settings, catalog_scan, live_server, tmp_path):
    """With FUELBOARD_URL and FUELBOARD_TOKEN, test.sh sends the workspace with the task's run record
    (harness "harbor", the model named) and rewards the entry's speedup against the reference."""
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert import_scan(catalog_scan).ok
    call_command("score", "range-sums", "--submission", str(SOLUTIONS / "range-sums/accepted/naive"),
                 "--name", "naive", stdout=io.StringIO(), stderr=io.StringIO())
    reference = Submission.objects.get(name="naive")
    set_reference(reference)
    made = io.StringIO()
    call_command("api_token", "create", "harbor-operator", stdout=made)
    export(tmp_path / "tasks", "--case", "range-sums")
    task = tmp_path / "tasks" / "range-sums-v4-base"
    environment = {**lay_out(task, tmp_path / "run"), "FUELBOARD_URL": live_server.url,
                   "FUELBOARD_TOKEN": made.getvalue().splitlines()[-1], "FUELBOARD_MODEL": "example-model"}
    run_script(task / "solution" / "solve.sh", environment)
    said = run_script(task / "tests" / "test.sh", environment)

    entry = Submission.objects.get(name="harbor")
    assert entry.passed and entry.run == {"harness": "harbor", "model": "example-model"}, said
    reward = float((tmp_path / "run" / "rewards" / "reward.txt").read_text())
    assert reward == speedup(reference.total_fuel, entry.total_fuel) > 1


def test_the_verifiers_speedup_is_the_sites():
    """verify.py stands alone in a task, so it holds its own copy of the site's speedup rule."""
    for reference, fuel in ((48_032, 12_008), (1, 1), (0, 5), (7, 0), (10 ** 12, 3)):
        assert verify.speedup(reference, fuel) == speedup(reference, fuel)


def test_the_filters_choose_the_shown_cases_and_a_used_folder_is_refused(imported, settings, tmp_path):
    """--case, --difficulty, --tag and --since narrow the shown cases' latest versions; a case not
    shown is named as unknown; a folder with something in it is left alone."""
    settings.CATALOG_SHOW_EXPERIMENTAL = False
    assert "adder-v10-" in export(tmp_path / "all") and "counter" not in export(tmp_path / "again")
    with pytest.raises(CommandError, match="no shown case has the slug counter"):
        export(tmp_path / "hidden", "--case", "counter")
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert export(tmp_path / "tagged", "--tag", "counting").startswith("counter-1.0-")
    assert "adder" not in export(tmp_path / "medium", "--difficulty", "medium")
    today = timezone.localdate()
    assert "exported 0 task(s)" in export(tmp_path / "later", "--since", (today + timedelta(days=1)).isoformat())
    assert "exported 0 task(s)" not in export(tmp_path / "today", "--since", today.isoformat())
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(CommandError, match="not an empty folder"):
        export(tmp_path / "used")
    assert os.listdir(tmp_path / "used") == ["notes.txt"]
