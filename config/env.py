"""Strict readers for settings that come from the environment.

A typo in a deployment's environment should stop the process at start-up with a message that
names the variable, not quietly fall back to a default.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def envstr(name: str, default: str) -> str:
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off")


def _envnumber(name: str, default, parse, what: str, minimum):
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not {what}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def envint(name: str, default: int, *, minimum: int | None = None) -> int:
    return _envnumber(name, default, int, "an integer", minimum)


def envfloat(name: str, default: float, *, minimum: float | None = None) -> float:
    return _envnumber(name, default, float, "a number", minimum)


def envurl(name: str, default: str) -> str:
    """A site's base URL: `http(s)://host[:port]`, with no path, query or fragment (returned
    without a trailing slash)."""
    raw = os.environ.get(name, default)
    parts = urlsplit(raw.strip())
    try:
        parts.port  # noqa: B018 (raises on a bad port)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} has a bad port") from None
    if (parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/")
            or parts.query or parts.fragment or parts.username or parts.password):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a site URL: use http(s)://host[:port], nothing after it")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(url: str, base_dir: Path) -> dict:
    """Turn a `DATABASE_URL` into a Django DATABASES entry.

    Supported: `sqlite:///relative/path.sqlite3`, `sqlite:////absolute/path.sqlite3`,
    `sqlite://:memory:`, and `postgres://user:password@host:port/name?option=value`
    (also `postgresql://`). Query parameters become connection OPTIONS.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        if parts.netloc == ":memory:" or parts.path in ("", "/:memory:"):
            name: str | Path = ":memory:"
        else:
            path = unquote(parts.path[1:]) if parts.path.startswith("/") else unquote(parts.path)
            name = Path(path) if Path(path).is_absolute() else base_dir / path
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": name,
            # Waiting on a lock beats failing with "database is locked" when the web process
            # and a scorer write at the same moment. Write-ahead logging: readers never wait for
            # a writer and a writer never waits for readers (a long read, such as refreshing
            # the standings, would otherwise stall every page behind the next commit).
            "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
            "CONN_MAX_AGE": 60,
        }
    if scheme in ("postgres", "postgresql", "pgsql"):
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ImproperlyConfigured(f"DATABASE_URL {scheme}://… names no database")
        host_and_port = parts.netloc.rpartition("@")[2]
        if host_and_port.startswith("["):  # an IPv6 literal
            host = parts.hostname or ""
        else:
            # Not `parts.hostname`: it lower-cases, which would break a socket directory path
            # given percent-encoded (postgres://user@%2Fvar%2Frun%2Fpostgresql/name).
            host = unquote(host_and_port.partition(":")[0])
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": host,
            "PORT": str(parts.port or ""),
            "OPTIONS": dict(parse_qsl(parts.query)),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    raise ImproperlyConfigured(
        f"DATABASE_URL scheme {parts.scheme!r} is not supported: use sqlite:///path or postgres://…"
    )
