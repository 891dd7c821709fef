"""The manual's walk-through of a harness sending an entry (docs/submitting.md, "Sending an
entry"), run as written with bash, curl and the project's commands against a served site: it ends
with the run's fields on the agents matrix."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests import served
from tests.browsing import ROOT

pytestmark = [pytest.mark.slow]


def walkthrough() -> str:
    page = (ROOT / "docs" / "submitting.md").read_text()
    section = page.split("## Sending an entry", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def test_the_walkthrough_runs_as_written_and_ends_on_the_agents_matrix(site_template):
    site = served.serve(site_template, STANDINGS_REFRESH_SECONDS="0")
    try:
        script = walkthrough().replace("http://127.0.0.1:8000", site.url)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, capture_output=True, text=True,
                              timeout=600, env=served.environment(site.database, site.folder, SITE_URL=site.url))
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout
        assert '"status": "scored"' in out and '"passed": true' in out and '"detail_url": ' in out
        # The last command: the matrix, with the record's run fields.
        agents = out.split('"detail_url"', 1)[1]
        assert '"model": "example-model"' in agents and '"harness": "sweep-3"' in agents
        assert '"mean_cost_usd": 0.42' in agents
    finally:
        site.stop()
