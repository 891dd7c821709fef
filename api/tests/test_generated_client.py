"""The API through a client nobody here wrote: openapi-python-client generates a Python package
from the served schema, and every operation is called with it against a live site. Each answer
must parse into the type the schema promised (a CSV download as text, a document as its model),
so an operation that answers another media type than it says, or a body a generator cannot
model, fails here."""

from __future__ import annotations

import importlib
import io
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from engine.tests import wat

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
pytestmark = [pytest.mark.slow]


def _generate(url: str, folder: Path):
    """The client package generated from the site's schema, imported."""
    with urllib.request.urlopen(f"{url}/api/v1/openapi.json", timeout=30) as response:
        (folder / "schema.json").write_bytes(response.read())
    environment = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(GENERATOR), "generate", "--path", "schema.json", "--output-path", "client",
                           "--meta", "none"], cwd=folder, capture_output=True, text=True, timeout=300, env=environment)
    assert done.returncode == 0 and "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("client")
    finally:
        sys.path.remove(str(folder))


def test_a_generated_client_calls_every_operation(own_site, tmp_path):
    client_package = _generate(own_site.url, tmp_path)
    api = importlib.import_module("client.api")
    operations = {f"{group}.{module}" for group in ("catalog", "index", "results", "schemas", "submissions")
                  for module in [path.stem for path in (Path(api.__file__).parent / group).glob("*.py")
                                 if path.stem != "__init__"]}
    assert len(operations) == 17, operations  # as many as the schema has
    models = importlib.import_module("client.models")
    types = importlib.import_module("client.types")
    token = own_site.manage("api_token", "create", "generated").splitlines()[-1]
    anonymous = client_package.Client(base_url=own_site.url, raise_on_unexpected_status=True)
    operator = client_package.AuthenticatedClient(base_url=own_site.url, token=token, raise_on_unexpected_status=True)

    def call(name: str, *args, client=anonymous, **kwargs):
        group, module = name.split(".")
        answer = importlib.import_module(f"client.api.{group}.{module}").sync_detailed(*args, client=client, **kwargs)
        operations.discard(name)
        return answer

    def ok(answer, kind, status: int = 200):
        assert answer.status_code == status, (answer.status_code, answer.content[:300])
        assert isinstance(answer.parsed, kind), type(answer.parsed)
        return answer.parsed

    assert ok(call("index.index"), models.Index)
    cases = ok(call("catalog.case_list", tag="simulation"), models.CaseList)
    assert [case.slug for case in cases.results] == ["lattice"]
    assert ok(call("catalog.case_detail", "lattice"), models.CaseDetail).slug == "lattice"
    board = ok(call("results.leaderboard", "lattice", all_=True), models.Leaderboard)
    naive = next(row.submission for row in board.results if row.name == "example-naive")
    fast = next(row.submission for row in board.results if row.name == "example-fast")
    csv_text = ok(call("results.leaderboard_csv", "lattice"), str)
    assert csv_text.startswith('"rank","name"') and "example-fast" in csv_text
    assert ok(call("results.history", "lattice"), models.History)
    assert ok(call("results.standings"), models.StandingsDocument).results
    assert ok(call("results.standings_csv"), str).startswith('"rank","name"')
    agents = ok(call("results.agents", sort=models.AgentsSort.COST), models.AgentsDocument)
    assert {line.model for line in agents.results} == {"openai/gpt-5.1", "claude-x@2026-10"}
    assert agents.results[0].cells[0].case == "rising"
    assert ok(call("results.agents_csv"), str).startswith('"rank","model","harness"')
    assert ok(call("results.submission", naive), models.SubmissionDocument).submission == naive
    assert ok(call("results.submission_compare", naive, fast), models.ComparisonDocument)
    schema = ok(call("schemas.run_record_schema"), models.RunRecordSchemaResponse200)
    assert "$schema" in schema.additional_properties
    # An operator's token: submit a module, then read it back as its operator.
    body = models.SubmitMultiPartBodyParams(case="range-sums", name="generated-client",
                                           wasm=types.File(payload=io.BytesIO(wat.module(wat.ECHO)),
                                                           file_name="echo.wasm"))
    made = ok(call("submissions.submit", client=operator, body=body), models.SubmissionDocument, 202)
    assert made.name == "generated-client"
    assert ok(call("submissions.submission_detail", made.submission, client=operator), models.SubmissionDetail)
    mine = ok(call("submissions.operator_submissions", client=operator), models.OperatorSubmissions)
    assert [entry.submission for entry in mine.results] == [made.submission]
    # A reviewer's token: a read of lattice's naive example (its version declares `loop-aware`).
    reviewer = client_package.AuthenticatedClient(
        base_url=own_site.url, token=own_site.manage("api_token", "create", "generated-reader",
                                                     "--review").splitlines()[-1], raise_on_unexpected_status=True)
    read = ok(call("submissions.review", naive, client=reviewer,
                   body=models.ReviewRequest(item="loop-aware", verdict="partly", text="looks for loops")),
              models.ReviewDocument, 201)
    assert (read.item, read.verdict, read.reviewer) == ("loop-aware", "partly", "generated-reader")
    # A refusal parses as the problem document the schema says.
    missing = call("results.leaderboard", "no-such-case")
    assert missing.status_code == 404 and isinstance(missing.parsed, models.Problem)
    assert json.loads(missing.content)["status"] == 404
    assert operations == set(), f"not called: {operations}"
