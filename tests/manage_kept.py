"""`manage.py`, with the builds of the test run kept (tests/buildcache.py): what the tests start
to prepare a site builds a bundled example once for the whole run, not once more per command."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import execute_from_command_line

    from scoring import service
    from tests.buildcache import FOLDER_VARIABLE, keeping

    service.build_source = keeping(Path(os.environ[FOLDER_VARIABLE]), service.build_source)
    execute_from_command_line(["manage.py", *sys.argv[1:]])
