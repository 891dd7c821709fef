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
