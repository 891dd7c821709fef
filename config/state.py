"""The site's local state on disk (VAR_DIR, the SQLite files): private to the account that runs it.

The SQLite database holds held-out answers, sessions and password hashes, so neither it nor the
folder it lives in may be readable by other local accounts. VAR_DIR is made 0700 whatever else
needs it (before this, it was only made when the secret key file was, and `migrate` with
DJANGO_SECRET_KEY set and a new VAR_DIR failed), an existing one loses any access for others,
and the database file is made 0600 before SQLite first opens it: SQLite gives its write-ahead
log and shared-memory files the database's own mode, so those follow. A deployment may give a
service group access (`make serve` gives nginx's group the right to pass through VAR_DIR to
gunicorn's socket); what it never keeps is access for everyone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")


def _private(path: Path) -> None:
    """Take away every permission of "others" from an existing path of this account's own.

    Never a path another account owns, a link, or a folder everyone may write to (a shared
    folder such as /tmp, named as VAR_DIR or holding the database: its mode is not the site's
    to change)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    mode = info.st_mode
    if stat.S_ISLNK(mode) or info.st_uid != os.geteuid() or (stat.S_ISDIR(mode) and mode & 0o002):
        return
    if mode & 0o007:
        os.chmod(path, stat.S_IMODE(mode) & ~0o007)


def private_folder(folder: Path) -> Path:
    """`folder` (and any missing parent) made 0700, or an existing one of this account's own closed
    to others."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _private(folder)
    return folder


def private_sqlite(name) -> None:
    """The SQLite database file created 0600 if missing (a missing folder made 0700; an existing
    one is left as it is), and it and its companions of this account's closed to others."""
    if str(name) == ":memory:" or str(name).startswith("file:"):
        return
    path = Path(name)
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        except FileExistsError:
            pass
    for suffix in SQLITE_COMPANIONS:
        _private(Path(f"{path}{suffix}"))
