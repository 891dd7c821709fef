"""The bundled catalog (the cases this run proves: tests/bundled.py) with its examples scored,
served by a real server of its own, once per run.

Importing the catalog and scoring its examples takes ten real builds and a few billion units of
fuel: the browser tests, the accessibility tests and the API's outside client used to do it once
each. `prepare()` does it once per run (`shared_template`: whichever test process asks first)
into a database of its own (a SQLite file, or a PostgreSQL
database on the server the suite runs against), through the real commands; `serve()` starts
gunicorn on a copy of it, so a test that changes the site (carries entries, imports a version)
gets a copy of its own, and the others share one. Nothing here touches the test database.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests import bundled
from tests.buildcache import kept_modules_folder
from tests.runfolder import run_folder

ROOT = Path(__file__).resolve().parent.parent
STAFF = ("staff", "correct horse battery")
MODULE_CACHE = "module-cache"  # a served site's own, outside a test run
# The starter of lattice's latest version (the folder last in natural order).
STARTER = max((path for path in (ROOT / "test-cases/performance/hard/lattice").iterdir() if path.is_dir()),
              key=lambda path: [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]
              ) / "workspaces/base"
# A reviewer's read of an entry (scoring/reviews.py), as the admin or the API records one, and
# lattice's naive example as its latest version's reference (set_reference), so speedups show.
READ = """
from django.contrib.auth import get_user_model
from scoring.models import Submission
from scoring.references import set_reference
from scoring.reviews import record_read
reader, _ = get_user_model().objects.get_or_create(username="reader")
entry = Submission.objects.filter(version__case__slug="lattice", version__latest_any=True,
                                  name="example-naive").latest("pk")
record_read(entry, "loop-aware", "no", "simulates every tick:\\nno loop detection", reader)
set_reference(entry)
"""
AGENT_RUNS = (
    ("run-17", "fast", {"model": "openai/gpt-5.1", "harness": "mini-swe", "cost_usd": "0.42", "input_tokens": "51234",
                        "output_tokens": "4021"}),
    ("run-18", "naive", {"model": "claude-x@2026-10", "harness": "mini-swe", "cost_usd": "1.10"}),
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _postgres(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(_with_database(url, "postgres"), autocommit=True) as connection:
        connection.execute(statement)


@dataclass
class Database:
    """A database of the served site: a SQLite file, or a PostgreSQL database."""

    url: str
    path: Path | None = None  # the SQLite file
    name: str | None = None  # the PostgreSQL database

    def copy(self, folder: Path) -> "Database":
        if self.path is not None:
            target = folder / "site.sqlite3"
            for suffix in ("", "-wal"):
                if Path(f"{self.path}{suffix}").exists():
                    shutil.copyfile(f"{self.path}{suffix}", f"{target}{suffix}")
            return Database(f"sqlite:///{target}", path=target)
        name = f"site_{uuid.uuid4().hex[:12]}"
        _postgres(self.url, f'CREATE DATABASE "{name}" TEMPLATE "{self.name}"')
        return Database(_with_database(self.url, name), name=name)

    def drop(self) -> None:
        if self.name is not None:
            _postgres(self.url, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def environment(database: Database, folder: Path, **extra: str) -> dict[str, str]:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST", "DJANGO_"))}
    # The compiled modules kept for the test runs, shared with the test processes (conftest.py),
    # or, outside a run, the site's own.
    modules = str(kept_modules_folder() if run_folder() else folder / MODULE_CACHE)
    return {**environ, "DATABASE_URL": database.url, "VAR_DIR": str(folder / "var"),
            "SCORING_CACHE_DIR": modules, "SECRET_KEY": "served-site-" + "x" * 40,
            "PAGE_CACHE_SECONDS": "0", "LOG_LEVEL": "ERROR", **extra}


def _kept_builds(program: str, kept: bool = True) -> list[str]:
    """How to start `manage.py` or `gunicorn`: through tests/kept_builds.py in a test run."""
    from tests.buildcache import FOLDER_VARIABLE

    if kept and os.environ.get(FOLDER_VARIABLE):
        return [sys.executable, "tests/kept_builds.py", program]
    return [sys.executable, program] if program == "manage.py" else [str(ROOT / ".venv" / "bin" / program)]


def manage(database: Database, folder: Path, *arguments: str, builds_kept: bool = True, **extra: str) -> str:
    """Run a command of the project against the site's database; its stdout. A source the run
    has built already is not built again (tests/buildcache.py) unless `builds_kept` is False."""
    done = subprocess.run([*_kept_builds("manage.py", builds_kept), *arguments], cwd=ROOT, capture_output=True,
                          text=True, env=environment(database, folder, **extra), timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(arguments)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def prepare(folder: Path) -> Database:
    """The template database: migrated, the bundled catalog imported, its examples scored, a
    starter that does not pass on lattice's long belts, and a staff account."""
    folder.mkdir(parents=True, exist_ok=True)
    postgres = _postgres_url()
    if postgres:
        name = f"site_template_{uuid.uuid4().hex[:12]}"
        _postgres(postgres, f'CREATE DATABASE "{name}"')
        database = Database(_with_database(postgres, name), name=name)
    else:
        database = Database(f"sqlite:///{folder / 'template.sqlite3'}", path=folder / "template.sqlite3")
    manage(database, folder, "migrate", "--noinput", "-v0")
    manage(database, folder, "import_catalog", str(bundled.catalog()))
    manage(database, folder, "score_examples", str(ROOT / "solutions"))
    manage(database, folder, "score", "lattice", "--version", STARTER.parent.parent.name, "--variant", "long-belts",
           "--submission", str(STARTER), "--name", "starter")
    manage(database, folder, "shell", "-c", READ)  # a review read on lattice's naive example, its reference
    # Two runs of a harness on rising, each naming its model (agents on /agents/); the first is
    # measured again from its source (its mark on the pages that show it).
    made = []
    for name, example, meta in AGENT_RUNS:
        done = manage(database, folder, "score", "rising", "--submission",
                      str(ROOT / "solutions/rising/accepted" / example),
                      "--name", name, "--json", *[part for pair in meta.items() for part in ("--meta",
                                                                                             f"{pair[0]}={pair[1]}")])
        made.append(json.loads(done)["submission"])
    manage(database, folder, "verify", "--submission", str(made[0]), builds_kept=False)  # a real build again
    manage(database, folder, "createsuperuser", "--noinput", "--username", STAFF[0], "--email", "staff@example.com",
           DJANGO_SUPERUSER_PASSWORD=STAFF[1])
    if database.path is not None:  # one file to copy: the write-ahead log folded in
        import sqlite3

        with sqlite3.connect(database.path) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return database


