"""An account of its own for each concurrent build (when the scorer runs as root).

RLIMIT_NPROC counts a uid's processes machine-wide: with a uid per build slot, one build holding
every process it may cannot make another fail.
"""

from __future__ import annotations

import fcntl
import os
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from engine.builds.limits import SandboxUnavailable


@dataclass(frozen=True)
class BuildAccounts:
    """Accounts for builds run by root: `slots` uids from `uid_base`, one per concurrent build.

    A build takes a free slot (a lock file in `lock_dir`, shared by every scorer on the machine)
    and runs as that uid, so RLIMIT_NPROC counts only its own processes.
    """

    uid_base: int = 2_000_000_000
    slots: int = 32
    lock_dir: Path = Path("/run/fuelboard-build-slots")


def _kill_processes_of(uid: int) -> None:
    """Anything still running as a slot's uid belongs to no live build: end it."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            os.kill(int(entry.name), signal.SIGKILL)
                        break
        except (OSError, ValueError):
            continue  # gone already, or not ours to read


@contextmanager
def build_account(accounts: BuildAccounts, *, wait_seconds: float) -> Iterator[tuple[int, int] | None]:
    """(uid, gid) of a free build slot, held until the block ends; None when not root.

    Waits up to `wait_seconds` for a slot when all are busy.
    """
    if os.geteuid() != 0:
        yield None
        return
    accounts.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_seconds
    while True:
        for slot in range(accounts.slots):
            handle = os.open(accounts.lock_dir / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            uid = accounts.uid_base + slot
            try:
                _kill_processes_of(uid)
                yield uid, uid
            finally:
                _kill_processes_of(uid)
                os.close(handle)  # releases the lock
            return
        if time.monotonic() > deadline:
            raise SandboxUnavailable(f"all {accounts.slots} build slots stayed busy for {wait_seconds:g} s")
        time.sleep(0.2)


@contextmanager
def unprivileged() -> Iterator[None]:
    yield None
