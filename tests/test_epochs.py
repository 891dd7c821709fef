"""An engine upgrade as staff run it (docs/epochs.md): a candidate epoch measured by a second worker
host whose virtualenv pins another wasmtime release, its report, the switch, and the site after it.

The candidate pins wasmtime 47.0.1, which charges `memory.grow` one unit of fuel less per page
than the site's release: of three entries on one board, the one that grows its memory moves from
second place to first under the candidate, and the report must say so — a real difference between
two real engines, not one staged by the test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from catalog.tests.trees import ADDER_V1, VALID_CATALOG, CatalogTree
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from engine.tests import wat
from scoring.tests.helpers import adder_answers
from tests.helpers import ROOT, SubprocessDatabase, command_env, manage

CANDIDATE = "47.0.1"
# Ten pages grown, one at a time, on every input: 94 units of fuel under the site's release, 84
# under the candidate's. `steady` burns 88 instead: between the two.
GROW = ("(local.set $i (i32.const 10)) (loop $grow (drop (memory.grow (i32.const 1)))"
        " (local.set $i (i32.sub (local.get $i) (i32.const 1))) (br_if $grow (local.get $i)))")
STEADY_ITERATIONS = 14

pytestmark = [pytest.mark.slow, pytest.mark.long]


def candidate_python() -> str:
    made = subprocess.run([str(ROOT / "scripts/candidate-venv.sh"), CANDIDATE], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def run(python: str, env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([python, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


# Pages as the candidate's own process renders them (its engine is the site's once it switched).
PAGES = """
import json, sys
from django.test import Client
client = Client(HTTP_HOST="localhost")
found = {}
for url in sys.argv[1:]:
    response = client.get(url)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    found[url] = {"status": response.status_code, "body": body.decode("latin-1")}
print(json.dumps(found))
"""


def pages(python: str, env: dict, *urls: str) -> dict:
    done = subprocess.run([python, "-c", "import django; django.setup(); exec(open(0).read())", *urls], cwd=ROOT,
                          env={**env, "PYTHONPATH": str(ROOT)}, input=PAGES, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def site(tmp_path):
    """A site on the suite's engine, with three entries on adder v1 and one wrong one."""
    database = SubprocessDatabase.migrated(tmp_path)
    env = command_env(database, tmp_path, TASKS_BACKEND="database", SCORING_THREADS="1")
    tree = CatalogTree(tmp_path / "catalog")
    shutil.copytree(VALID_CATALOG / ADDER_V1, tree.root / ADDER_V1)
    answers = adder_answers(tree)
    wrong = {**answers, max(answers): b'{"sum": 1}'}
    modules = {"plain": wat.lookup(answers), "steady": wat.lookup(answers, iterations=STEADY_ITERATIONS),
               "grower": wat.lookup(answers, prelude=GROW), "wrong": wat.lookup(wrong)}
    for name, content in modules.items():
        (tmp_path / f"{name}.wasm").write_bytes(content)
    manage(env, "import_catalog", str(tree.root))
    manage(env, "shell", "-c", (
        "from pathlib import Path\n"
        "from catalog.models import CaseVersion\n"
        "from scoring.attempts import score\n"
        "from scoring.recording import submit\n"
        "version = CaseVersion.objects.get(case__slug='adder')\n"
        f"for name in {list(modules)!r}:\n"
        "    score(submit(version, version.default_variant(), name, wasm_file=Path(" + repr(str(tmp_path)) +
        ") / f'{name}.wasm', run={'model': 'model-' + name}))\n"))
    yield database, env
    database.drop()


def board(database) -> list[tuple[str, int]]:
    return database.query("SELECT name, total_fuel FROM scoring_submission WHERE board_group = 0 "
                          "ORDER BY board_key, submitted_at, id")


