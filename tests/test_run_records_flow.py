"""From a seeded run to the public pages: seed_run --record, the harness's edit, score --run-record,
then the model on the leaderboard, the transcript on the submission page, the history and the feed."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ElementTree

import pytest
from django.core.management import call_command

from engine.tests import wat
from scoring.tests.helpers import adder_answers

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def test_a_run_record_carries_the_runs_provenance_to_every_page(client, imported, tmp_path):
    run_root, record = tmp_path / "run", tmp_path / "run.record.json"
    call_command("seed_run", "adder", str(run_root), "--version", "v1", "--record", str(record), stdout=io.StringIO())
    assert (run_root / "PROMPT.md").is_file() and not (run_root / record.name).exists()

    # The harness: the solver works in the run root; the harness adds what it knows to the record.
    (run_root / "answer.wasm").write_bytes(wat.lookup(adder_answers(imported)))
    document = json.loads(record.read_text())
    document["run"] = {"model": "solver-model-3", "harness": "harness 1.4", "url": "https://logs.example.org/r/42",
                       "started_at": "2026-12-03T09:00:00Z", "finished_at": "2026-12-03T09:20:00+00:00",
                       "seed": "42"}
    record.write_text(json.dumps(document))

    out = io.StringIO()
    call_command("score", "--run-record", str(record), "--wasm", str(run_root / "answer.wasm"), "--name", "run-42",
                 "--json", stdout=out, stderr=io.StringIO())
    scored = json.loads(out.getvalue())
    assert scored["passed"] and (scored["case"], scored["version"], scored["variant"]) == ("adder", "v1", "base")
    pk = scored["submission"]

    board = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    table = board[board.index('<table class="board">'):]
    assert "solver-model-3" in table and f'href="/submissions/{pk}/"' in table
    assert "Record progression" in board

    page = client.get(f"/submissions/{pk}/").content.decode()
    assert '<a href="https://logs.example.org/r/42" rel="nofollow noopener noreferrer ugc"' in page
    assert "harness 1.4" in page and "solver-model-3" in page and "seed" in page

    history = client.get("/api/v1/cases/adder/history/", {"version": "v1"}).json()
    assert [(row["submission"], row["model"]) for row in history["results"]] == [(pk, "solver-model-3")]

    feed = ElementTree.fromstring(client.get("/feeds/records/").content)
    [entry] = feed.findall(f"{ATOM}entry")
    assert entry.find(f"{ATOM}link").get("href").endswith(f"/submissions/{pk}/")
    assert "run-42" in entry.find(f"{ATOM}title").text

    api = client.get(f"/api/v1/submissions/{pk}/").json()
    assert api["run"]["model"] == "solver-model-3" and api["run"]["seed"] == "42"
