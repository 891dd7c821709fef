"""The scoring app's system checks: what this machine cannot give a build is said at start-up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_cgroup_a_system_check_says_so(tmp_path):
    """As an account that cannot give a build an account and a cgroup, `manage.py check` warns once
    that builds are refused (and how to fix it)."""
    state = Path(tempfile.mkdtemp(prefix="fuelboard-check-"))  # pytest's own folders are private to root
    state.chmod(0o755)
    var = state / "var"
    var.mkdir()
    os.chown(var, 65534, 65534)
    environment = {"PATH": "/usr/bin:/bin", "SECRET_KEY": "x" * 50, "VAR_DIR": str(var), "HOME": str(var)}
    done = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", sys.executable, "manage.py", "check"], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert "scoring.W001" in done.stderr, done.stderr
    assert "builds here are refused: they cannot be given an account and a cgroup of their own" in done.stderr
    assert "SCORING_BUILD_LAUNCHER" in done.stderr
    # A command that builds makes that one check too, and only it: no page's code is loaded for it.
    code = ("import sys\nfrom django.core.management import execute_from_command_line as run\n"
            "try:\n    run(['manage.py', 'score_examples'] if sys.argv[1] == 'build' else ['manage.py', 'api_token', "
            "'list'])\nexcept BaseException:\n    pass  # (no database here: the checks came first)\n"
            "print('views loaded:', 'api.main' in sys.modules)")
    builds = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", sys.executable, "-c", code, "build"],
                            cwd=ROOT, env={**environment, "DJANGO_SETTINGS_MODULE": "config.settings"},
                            capture_output=True, text=True, timeout=120)
    assert "scoring.W001" in builds.stderr and "views loaded: False" in builds.stdout, builds.stderr
    quick = subprocess.run([sys.executable, "-c", code, "quick"], cwd=ROOT, capture_output=True, text=True,
                           timeout=120, env={**environment, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert "views loaded: False" in quick.stdout and "scoring.W001" not in quick.stderr, quick.stderr
    root = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "VAR_DIR": str(var)})
    assert "scoring.W001" not in root.stderr
    shutil.rmtree(state)
