"""The benchmark scripts keep working (the full runs are `make bench`, not tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_import_benchmark_runs_and_reports_a_ratio():
    done = subprocess.run([sys.executable, "bench/import_scale.py", "--versions", "8", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["versions"] == 8 and 0 < result["ratio"] < 1


def test_the_schema_benchmark_finds_the_same_in_a_cases_inputs_and_reports_a_ratio():
    done = subprocess.run([sys.executable, "bench/schemas.py", "--case", "distinct", "--repeat", "1", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["documents"] >= 5 and 0 < result["ratio"] < 1


@pytest.mark.slow
def test_the_batch_scoring_benchmark_runs_and_finds_the_same_entries():
    done = subprocess.run([sys.executable, "bench/score_many.py", "--lines", "2", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["lines"] == 2 and result["batch_s"] > 0 and result["separate_s"] > 0


@pytest.mark.django_db
def test_the_many_submissions_factory_writes_what_the_plain_one_writes():
    """bench/standings.py builds its million rows with it: they must be the same rows."""
    from scoring.models import Result, Standing, Submission
    from tests.factories import make_cases, make_many_submissions, make_submissions

    plain, many = make_cases(2)

    def rows(version):
        fields = ("name", "status", "passed", "total_fuel", "overshoot", "passed_count", "input_count",
                  "board_group", "board_key", "wasmtime_version", "engine_digest")
        submissions = list(Submission.objects.filter(version=version).order_by("pk").values_list(*fields))
        results = list(Result.objects.filter(submission__version=version).order_by("submission_id", "position")
                       .values_list("position", "status", "fuel", "input_path"))
        return submissions, results, Standing.objects.filter(version=version).count()

    make_submissions(plain, 30)
    make_many_submissions(many, 30)
    assert rows(plain) == rows(many)


@pytest.mark.slow
def test_the_catalog_standings_benchmark_runs_and_reports_a_ratio():
    # The load under writes (where wrk is installed) for a second per page: the figure is make bench's.
    done = subprocess.run([sys.executable, "bench/catalog_standings.py", "--cases", "12", "--submitters", "10",
                           "--load-seconds", "1", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert (result["cases"], result["rows"]) == (12, 10) and result["refresh_s"] > 0
    if "under_writes" in result:
        assert result["under_writes"]["ratio"] > 0 and result["under_writes"]["age_s"] is not None


@pytest.mark.slow
def test_the_agents_benchmark_runs_and_reports_each_pages_ratio():
    done = subprocess.run([sys.executable, "bench/agents.py", "--cases", "6", "--small", "2", "--full", "3", "--large",
                           "5", "--repeat", "2", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result["pages"]) == {"page", "api", "by_cost", "one_harness"}
    assert all(page["ratio"] > 0 and page["ratio_from_small"] > 0 for page in result["pages"].values())
    assert result["refreshes"]["5"]["refresh_s"] > 0
    # The benchmarks page's table row (docs/benchmarks.md), as bench/run.py writes it.
    row = subprocess.run([sys.executable, "-c", "import json, sys; sys.path.insert(0, 'bench'); import run; "
                          "print(json.dumps(run.agents_rows(json.loads(sys.argv[1]))))", json.dumps(result)],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert "Agents matrix, 3 (a full page) → 5 agents" in json.loads(row.stdout)[0][0]


@pytest.mark.django_db
def test_the_many_trials_factory_writes_what_the_matrix_counts():
    """bench/agents.py builds its million trials with it: one per agent and case, each a trial."""
    from scoring.agents import refresh
    from scoring.models import AgentCell, AgentLine
    from tests.factories import make_cases, make_many_trials

    versions = make_cases(4)
    make_many_trials(versions, 0, 3)
    make_many_trials(versions, 3, 2)
    refresh()
    assert AgentCell.objects.count() == 20 and set(AgentCell.objects.values_list("trials", flat=True)) == {1}
    assert AgentLine.objects.filter(scope="").count() == 5
    assert sum(AgentLine.objects.filter(scope="").values_list("solved_trials", flat=True)) == sum(
        AgentCell.objects.values_list("solved", flat=True)) > 0


SCRIPTS = sorted(path.name for path in (ROOT / "bench").glob("*.py") if not path.name.startswith("_"))
# Runs each script as `python bench/<script> --help` would, in one interpreter (a Python and
# Django start-up per script cost more than the rest of this file).
HELP_EACH = """
import contextlib, io, json, runpy, sys
sys.path.insert(0, "bench")
found = {}
for script in sys.argv[1:]:
    sys.argv = [script, "--help"]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(f"bench/{script}", run_name="__main__")
        found[script] = "finished without exiting"
    except SystemExit as done:
        found[script] = "ok" if done.code in (0, None) else f"exit {done.code}"
    except BaseException as error:
        found[script] = f"{type(error).__name__}: {error}"
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def helped() -> dict[str, str]:
    done = subprocess.run([sys.executable, "-c", HELP_EACH, *SCRIPTS], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_script_imports_what_it_uses(script, helped):
    """`--help` runs every import at the top of a script: a renamed name fails here, not in `make bench`."""
    assert helped[script] == "ok"
