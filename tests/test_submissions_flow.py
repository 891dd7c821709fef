"""From a harness to a leaderboard over HTTP: a token, a real Rust source with its run record
uploaded, scored by a worker, polled to `passed`, on the board with its model; and a module
built elsewhere, uploaded as it is."""

from __future__ import annotations

import io
import json
import tarfile
import time
import tomllib
from pathlib import Path

import pytest
import requests

from engine.builds import BuildLimits, build_submission, pack_folder
from tests.served import ROOT, serve

pytestmark = [pytest.mark.slow]
EXAMPLE = ROOT / "solutions" / "range-sums" / "accepted" / "fast"


@pytest.fixture
def queued_site(site_template):
    """The bundled catalog served with scoring jobs queued for workers (TASKS_BACKEND=database)."""
    site = serve(site_template, TASKS_BACKEND="database")
    yield site
    site.stop()


def archive_of(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.rglob("*")):
            if "target" not in path.relative_to(folder).parts:
                archive.add(path, arcname=f"fast/{path.relative_to(folder).as_posix()}", recursive=False)
    return buffer.getvalue()


def poll(site, location: str, seconds: float = 300) -> dict:
    deadline = time.monotonic() + seconds
    etag = None
    while True:
        answer = requests.get(site.url + location, headers={"If-None-Match": etag} if etag else {}, timeout=30)
        if answer.status_code == 200:
            etag, document = answer.headers.get("ETag"), answer.json()
            if document["status"] not in ("pending", "running"):
                return document
        else:
            assert answer.status_code == 304  # unchanged since the last poll
        assert time.monotonic() < deadline, "the entry was not scored in time"
        time.sleep(1)


def test_a_harness_uploads_a_source_with_its_record_and_a_worker_scores_it(queued_site, tmp_path):
    site = queued_site
    token = site.manage("api_token", "create", "harness", "--label", "cluster").splitlines()[-1]
    record = tmp_path / "record.json"
    site.manage("seed_run", "range-sums", str(tmp_path / "run"), "--record", str(record))
    document = json.loads(record.read_text())
    document["run"] = {"model": "openai/gpt-5.1", "harness": "sweep-3", "url": "https://example.org/runs/1"}
    record.write_text(json.dumps(document))

    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "sweep-3/fast"}
    answer = requests.post(f"{site.url}/api/v1/submissions/", headers=headers, timeout=60,
                           data={"case": "range-sums", "name": "harness-fast"},
                           files={"source": ("fast.tar.gz", archive_of(EXAMPLE)), "record": record.read_bytes()})
    assert answer.status_code == 202, answer.text
    assert answer.json()["status"] == "pending"  # queued: no worker has it yet
    site.start_worker()
    scored = poll(site, answer.headers["Location"])
    assert (scored["status"], scored["passed"], scored["version"]) == ("scored", True, "v4")
    assert scored["run"]["model"] == "openai/gpt-5.1"
    board = site.json("/api/v1/cases/range-sums/leaderboard/")["results"]
    assert {"name": "harness-fast", "model": "openai/gpt-5.1"}.items() <= next(
        row for row in board if row["name"] == "harness-fast").items()
    retried = requests.post(f"{site.url}/api/v1/submissions/", headers=headers, timeout=60,
                            data={"case": "range-sums", "name": "harness-fast"},
                            files={"source": ("fast.tar.gz", archive_of(EXAMPLE)), "record": record.read_bytes()})
    assert (retried.status_code, retried.json()["submission"]) == (202, scored["submission"])  # the first answer
    detail = requests.get(f"{site.url}{answer.headers['Location']}detail", headers=headers, timeout=30).json()
    assert "built target" in detail["build_log"] or "built " in detail["build_log"]


def test_a_module_built_elsewhere_is_uploaded_as_it_is(queued_site, tmp_path):
    site = queued_site
    token = site.manage("api_token", "create", "harness").splitlines()[-1]
    manifest = tomllib.loads((ROOT / "test-cases/performance/easy/range-sums/v3/test-case.toml").read_text())
    built = build_submission(pack_folder(EXAMPLE, max_bytes=32 << 20), install=manifest["build"].get("install", ""),
                             build=manifest["build"]["build"], module_path=manifest["build"]["module"],
                             limits=BuildLimits(timeout=300), log_limit=65536, path="/usr/bin:/bin")
    assert built.ok, built.log
    answer = requests.post(f"{site.url}/api/v1/submissions/", headers={"Authorization": f"Bearer {token}"},
                           data={"case": "range-sums", "name": "prebuilt", "meta": json.dumps({"model": "m-9"})},
                           files={"wasm": ("fast.wasm", built.module)}, timeout=60)
    assert answer.status_code == 202, answer.text
    site.start_worker()
    scored = poll(site, answer.headers["Location"])
    assert (scored["status"], scored["passed"], scored["run"]["model"]) == ("scored", True, "m-9")
