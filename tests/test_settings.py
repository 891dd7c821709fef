"""Settings come from the environment through strict readers (docs/settings.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import database_from_url, envbool, envfloat, envint, envlist

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("raw, expected", [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False), ("",
                                                                                                                    False)])
def test_envbool_reads_the_usual_words(monkeypatch, raw, expected):
    monkeypatch.setenv("FLAG", raw)
    assert envbool("FLAG", not expected) is expected


def test_envbool_refuses_anything_else(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG='maybe' is not a boolean"):
        envbool("FLAG", False)


def test_unset_variables_take_their_defaults(monkeypatch):
    monkeypatch.delenv("NUMBER", raising=False)
    assert envint("NUMBER", 7) == 7
    assert envfloat("NUMBER", 1.5) == 1.5
    assert envlist("NUMBER", ["a"]) == ["a"]


def test_envint_and_envfloat_fail_loudly(monkeypatch):
    monkeypatch.setenv("NUMBER", "12x")
    with pytest.raises(ImproperlyConfigured, match="is not an integer"):
        envint("NUMBER", 1)
    monkeypatch.setenv("NUMBER", "nan")
    with pytest.raises(ImproperlyConfigured, match="not a finite number"):
        envfloat("NUMBER", 1.0)
    monkeypatch.setenv("NUMBER", "-3")
    with pytest.raises(ImproperlyConfigured, match="must be at least 0"):
        envint("NUMBER", 1, minimum=0)


def test_envlist_splits_on_commas(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example , b.example,, ")
    assert envlist("HOSTS", []) == ["a.example", "b.example"]


def test_database_url_sqlite_relative_and_absolute():
    assert database_from_url("sqlite:///var/x.sqlite3", Path("/srv/app"))["NAME"] == Path("/srv/app/var/x.sqlite3")
    assert database_from_url("sqlite:////data/x.sqlite3", Path("/srv/app"))["NAME"] == Path("/data/x.sqlite3")
    assert database_from_url("sqlite://:memory:", Path("/srv"))["NAME"] == ":memory:"


def test_database_url_postgres():
    config = database_from_url("postgres://fuel:s%40cret@db.example:5433/board?sslmode=require", Path("/"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"], config["HOST"], config["PORT"]) == (
        "board", "fuel", "s@cret", "db.example", "5433",
    )
    assert config["OPTIONS"] == {"sslmode": "require"}
    socket = database_from_url("postgresql://fuel@%2Fvar%2Frun%2FPostgres/board", Path("/"))
    assert socket["HOST"] == "/var/run/Postgres"


def test_database_url_refuses_unknown_schemes():
    with pytest.raises(ImproperlyConfigured, match="scheme 'mysql' is not supported"):
        database_from_url("mysql://x/y", Path("/"))
    with pytest.raises(ImproperlyConfigured, match="names no database"):
        database_from_url("postgres://host/", Path("/"))


def test_debug_is_off_unless_set(tmp_path):
    """A fresh process with no DEBUG in its environment runs with DEBUG off."""
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings", "VAR_DIR": str(tmp_path)}
    output = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert output.stdout.strip() == "False"
    bad = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env, "DEBUG": "sure"}, capture_output=True,
                         text=True)
    assert bad.returncode != 0 and "DEBUG='sure' is not a boolean" in bad.stderr


def _manage(args: list[str], var: Path, **extra) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "VAR_DIR": str(var), **extra}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_a_new_var_dir_and_its_database_are_private_whatever_the_secrets_source(tmp_path):
    """With SECRET_KEY set no key file is written, and `migrate` still finds its folder; the
    folder is 0700, the database and its write-ahead log and shared memory 0600."""
    var = tmp_path / "fresh" / "var"
    done = _manage(["migrate", "-v0"], var, SECRET_KEY="k" * 50)
    assert done.returncode == 0, done.stderr
    assert oct(var.stat().st_mode & 0o777) == "0o700"
    assert oct((var / "db.sqlite3").stat().st_mode & 0o777) == "0o600"
    assert not (var / "secret_key").exists()
    code = ("import os, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; django.setup(); "
            "from django.db import connection; connection.cursor().execute('select 1'); "
            "print(*(oct(os.stat(f'{os.environ[\"VAR_DIR\"]}/db.sqlite3{suffix}').st_mode & 0o777) "
            "for suffix in ('-wal', '-shm')))")
    opened = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "VAR_DIR": str(var), "SECRET_KEY": "k" * 50})
    assert opened.stdout.split() == ["0o600", "0o600"], opened.stderr


def test_a_key_another_process_wrote_first_is_the_key(tmp_path, monkeypatch):
    """Two commands started at once on a new VAR_DIR: the one that finds no key file, and then
    finds the other's written meanwhile, takes the other's key instead of failing (or of reading
    it half-written), and leaves no draft behind."""
    import config.settings as site_settings

    def made_while_the_other_wrote(length):
        (tmp_path / "secret_key").write_text("the other's key\n")
        return "mine"

    monkeypatch.setattr(site_settings, "VAR_DIR", tmp_path)
    monkeypatch.setattr(site_settings.secrets, "token_urlsafe", made_while_the_other_wrote)
    assert site_settings._local_secret_key() == "the other's key"
    assert [path.name for path in tmp_path.iterdir()] == ["secret_key"]
    assert site_settings._local_secret_key() == "the other's key"


def test_a_new_key_is_written_whole_and_private(tmp_path, monkeypatch):
    import config.settings as site_settings

    monkeypatch.setattr(site_settings, "VAR_DIR", tmp_path)
    key = site_settings._local_secret_key()
    assert len(key) > 50 and (tmp_path / "secret_key").read_text() == key
    assert [path.name for path in tmp_path.iterdir()] == ["secret_key"]
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_an_existing_world_readable_var_dir_and_database_are_closed_to_others(tmp_path):
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    var.chmod(0o755)
    for name in ("db.sqlite3", "db.sqlite3-wal"):
        (var / name).write_bytes(b"")
        (var / name).chmod(0o644)
    done = _manage(["check"], var)
    assert done.returncode == 0, done.stderr
    assert var.stat().st_mode & 0o007 == 0
    assert [(var / name).stat().st_mode & 0o777 for name in ("db.sqlite3", "db.sqlite3-wal")] == [0o640, 0o640]
    assert (var / "secret_key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("raw, problem", [
    ("fuel.example.org", "is not a site URL"), ("ftp://fuel.example.org", "is not a site URL"),
    ("https://fuel.example.org/sub/", "is not a site URL"), ("https://fuel.example.org:99999", "bad port"),
    ("https://user:pw@fuel.example.org", "is not a site URL"),
])
def test_the_site_url_is_a_scheme_and_a_host_only(monkeypatch, raw, problem):
    from config.env import envurl

    monkeypatch.setenv("SITE_URL", raw)
    with pytest.raises(ImproperlyConfigured, match=problem):
        envurl("SITE_URL", "http://127.0.0.1:8000")
    monkeypatch.setenv("SITE_URL", "HTTPS://Fuel.Example.org:8443/")
    assert envurl("SITE_URL", "") == "https://fuel.example.org:8443"


def test_a_shared_folder_named_for_the_state_or_the_database_keeps_its_mode(tmp_path):
    """/tmp as VAR_DIR, or a database in /tmp: the site never changes a folder everyone may write
    to, nor a folder of another account (it used to strip /tmp's permissions for others)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    foreign.chmod(0o755)
    import os

    os.chown(foreign, 65534, 65534)
    done = _manage(["check"], shared, DATABASE_URL=f"sqlite:///{shared / 'fresh.sqlite3'}")
    assert done.returncode == 0, done.stderr
    assert oct(shared.stat().st_mode & 0o7777) == "0o1777"
    assert oct((shared / "fresh.sqlite3").stat().st_mode & 0o777) == "0o600"
    done = _manage(["check"], foreign / "var", DATABASE_URL=f"sqlite:///{foreign / 'db.sqlite3'}")
    assert oct(foreign.stat().st_mode & 0o777) == "0o755"
