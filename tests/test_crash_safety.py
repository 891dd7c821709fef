"""Crash safety and concurrency: SIGKILL at random points, and two of a kind at once.

The commands run as real subprocesses against a database of their own; after every kill the
database must satisfy the invariants (each version whole, results only with a final status),
and a rerun must complete.
"""

from __future__ import annotations

import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from catalog.tests.trees import ADDER_V1, VALID_CATALOG, CatalogTree
from engine.tests import wat
from scoring.tests.helpers import adder_answers
from tests.helpers import SubprocessDatabase, command_env, consistency, generate_catalog, manage, start
from tests.hostile import IMPORT_KILLS, SCORE_KILLS

pytestmark = pytest.mark.slow
VERSIONS = 40
KILLED_IMPORT_VERSIONS = 120  # more than five interrupted imports can finish


@pytest.fixture
def database(tmp_path):
    database = SubprocessDatabase.migrated(tmp_path)
    yield database
    database.drop()


@pytest.fixture
def environment(database, tmp_path):
    return command_env(database, tmp_path, SCORING_HEARTBEAT_SECONDS="0.2")


def _kill_at(process, seconds: float) -> bool:
    """SIGKILL after `seconds`; False if the process had already finished by then."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    return True


@pytest.mark.long
def test_killing_import_catalog_at_random_points_leaves_the_database_consistent(environment, database, tmp_path):
    catalog = tmp_path / "catalog"
    generate_catalog(catalog, KILLED_IMPORT_VERSIONS)
    rng = random.Random(7)
    kills = 0
    for _ in range(IMPORT_KILLS):
        process = start(environment, "import_catalog", str(catalog))
        process.stdout.readline()  # the import is under way: one version is done
        if _kill_at(process, rng.uniform(0.0, 0.4)):
            kills += 1
        state = consistency(database)
        assert state["problems"] == [], state["problems"]
    assert kills >= 3, "the import finished too fast to be interrupted"
    assert 0 < consistency(database)["versions"] < KILLED_IMPORT_VERSIONS
    rerun = manage(environment, "import_catalog", str(catalog))
    assert "0 refused" in rerun.stdout
    state = consistency(database)
    assert state["problems"] == [] and state["versions"] == KILLED_IMPORT_VERSIONS


def test_two_imports_at_once_lose_nothing_and_duplicate_nothing(environment, database, tmp_path):
    catalog = tmp_path / "catalog"
    generate_catalog(catalog, VERSIONS)
    first, second = start(environment, "import_catalog", str(catalog)), start(environment, "import_catalog",
                                                                              str(catalog))
    outputs = [process.communicate(timeout=300)[0] for process in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outputs
    imported = sum(int(output.strip().splitlines()[-1].split()[0]) for output in outputs)
    assert imported == VERSIONS  # each version imported by exactly one of them
    state = consistency(database)
    assert state["problems"] == [] and state["versions"] == VERSIONS


def _slow_catalog(tmp_path: Path) -> tuple[Path, Path]:
    tree = CatalogTree(tmp_path / "slow-catalog")
    shutil.copytree(VALID_CATALOG / ADDER_V1, tree.root / ADDER_V1)
    tree.edit("fuel_limit = 1_000_000", "fuel_limit = 100_000_000_000")
    wasm = tmp_path / "slow.wasm"
    wasm.write_bytes(wat.lookup(adder_answers(tree), iterations=500_000_000))
    return tree.root, wasm


@pytest.mark.long
def test_killing_score_midway_leaves_no_half_results_and_the_job_can_be_recovered(environment, database, tmp_path):
    catalog, wasm = _slow_catalog(tmp_path)
    manage(environment, "import_catalog", str(catalog))
    rng = random.Random(11)
    for attempt in range(SCORE_KILLS):
        process = start(environment, "score", "adder", "--wasm", str(wasm), "--name", f"killed-{attempt}")
        process.stdout.readline()  # its entry is stored and being scored (however slow the start was)
        _kill_at(process, rng.uniform(0.1, 1.0))
        assert consistency(database)["problems"] == []
    # A rerun completes; the recovery command finishes the submissions whose scorer died.
    rerun = manage(environment, "score", "adder", "--wasm", str(wasm), "--name", "rerun", "--json")
    assert '"status": "scored"' in rerun.stdout
    time.sleep(1)
    manage(environment, "requeue_stale_jobs", "--stale-after", "0.5")
    state = consistency(database)
    assert state["problems"] == [] and state["submissions"] == SCORE_KILLS + 1 and state["results"] == (SCORE_KILLS +
    1) * 3


def test_two_scorers_at_once_both_complete(environment, database, tmp_path):
    catalog, wasm = _slow_catalog(tmp_path)
    manage(environment, "import_catalog", str(catalog))
    scorers = [start(environment, "score", "adder", "--wasm", str(wasm), "--name", name, "--json") for name in ("one",
                                                                                                                "two")]
    outputs = [process.communicate(timeout=300)[0] for process in scorers]
    assert all(process.returncode == 0 for process in scorers), outputs
    assert all('"status": "scored"' in output and '"passed": true' in output for output in outputs)
    state = consistency(database)
    assert state["problems"] == [] and state["results"] == 6
