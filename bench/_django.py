"""Set up Django for a benchmark script against a throwaway database (never the real one)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup(database_url: str | None = None) -> Path:
    """Point Django at a fresh SQLite file (or `database_url`) and migrate it. Returns a temp dir."""
    sys.path.insert(0, str(ROOT))
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    os.environ["VAR_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return workdir
