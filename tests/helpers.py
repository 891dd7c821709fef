"""Shared helpers for tests that run the product's commands as real subprocesses."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

from django.conf import settings

from tests.runfolder import kept_once, run_folder

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_VERSION = ROOT / "catalog/tests/data/valid/performance/easy/adder/v1"


class SubprocessDatabase:
    """A database of its own for commands run as subprocesses, reachable here with plain SQL:
    a fresh PostgreSQL database on the server the suite uses, or a SQLite file."""

    def __init__(self, tmp_path: Path, template: "SubprocessDatabase | None" = None):
        """Empty, or a copy of `template`."""
        self._name(f"sub_{uuid.uuid4().hex[:12]}", tmp_path / "subprocess.sqlite3")
        if self.postgres:
            import psycopg

            with psycopg.connect(dbname="postgres", autocommit=True, **self.params) as admin:
                admin.execute(f'CREATE DATABASE "{self.name}"' + (f' TEMPLATE "{template.name}"' if template else ""))
        elif template:
            shutil.copyfile(template.path, self.path)

    def _name(self, name: str, path: Path) -> None:
        """Where it is: the PostgreSQL database `name` on the suite's server, or the SQLite file `path`."""
        default = settings.DATABASES["default"]
        self.postgres = default["ENGINE"].endswith("postgresql")
        if self.postgres:
            self.name = name
            self.params = {"host": default["HOST"], "port": default["PORT"] or 5432, "user": default["USER"],
                           "password": default["PASSWORD"]}
            password = f":{self.params['password']}" if self.params["password"] else ""
            self.url = f"postgres://{self.params['user']}{password}@{self.params['host']}:{self.params['port']}/{self.name}"
        else:
            self.path = path
            self.url = f"sqlite:///{self.path}"

    @classmethod
    def existing(cls, record: dict) -> "SubprocessDatabase":
        """One that is already there, as `record()` described it."""
        database = cls.__new__(cls)
        database._name(record["name"], Path(record["path"]))
        return database

    def record(self) -> dict:
        return {"name": getattr(self, "name", ""), "path": str(getattr(self, "path", ""))}

    @classmethod
    def migrated(cls, tmp_path: Path) -> "SubprocessDatabase":
        """A database of its own with every migration applied: a copy of one this test process
        migrated (through the real `migrate` command) the first time it was asked."""
        return cls(tmp_path, template=_migrated_template())

    def query(self, sql: str) -> list[tuple]:
        if self.postgres:
            import psycopg

            with psycopg.connect(dbname=self.name, **self.params) as connection:
                return connection.execute(sql).fetchall()
        with sqlite3.connect(self.path, timeout=30) as connection:
            return connection.execute(sql).fetchall()

    def drop(self) -> None:
        if self.postgres:
            import psycopg

            with psycopg.connect(dbname="postgres", autocommit=True, **self.params) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


# In the run's folder: where the migrated template is, once made.
MIGRATED_RECORD = "migrated.json"


@functools.cache
def _migrated_template() -> SubprocessDatabase:
    """The migrated database to copy: made once per test run by the first test process that asks,
    in the run's folder (the others wait for it; dropped when the run ends:
    drop_migrated_template), or once per process outside a run."""
    run = run_folder()
    if run is None:
        import atexit
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = _migrated(folder)
        atexit.register(template.drop)
        return template
    def migrate() -> SubprocessDatabase:
        folder = run / "migrated"
        folder.mkdir(exist_ok=True)
        return _migrated(folder)

    return kept_once(run / MIGRATED_RECORD, migrate, lambda template: json.dumps(template.record()).encode(),
                     lambda record: SubprocessDatabase.existing(json.loads(record)))


def _migrated(folder: Path) -> SubprocessDatabase:
    """A new database in `folder`, every migration applied through the real `migrate` command."""
    template = SubprocessDatabase(folder)
    manage(command_env(template, folder), "migrate", "--noinput")
    if not template.postgres:  # one file to copy: the write-ahead log folded in
        with sqlite3.connect(template.path) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return template


def drop_migrated_template(run: Path) -> None:
    """Drop the run's migrated template, if a process made one (when the whole run ends)."""
    record = run / MIGRATED_RECORD
    if record.exists():
        SubprocessDatabase.existing(json.loads(record.read_text())).drop()
        record.unlink()


def command_env(database: SubprocessDatabase, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database.url,
        "VAR_DIR": str(tmp_path / "var"),
        "LOG_LEVEL": "ERROR",
        **extra,
    }


def manage(env: dict, *args: str, timeout: float = 180, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def start(env: dict, *args: str) -> subprocess.Popen:
    """A command running in the background; its output unbuffered, so progress can be followed."""
    return subprocess.Popen([sys.executable, "manage.py", *args], cwd=ROOT, env={**env, "PYTHONUNBUFFERED": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def generate_catalog(root: Path, versions: int, per_case: int = 4) -> None:
    """`versions` valid version folders: `versions / per_case` cases of `per_case` versions."""
    for index in range(versions):
        case, version = divmod(index, per_case)
        target = root / "performance" / "easy" / f"case-{case:04d}" / f"v{version + 1}"
        shutil.copytree(TEMPLATE_VERSION, target)
        manifest = target / "test-case.toml"
        manifest.write_text(
            manifest.read_text().replace('slug = "adder"', f'slug = "case-{case:04d}"')
            .replace('name = "Adder"', f'name = "Case {case}"')
        )
        (target / "changelog.md").write_text(f"# Changelog\n\n## v{version + 1}\n\nGenerated version {index}.\n")


CONSISTENCY_CHECK = """
import json
from django.db.models import Count
from catalog.models import Case, CaseVersion, HeldOutInput, Variant, VersionFile
from scoring.models import Result, Submission
problems = []
for version in CaseVersion.objects.annotate(inputs=Count("held_out_inputs", distinct=True),
                                            variants_=Count("variants", distinct=True),
                                            files_=Count("files", distinct=True)):
    if version.inputs != version.smoke_count + version.stress_count:
        counted = version.smoke_count + version.stress_count
        problems.append(f"{version} has {version.inputs} held-out inputs, not {counted}")
    if version.variants_ < 1 or version.files_ < 1:
        problems.append(f"{version} has no variants or no files")
for case in Case.objects.all():
    ordinals = list(case.versions.values_list("ordinal", flat=True))
    if sorted(ordinals) != list(range(len(ordinals))):
        problems.append(f"{case} has ordinals {sorted(ordinals)}")
    if not ordinals:
        problems.append(f"{case} has no versions")
for submission in Submission.objects.annotate(results_=Count("results")):
    final = submission.status in ("scored", "build_failed", "invalid_module")
    expected = submission.input_count if submission.status == "scored" else 0
    if final and submission.results_ != expected:
        problems.append(f"submission {submission.pk} ({submission.status}) has {submission.results_} results")
    if not final and submission.results_:
        problems.append(f"unfinished submission {submission.pk} has results")
print(json.dumps({"problems": problems, "versions": CaseVersion.objects.count(),
                  "submissions": Submission.objects.count(), "results": Result.objects.count()}))
"""


def consistency(env: dict) -> dict:
    return json.loads(manage(env, "shell", "-c", CONSISTENCY_CHECK).stdout.strip().splitlines()[-1])
