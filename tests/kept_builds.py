"""`manage.py …` or `gunicorn …` with the builds of the test run kept (tests/buildcache.py): what
the tests start (the served site's preparation, its web and task workers) builds a bundled
example once for the whole run, not once more per process.

    python tests/kept_builds.py manage.py migrate
    python tests/kept_builds.py gunicorn -c config/gunicorn.py
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from scoring import building
    from tests.buildcache import FOLDER_VARIABLE, keeping

    building.build_source = keeping(Path(os.environ[FOLDER_VARIABLE]), building.build_source)
    program, *arguments = sys.argv[1:]
    if program == "manage.py":
        from django.core.management import execute_from_command_line

        execute_from_command_line(["manage.py", *arguments])
    elif program == "gunicorn":
        from gunicorn.app.wsgiapp import run

        sys.argv = ["gunicorn", *arguments]
        run()
    else:
        sys.exit(f"kept_builds.py runs manage.py or gunicorn, not {program}")