def test_a_candidate_epoch_is_measured_on_its_own_host_reported_and_switched_to(site, tmp_path):
    database, env = site
    python = candidate_python()
    before = board(database)
    assert [name for name, _ in before] == ["plain", "steady", "grower"]
    ids = dict(database.query("SELECT name, id FROM scoring_submission"))

    # The site's own engine cannot be its own candidate; a candidate host can.
    refused = manage(env, "epoch", "prepare", check=False)
    assert refused.returncode != 0 and "runs the site's own engine" in refused.stderr
    prepared = json.loads(run(python, env, "epoch", "prepare", "--json").stdout)
    assert prepared["epoch"]["wasmtime"] == CANDIDATE and prepared["measurements"] == 4
    # Queued for the candidate's workers only: the site's workers take the default queue.
    assert database.query("SELECT count(*) FROM django_tasks_database_dbtaskresult "
                          "WHERE status = 'READY' AND queue_name = 'epoch'") == [(4,)]

    # An entry scored after the candidate was prepared: the switch waits for it.
    manage(env, "shell", "-c", (
        "from pathlib import Path\nfrom catalog.models import CaseVersion\nfrom scoring.attempts import score\n"
        "from scoring.recording import submit\nversion = CaseVersion.objects.get(case__slug='adder')\n"
        f"score(submit(version, version.default_variant(), 'late', wasm_file=Path({str(tmp_path / 'plain.wasm')!r})))"))
    ids["late"] = database.query("SELECT id FROM scoring_submission WHERE name = 'late'")[0][0]

    # The second host: its workers take the epoch queue until it is empty.
    run(python, env, "db_worker", "--queue-name", "epoch", "--batch", "--no-startup-delay", "--no-reload",
        "--interval", "0.1")
    report = json.loads(run(python, env, "epoch", "report", "--json").stdout)
    assert report["current"]["wasmtime"] == WASMTIME_VERSION and report["epoch"]["wasmtime"] == CANDIDATE
    entries = {entry["name"]: entry for entry in report["entries"]}
    assert set(entries) == {"plain", "steady", "grower", "wrong", "late"}
    # The late one would keep its figures as counted before; prepared again, it is measured too.
    assert entries["late"]["flags"] == ["not_measured"] and report["counts"]["kept_as_before"] == 1
    assert report["complete"]
    run(python, env, "epoch", "prepare")  # only the one missing
    refused = run(python, env, "epoch", "switch", check=False)
    assert refused.returncode != 0 and "1 measurement of the candidate is still queued" in refused.stderr
    run(python, env, "db_worker", "--queue-name", "epoch", "--batch", "--no-startup-delay", "--no-reload",
        "--interval", "0.1")
    report = json.loads(run(python, env, "epoch", "report", "--json").stdout)
    entries = {entry["name"]: entry for entry in report["entries"]}
    assert report["complete"] and report["counts"]["measured"] == 5
    # Every entry measured again; only the one that grows its memory counts differently, by 10
    # units on each of adder's two stress inputs; the wrong one stays wrong.
    assert entries["grower"]["flags"] == ["fuel_changed"]
    assert entries["grower"]["candidate"]["total_fuel"] == entries["grower"]["now"]["total_fuel"] - 20
    for name in ("plain", "steady", "late", "wrong"):
        assert entries[name]["flags"] == [], entries[name]
        assert entries[name]["candidate"]["total_fuel"] == entries[name]["now"]["total_fuel"]
    assert entries["wrong"]["candidate"]["passed"] is False
    assert report["boards_changed"] == 1
    [reordered] = report["boards"]
    order = {pk: name for name, pk in ids.items()}
    assert [order[item["id"]] for item in reordered["before"] if item["group"] == 0] == [
        "plain", "late", "steady", "grower"]
    assert [order[item["id"]] for item in reordered["after"] if item["group"] == 0] == [
        "plain", "late", "grower", "steady"]
    text = run(python, env, "epoch", "report").stdout
    assert f"#{ids['grower']} adder v1 grower: fuel_changed" in text and "board adder v1: order" in text

    # The switch is made from a host on the candidate's engine, never from the site's old one.
    refused = manage(env, "epoch", "switch", check=False)
    assert refused.returncode != 0 and f"not the candidate's wasmtime {CANDIDATE}" in refused.stderr
    switched = json.loads(run(python, env, "epoch", "switch", "--json").stdout)
    assert switched["epoch"]["state"] == "current"
    assert "fuel or status moved for 1" in switched["summary"] and "1 board reordered" in switched["summary"]
    assert [name for name, _ in board(database)] == ["plain", "late", "grower", "steady"]
    assert set(database.query("SELECT wasmtime_version FROM scoring_submission")) == {(CANDIDATE,)}
    old_epoch = database.query(f"SELECT id FROM scoring_epoch WHERE wasmtime_version = '{WASMTIME_VERSION}'")[0][0]
    # Every entry keeps what the old engine counted, input by input.
    kept = dict(database.query(f"SELECT submission_id, total_fuel FROM scoring_epochmeasurement "
                               f"WHERE epoch_id = {old_epoch}"))
    assert {order[pk]: fuel for pk, fuel in kept.items() if fuel is not None} == {
        name: fuel for name, fuel in before + [("late", dict(before)["plain"])]}
    # The site's workers on the old engine no longer start; the candidate's do.
    refused = manage(env, "db_worker", "--batch", check=False)
    assert refused.returncode != 0 and f"the site counts fuel with wasmtime {CANDIDATE}" in refused.stderr

    # The site after the switch, as the new engine's process serves it (its tables computed as
    # the page asks, as with the immediate task backend).
    board_url, old_url = "/cases/adder/leaderboard/", f"/cases/adder/v1/counted-by/{old_epoch}/"
    kit_url = "/cases/adder/v1/kit/base.zip"
    shown = pages(python, {**env, "TASKS_BACKEND": "immediate"}, board_url, old_url, kit_url, "/agents/",
                  "/changes/", "/feeds/changes.atom", "/api/v1/standings/")
    assert all(page["status"] == 200 for page in shown.values()), {url: page["status"] for url, page in shown.items()}
    leaderboard = shown[board_url]["body"]
    assert leaderboard.index(">grower<") < leaderboard.index(">steady<") and "†" not in leaderboard
    assert old_url in leaderboard and f"wasmtime {WASMTIME_VERSION}" in leaderboard
    old = shown[old_url]["body"]
    assert old.index(">steady<") < old.index(">grower<")
    assert f"{dict(before)['grower']:,}" in old and f"as counted by wasmtime {WASMTIME_VERSION}" in old
    with zipfile.ZipFile(BytesIO(shown[kit_url]["body"].encode("latin-1"))) as kit:
        contract = json.loads(next(kit.read(name) for name in kit.namelist() if name.endswith("meter/contract.json")))
        pins = next(kit.read(name) for name in kit.namelist() if name.endswith("meter/requirements.txt")).decode()
    assert (contract["wasmtime"], contract["config_digest"]) == (CANDIDATE, ENGINE_DIGEST)
    assert f"wasmtime=={CANDIDATE}\n" in pins
    matrix = shown["/agents/"]["body"]  # the agents, best first: the grower now ahead of the steady one
    assert matrix.index('href="/agents/model-grower/"') < matrix.index('href="/agents/model-steady/"')
    changes = shown["/changes/"]["body"]
    assert f"Fuel is counted by wasmtime {CANDIDATE}" in changes and "1 board reordered" in changes
    assert f"wasmtime {CANDIDATE}" in shown["/feeds/changes.atom"]["body"]
    assert shown["/api/v1/standings/"]["status"] == 200


