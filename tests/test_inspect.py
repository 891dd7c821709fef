"""The inspect-ai integration (integrations/inspect/), as a harness's user runs it: an eval of two
bundled cases with inspect's mock model and a scripted solver that writes a solution into the run
root, in the local sandbox, against a site of the test's own; scored by metering the samples
here and by submitting the entry to the site. In a virtualenv of its own (scripts/inspect-venv.sh):
inspect's dependencies do not fit beside the site's."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.browsing import ROOT

# One process runs them all, one after the other: the virtualenv is made once, one site serves both.
pytestmark = [pytest.mark.slow, pytest.mark.long, pytest.mark.xdist_group("inspect")]

PYTHON = ROOT / ".venv-inspect" / "bin" / "python"
CASES = ("range-sums", "distinct")

# Evals as a user writes one: the task from the package, the solver their own (here: it copies a
# solution's files into the run root), inspect's mock model. Each run of the list (which solution,
# the token, the cases) is one eval, all in one process; prints each run's scores by sample.
EVAL = '''
import json, sys
from pathlib import Path
from inspect_ai import eval
from inspect_ai.solver import solver
from inspect_ai.util import sandbox
from fuelboard_inspect import fuelboard

site, solutions, log_dir, runs = sys.argv[1], sys.argv[2], Path(sys.argv[3]), json.loads(sys.argv[4])

def write_solution(which):
    @solver
    def write():
        async def solve(state, generate):
            if which != "starter":  # the starter is the run root as it is: wrong, but it builds
                folder = Path(solutions) / state.metadata["case"] / "accepted" / which
                for path in sorted(folder.rglob("*")):
                    if path.is_file() and "target" not in path.parts:
                        await sandbox().write_file(path.relative_to(folder).as_posix(), path.read_bytes())
            return state
        return solve
    return write()

scores = []
for index, run in enumerate(runs):
    logs = eval(fuelboard(site=site, case=run["cases"], token=run["token"] or None, name="inspect-" + run["which"],
                          build_path="/usr/bin:/bin"),
                model="mockllm/model", solver=write_solution(run["which"]), log_dir=str(log_dir / str(index)),
                display="none")
    scores.append({sample.id: {"value": sample.scores["fuel_scorer"].value,
                               "explanation": sample.scores["fuel_scorer"].explanation,
                               "metadata": sample.scores["fuel_scorer"].metadata}
                   for log in logs for sample in log.samples})
print(json.dumps(scores))
'''


def evaluate(site, log_dir, *runs: tuple[str, str, tuple[str, ...]]) -> list[dict]:
    """Each (solution, token, cases) run's scores by sample, from one process."""
    listed = [{"which": which, "token": token, "cases": list(cases)} for which, token, cases in runs]
    done = subprocess.run([str(PYTHON), "-c", EVAL, site.url, str(ROOT / "solutions"), str(log_dir),
                           json.dumps(listed)], capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def inspect_venv():
    subprocess.run([str(ROOT / "scripts" / "inspect-venv.sh")], check=True, capture_output=True, timeout=900)


@pytest.fixture(scope="module")
def inspect_site(site_template):
    """A served bundled catalog for this module's tests (the first adds entries; the second reads
    the catalog only)."""
    from tests import served

    site = served.serve(site_template)
    yield site
    site.stop()


def test_an_inspect_eval_scores_by_the_samples_and_by_the_site(inspect_venv, inspect_site, tmp_path):
    site = inspect_site
    token = site.manage("api_token", "create", "inspector").splitlines()[-1]
    # The fast solution and the starter with a token; the starter without one (the samples alone
    # decide: no site needed); the fast one with a token the site refuses.
    passed, wrong, alone, refused = evaluate(site, tmp_path, ("fast", token, CASES), ("starter", token, CASES),
                                             ("starter", "", CASES[:1]), ("fast", "not-a-token", CASES[1:]))
    assert sorted(passed) == sorted(f"{case}-{site.json(f'/api/v1/cases/{case}/')['version']}-base"
                                    for case in CASES)
    for sample, score in passed.items():
        assert score["value"] == 1.0, score
        metadata = score["metadata"]
        stored = site.json(f"/api/v1/submissions/{metadata['submission']}/")
        assert metadata["total_fuel"] == stored["total_fuel"] and stored["passed"], (sample, stored)
        assert all(row["status"] == "passed" for row in metadata["samples"].values())
        assert (stored["run"]["harness"], stored["run"]["model"]) == ("inspect-ai", "mockllm/model")
        assert stored["run"]["inspect_version"] and metadata["url"] == stored["url"]
    assert sorted(wrong) == sorted(passed)
    for sample, score in wrong.items():
        assert score["value"] == 0.0 and score["explanation"].startswith("not passed on the site"), score
        stored = site.json(f"/api/v1/submissions/{score['metadata']['submission']}/")
        assert not stored["passed"] and stored["run"]["harness"] == "inspect-ai"
        assert any(row["status"] != "passed" for row in score["metadata"]["samples"].values())
    # A refused token is a score of 0 with the site's reason, not a failed eval.
    assert len(alone) == 1 and all(score["value"] == 0.0 and score["explanation"].startswith("samples/") and
                                   "submission" not in score["metadata"] for score in alone.values()), alone
    assert len(refused) == 1 and all(score["value"] == 0.0 and "refused the entry (401)" in score["explanation"]
                                     for score in refused.values()), refused


# The task by its registered name, with its own agent; the model is inspect's mock, scripted to
# do what a model would: copy a solution into the run root with the shell tool, then submit.
AGENT_EVAL = '''
import json, sys
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

site, solution, log_dir = sys.argv[1:4]
copy = f"tar -C {solution} --exclude=target -cf - . | tar -xf -"
steps = [ModelOutput.for_tool_call("mockllm/model", "bash", {"command": copy}),
         ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "done"})]
for step in steps:
    step.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
[log] = eval("fuelboard_inspect/fuelboard",
             task_args={"site": site, "case": "range-sums", "build_path": "/usr/bin:/bin"},
             model=get_model("mockllm/model", custom_outputs=steps), log_dir=log_dir, display="none")
print(json.dumps([(sample.id, sample.scores["fuel_scorer"].value, sample.scores["fuel_scorer"].explanation,
                   [call.function for message in sample.messages
                    for call in (getattr(message, "tool_calls", None) or [])],
                   [message.text for message in sample.messages if message.role == "tool"])
                  for sample in log.samples]))
'''


def test_the_registered_task_runs_its_own_agent(inspect_venv, inspect_site, tmp_path):
    """`fuelboard_inspect/fuelboard` (`inspect eval fuelboard_inspect/fuelboard`) is found by the
    package's entry point and runs its own agent: inspect's react, with a shell in the sample's
    sandbox. Here the agent's shell writes a fast solution into the run root; no token, so the
    samples alone score it."""
    fast = ROOT / "solutions" / "range-sums" / "accepted" / "fast"
    done = subprocess.run([str(PYTHON), "-c", AGENT_EVAL, inspect_site.url, str(fast), str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    [(sample, value, explanation, calls, said)] = json.loads(done.stdout.strip().splitlines()[-1])
    assert sample.startswith("range-sums-") and calls[:1] == ["bash"], (sample, calls)
    assert (value, explanation) == (1.0, "passed"), (explanation, said)