# In the run's folder: the template's lock, and what it is once prepared (or why it could not be).
TEMPLATE_LOCK, TEMPLATE_RECORD, TEMPLATE_FAILURE = "served-site.lock", "served-site.json", "served-site.failed"


def shared_template(run: Path) -> Database:
    """The template, prepared once per test run by the first test process that asks for it,
    in `run` (the folder every process of the run shares); the others wait for it and use it.
    A preparation that failed is not tried again by each process: they fail with its reason."""
    import fcntl

    with open(run / TEMPLATE_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (run / TEMPLATE_FAILURE).exists():
            raise RuntimeError("the served site's preparation failed in another test process:\n"
                               + (run / TEMPLATE_FAILURE).read_text())
        if (run / TEMPLATE_RECORD).exists():
            return _recorded(run / TEMPLATE_RECORD)
        try:
            database = prepare(run / "served-site")
        except BaseException as failed:
            (run / TEMPLATE_FAILURE).write_text(f"{type(failed).__name__}: {failed}")
            raise
        (run / TEMPLATE_RECORD).write_text(json.dumps(
            {"url": database.url, "path": str(database.path) if database.path else None, "name": database.name}))
        return database


def _recorded(record: Path) -> Database:
    recorded = json.loads(record.read_text())
    return Database(recorded["url"], Path(recorded["path"]) if recorded["path"] else None, recorded["name"])


def drop_shared_template(run: Path) -> None:
    """Drop the run's template database, if a process prepared one (when the whole run ends)."""
    record = run / TEMPLATE_RECORD
    if record.exists():
        _recorded(record).drop()
        record.unlink()


@dataclass
class Site:
    """A server on a copy of the prepared database."""

    url: str
    database: Database
    folder: Path
    process: subprocess.Popen = field(repr=False)
    env: dict = field(default_factory=dict, repr=False)
    workers: list = field(default_factory=list, repr=False)
    group: bool = False  # the process leads a group of its own (serve.sh: nginx, gunicorn, workers)

    def manage(self, *arguments: str) -> str:
        return manage(self.database, self.folder, *arguments, SITE_URL=self.url, **self.env)

    def start_worker(self) -> subprocess.Popen:
        """A `db_worker` on the site's database (for a site served with TASKS_BACKEND=database)."""
        worker = subprocess.Popen([*_kept_builds("manage.py"), "db_worker"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=environment(self.database, self.folder,
                                                                             SITE_URL=self.url, **self.env))
        self.workers.append(worker)
        return worker

    def json(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=30) as response:
            return json.loads(response.read())

    def submission(self, case: str, name: str) -> int:
        """The id of `name`'s entry on the case's latest leaderboard (every entry)."""
        rows = self.json(f"/api/v1/cases/{case}/leaderboard/?all=1&page_size=200")["results"]
        return next(row["submission"] for row in rows if row["name"] == name)

    def page_kinds(self) -> dict[str, str]:
        """One path of every kind of page a visitor reaches (the checkers and the browser tests walk them)."""
        naive, fast = self.submission("lattice", "example-naive"), self.submission("lattice", "example-fast")
        starter = self.submission("lattice", "starter")
        return {
            "list": "/", "list filtered": "/cases/?tag=simulation&difficulty=hard", "case": "/cases/lattice/",
            "version": "/cases/range-sums/v1/", "leaderboard": "/cases/lattice/leaderboard/",
            "all": "/cases/lattice/leaderboard/?all=1", "submission": f"/submissions/{naive}/",
            "review column": "/cases/lattice/leaderboard/?review=loop-aware",
            "failed submission": f"/submissions/{starter}/", "compare": f"/submissions/{naive}/compare/{fast}/",
            "standings": "/standings/", "submitter": "/submitters/example-fast/", "about": "/about/",
            "agents": "/agents/", "agent": "/agents/openai/gpt-5.1/", "changes": "/changes/",
            "api docs": "/api/v1/docs", "docs": "/docs/", "docs page": "/docs/settings/",
            "not found": "/cases/no-such-case/", "bad request": "/cases/?page=x",
        }

    def manual_pages(self) -> dict[str, str]:
        """Every page of the manual (/docs/), by its file in docs/."""
        return {f"docs: {path.stem}": "/docs/" if path.stem == "index" else f"/docs/{path.stem}/"
                for path in sorted((ROOT / "docs").glob("*.md"))}

    def staff_page_kinds(self) -> dict[str, str]:
        """The pages staff see differently (the staff-only detail), and the admin pages the site
        makes itself."""
        starter = self.submission("lattice", "starter")
        return {
            "submission, as staff": f"/submissions/{starter}/", "leaderboard, as staff": "/cases/lattice/leaderboard/",
            "admin index": "/admin/", "admin import": "/admin/catalog/caseversion/import/",
            "admin versions": "/admin/catalog/caseversion/", "admin submissions": "/admin/scoring/submission/",
            "admin epochs": "/admin/scoring/epoch/",
        }

    def staff_cookie(self) -> str:
        """A `Cookie` header of a session signed in as STAFF (through the admin's login form)."""
        import requests

        session = requests.Session()
        form = session.get(self.url + "/admin/login/", timeout=30).text
        token = form.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
        answer = session.post(self.url + "/admin/login/?next=/admin/", timeout=30, allow_redirects=False,
                              data={"csrfmiddlewaretoken": token, "username": STAFF[0], "password": STAFF[1]},
                              headers={"Referer": self.url + "/admin/login/"})
        assert answer.status_code == 302, "the staff account could not sign in"
        return "; ".join(f"{name}={value}" for name, value in session.cookies.get_dict().items())

    def _signal(self, number: int) -> None:
        """The server's whole process group (serve.sh's nginx, gunicorn and workers), or gunicorn."""
        try:
            os.killpg(self.process.pid, number) if self.group else self.process.send_signal(number)
        except ProcessLookupError:
            pass

    def stop(self) -> None:
        for worker in self.workers:
            worker.kill()
            worker.wait()
        self._signal(15)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._signal(9)
            self.process.wait(timeout=10)
        self.database.drop()
        shutil.rmtree(self.folder, ignore_errors=True)


def serve_behind_nginx(template: Database, *, front_limits: bool = False, **settings: str) -> Site:
    """`scripts/serve.sh` (nginx in front of gunicorn, as `make serve`) on a fresh copy of
    `template`; the per-client limits off (a test client is one address) unless `front_limits`:
    then as `make serve` sets them by default."""
    folder = Path(tempfile.mkdtemp(prefix="fronted-site-"))
    folder.chmod(0o755)  # nginx's workers pass through it to the socket
    (folder / "var").mkdir(mode=0o700)
    database = template.copy(folder / "var")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = environment(database, folder, SITE_URL=url, HOST="127.0.0.1", PORT=str(port), WEB_CONCURRENCY="3",
                      STATIC_ROOT=str(folder / "static"), TASK_WORKERS="1",
                      **({} if front_limits else {"FRONT_RATE": "0", "FRONT_CONNECTIONS": "0"}), **settings)
    from engine.tests.launchers import starting_a_launcher

    with starting_a_launcher():  # serve.sh starts one (as root)
        process = subprocess.Popen([str(ROOT / "scripts" / "serve.sh")], cwd=ROOT, env=env, start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        site = Site(url, database, folder, process, dict(settings), group=True)
        _wait_for(site)
    return site


def _wait_for(site: Site, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if site.process.poll() is not None:
            raise RuntimeError("the served site exited")
        try:
            with urllib.request.urlopen(site.url + "/health/", timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                site.stop()
                raise RuntimeError("the served site did not answer") from None
            time.sleep(0.2)


def serve(template: Database, **settings: str) -> Site:
    """gunicorn on a fresh copy of `template` (with these settings), answering once this returns."""
    folder = Path(tempfile.mkdtemp(prefix="served-site-"))
    database = template.copy(folder)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = environment(database, folder, SITE_URL=url, GUNICORN_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="3",
                      **settings)
    process = subprocess.Popen([*_kept_builds("gunicorn"), "-c", "config/gunicorn.py"], cwd=ROOT,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    site = Site(url, database, folder, process, dict(settings))
    _wait_for(site, 60)
    return site
