"""Owners of cgroups: which process made a build's cgroup, and whether it is still alive, told
apart in a way that holds across PID namespaces.

Every cgroup a scorer or a build launcher makes carries its owner's token in its name: a random
name of the process. The owner holds a lock on a file of that name in OWNERS for its whole life,
and the kernel lets go of it when the process ends, however it ends (SIGKILL included). A process
id would not do: it means nothing in another PID namespace, and it is reused.

The file lists the folders the owner makes its cgroups in, one a line, written before the first
cgroup there: a sweeper in another cgroup (under cgroup v1, one per controller, each maybe
another) finds a dead owner's cgroups wherever they are, and forgets the owner only once they
are all gone.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import stat
import threading
from pathlib import Path

# Where owners hold their locks: one folder for the machine, root's (every process that makes
# cgroups runs as root), shared by every PID namespace that shares this file system.
OWNERS = Path("/run/fuelboard-cgroup-owners")
TOKEN_CHARACTERS = 16
MAX_RECORD_BYTES = 1 << 16  # what a sweeper reads of an owner's list of folders


class _Owner:
    """This process as the owner of its cgroups: a token, and the lock that says it is alive."""

    token: str | None = None
    handle: int | None = None
    recorded: set[str] = set()
    guard = threading.RLock()  # a launcher's handler threads make cgroups at once

    @classmethod
    def current(cls) -> str:
        """This process's token, its lock taken the first time (raises OSError if it cannot be)."""
        with cls.guard:
            return cls._current()

    @classmethod
    def _current(cls) -> str:
        if cls.token is None:
            OWNERS.mkdir(mode=0o700, parents=True, exist_ok=True)
            problem = root_only_problem(OWNERS)
            if problem:
                raise OSError(problem)
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
            cls.token, cls.handle, cls.recorded = token, handle, set()
        return cls.token

    @classmethod
    def record(cls, folders) -> None:
        """Add `folders` (where this owner is about to make cgroups) to its file, each once."""
        with cls.guard:
            cls._current()
            new = [str(folder) for folder in folders if str(folder) not in cls.recorded]
            if not new:
                return
            if any("\n" in folder or not folder.startswith("/") for folder in new):
                raise OSError(f"a cgroup folder that cannot be recorded: {new!r}")
            os.lseek(cls.handle, 0, os.SEEK_END)
            os.write(cls.handle, "".join(folder + "\n" for folder in new).encode())
            cls.recorded.update(new)

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
        cls.recorded = set()
        cls.guard = threading.RLock()  # another thread may have held the parent's at the fork


os.register_at_fork(after_in_child=_Owner.forget_in_child)


def owner_token() -> str:
    """The token in the names of this process's cgroups. Raises OSError where its lock cannot be made."""
    return _Owner.current()


def root_only_problem(folder: Path) -> str | None:
    """Why a folder of the machine's locks cannot be trusted (anyone but root may change what is in
    it: forge an owner's list of folders, remove a live owner's lock), or None."""
    found = os.lstat(folder)
    if not stat.S_ISDIR(found.st_mode):
        return f"{folder} is not a folder"
    if found.st_uid != 0 or found.st_mode & 0o022:
        return f"{folder} must be root's and writable by root alone (it is uid {found.st_uid}, mode " \
               f"{stat.S_IMODE(found.st_mode):o})"
    return None


def record_folders(folders) -> None:
    """Note in this process's owner file that it makes cgroups in `folders` (before it does)."""
    _Owner.record(folders)


def recorded_folders(handle: int) -> list[Path]:
    """The folders a (dead) owner's file names, as written: the caller checks each is a cgroup's."""
    os.lseek(handle, 0, os.SEEK_SET)
    text = os.read(handle, MAX_RECORD_BYTES).decode("utf-8", errors="replace")
    return [Path(line) for line in text.splitlines() if line.startswith("/")]


def known_tokens() -> list[str]:
    """Every owner OWNERS has a file for, alive or not."""
    try:
        names = [entry.name for entry in os.scandir(OWNERS) if entry.name.endswith(".lock")]
    except OSError:
        return []
    tokens = [name.removesuffix(".lock") for name in names]
    return sorted(token for token in tokens if len(token) == TOKEN_CHARACTERS and token.isalnum())


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
