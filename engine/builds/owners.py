"""Owners of cgroups: which process made a build's cgroup, and whether it is still alive, told
apart in a way that holds across PID namespaces.

Every cgroup a scorer or a build launcher makes carries its owner's token in its name: a random
name of the process. The owner holds a lock on a file of that name in OWNERS for its whole life,
and the kernel lets go of it when the process ends, however it ends (SIGKILL included). A process
id would not do: it means nothing in another PID namespace, and it is reused.
"""

from __future__ import annotations

import fcntl
import os
import secrets
from pathlib import Path

# Where owners hold their locks: one folder for the machine, root's (every process that makes
# cgroups runs as root), shared by every PID namespace that shares this file system.
OWNERS = Path("/run/fuelboard-cgroup-owners")
TOKEN_CHARACTERS = 16


class _Owner:
    """This process as the owner of its cgroups: a token, and the lock that says it is alive."""

    token: str | None = None
    handle: int | None = None

    @classmethod
    def current(cls) -> str:
        """This process's token, its lock taken the first time (raises OSError if it cannot be)."""
        if cls.token is None:
            OWNERS.mkdir(mode=0o700, parents=True, exist_ok=True)
            token = secrets.token_hex(TOKEN_CHARACTERS // 2)
            # Locked under a name no sweeper looks at, then given its own: a sweeper never sees the
            # file of a live owner unlocked.
            making = OWNERS / f".{token}.new"
            handle = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.rename(making, OWNERS / f"{token}.lock")
            except OSError:
                os.close(handle)
                making.unlink(missing_ok=True)
                raise
            cls.token, cls.handle = token, handle
        return cls.token

    @classmethod
    def forget_in_child(cls) -> None:
        """A forked child is an owner of its own (if it makes cgroups); its copy of the parent's
        lock is closed (the parent still holds it)."""
        if cls.handle is not None:
            try:
                os.close(cls.handle)
            except OSError:
                pass
        cls.token = cls.handle = None


os.register_at_fork(after_in_child=_Owner.forget_in_child)


def owner_token() -> str:
    """The token in the names of this process's cgroups. Raises OSError where its lock cannot be made."""
    return _Owner.current()


def dead_owners_lock(token: str) -> int | None:
    """The lock of the owner `token`, taken (it is gone), or None: it is alive, or unknown here."""
    try:
        handle = os.open(OWNERS / f"{token}.lock", os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(handle)
        return None
    return handle


def forget(token: str, handle: int) -> None:
    """A dead owner's cgroups are all gone: its file goes too, then the lock taken on it."""
    (OWNERS / f"{token}.lock").unlink(missing_ok=True)
    os.close(handle)


def current_token() -> str | None:
    """This process's token, if it has made one (its own cgroups are never another's orphans)."""
    return _Owner.token
