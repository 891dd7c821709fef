"""The API against a client nobody here wrote: Schemathesis reads the generated schema and sends
every operation valid and invalid requests, over HTTP, to the site as `make serve` serves it (nginx in
front of gunicorn, its per-client limits on) with the bundled catalog and its scored examples. No response may be a
server error or disagree with the schema (status,
media type, headers, body), valid requests must be accepted, invalid ones refused, and methods
the schema does not list must be 405s with `Allow`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
pytestmark = [pytest.mark.slow]
EXAMPLES_PER_OPERATION = int(os.environ.get("API_CONTRACT_EXAMPLES", "25"))


@pytest.fixture
def fronted_site(site_template):
    """The site as `make serve` serves it: nginx in front (what it answers itself must hold to
    the schema too, its per-client limits on), gunicorn, a task worker. The rate is raised from
    the default 30 a second to 100 (a burst of 400), so the run takes seconds rather than a minute
    of waiting; the default limits themselves are held to in tests/test_production.py."""
    from tests import served

    site = served.serve_behind_nginx(site_template, front_limits=True, FRONT_RATE="100", FRONT_BURST="400")
    yield site
    site.stop()


@pytest.mark.long
def test_schemathesis_finds_nothing(fronted_site, tmp_path):
    """With an operator's token, so the write operations are tried too (on a site of the test's
    own: the stateful phase submits entries), through nginx."""
    own_site = fronted_site
    token = own_site.manage("api_token", "create", "schemathesis").splitlines()[-1]
    environment = {**os.environ, "SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"}
    run = subprocess.run(
        [str(SCHEMATHESIS), "--config-file", str(Path(__file__).parent / "data" / "schemathesis.toml"), "run",
         f"{own_site.url}/api/v1/openapi.json", "--checks", "all", "--workers", "1",
         "--header", f"Authorization: Bearer {token}",
         "--max-examples", str(EXAMPLES_PER_OPERATION), "--request-timeout", "30", "--seed", "1",
         # A client that keeps to the front's per-client rate (100 a second here, a burst of 400).
         "--rate-limit", "90/s",
         "--suppress-health-check", "too_slow", "--report", "junit", "--report-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=600, env=environment, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
    assert re.search(r"Operations:\s+17 selected / 17 total", run.stdout), run.stdout  # every operation was tried