def test_the_candidate_python_runs_another_wasmtime():
    """The second pin really is another engine (the test above means nothing otherwise)."""
    done = subprocess.run([candidate_python(), "-c", "import importlib.metadata as m; print(m.version('wasmtime'))"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == CANDIDATE != WASMTIME_VERSION
    assert sys.executable != candidate_python()
    # On the site's own interpreter, which the site's account may run (an interpreter under root's
    # home, first on root's PATH, is refused to it: every measurement then failed on a worker host).
    def home(python: str) -> str:
        config = Path(python).parent.parent / "pyvenv.cfg"
        return next(line for line in config.read_text().splitlines() if line.startswith("home"))

    assert home(candidate_python()) == home(str(ROOT / ".venv/bin/python"))


def test_migrating_the_scoring_tables_away_and_back_records_the_sites_epoch_once_they_are_there(tmp_path):
    """The epoch is recorded after a migration only where its table is whole: `migrate scoring
    zero` ends cleanly, and migrating forward again records it."""
    database = SubprocessDatabase.migrated(tmp_path)
    env = command_env(database, tmp_path)
    try:
        manage(env, "migrate", "scoring", "zero", "--noinput")
        assert database.query("SELECT COUNT(*) FROM django_migrations WHERE app = 'scoring'") == [(0,)]
        manage(env, "migrate", "--noinput")
        assert database.query("SELECT wasmtime_version, engine_digest, state FROM scoring_epoch") == [
            (WASMTIME_VERSION, ENGINE_DIGEST, "current")]
    finally:
        database.drop()
