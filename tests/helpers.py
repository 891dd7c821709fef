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


# The invariants every kill must leave standing, read with plain SQL (not through the models the
# commands themselves use): each version whole (its held-out inputs as many as it counts, at least
# one variant and one file), each case's versions numbered 0, 1, … without a gap, and results only
# for an entry with a final status (as many as its inputs once it is scored).
VERSIONS_SQL = """
    SELECT c.slug, v.version, v.smoke_count + v.stress_count,
           (SELECT COUNT(*) FROM catalog_heldoutinput h WHERE h.version_id = v.id),
           (SELECT COUNT(*) FROM catalog_variant x WHERE x.version_id = v.id),
           (SELECT COUNT(*) FROM catalog_versionfile f WHERE f.version_id = v.id)
    FROM catalog_caseversion v JOIN catalog_case c ON c.id = v.case_id"""
ORDINALS_SQL = """
    SELECT c.slug, v.ordinal FROM catalog_case c LEFT JOIN catalog_caseversion v ON v.case_id = c.id"""
SUBMISSIONS_SQL = """
    SELECT s.id, s.status, s.input_count, (SELECT COUNT(*) FROM scoring_result r WHERE r.submission_id = s.id)
    FROM scoring_submission s"""
FINAL = ("scored", "build_failed", "invalid_module")


def consistency(database: SubprocessDatabase) -> dict:
    """The invariants of the commands' `database`: {"problems": [...], "versions", "submissions",
    "results"}."""
    problems = []
    versions = database.query(VERSIONS_SQL)
    for slug, version, counted, inputs, variants, files in versions:
        if inputs != counted:
            problems.append(f"{slug} {version} has {inputs} held-out inputs, not {counted}")
        if variants < 1 or files < 1:
            problems.append(f"{slug} {version} has no variants or no files")
    ordinals: dict[str, list[int]] = {}
    for slug, ordinal in database.query(ORDINALS_SQL):
        ordinals.setdefault(slug, []).extend([ordinal] if ordinal is not None else [])
    for slug, numbers in ordinals.items():
        if sorted(numbers) != list(range(len(numbers))):
            problems.append(f"{slug} has ordinals {sorted(numbers)}")
        if not numbers:
            problems.append(f"{slug} has no versions")
    submissions = database.query(SUBMISSIONS_SQL)
    for number, status, input_count, results in submissions:
        final = status in FINAL
        if final and results != (input_count if status == "scored" else 0):
            problems.append(f"submission {number} ({status}) has {results} results")
        if not final and results:
            problems.append(f"unfinished submission {number} has results")
    return {"problems": problems, "versions": len(versions), "submissions": len(submissions),
            "results": sum(row[3] for row in submissions)}
