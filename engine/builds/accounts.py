"""An account of its own for each concurrent build (when the scorer runs as root).

RLIMIT_NPROC counts a uid's processes machine-wide: with a uid per build slot, one build holding
every process it may cannot make another fail.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from engine.builds.limits import SandboxUnavailable
from engine.builds.owners import root_only_problem


@dataclass(frozen=True)
class BuildAccounts:
    """Accounts for builds run by root: `slots` uids from `uid_base`, one per concurrent build.

    A build takes a free slot (a lock file in `lock_dir`, shared by every scorer on the machine)
    and runs as that uid, so RLIMIT_NPROC counts only its own processes.
    """

    uid_base: int = 2_000_000_000
    slots: int = 32
    lock_dir: Path = Path("/run/fuelboard-build-slots")


def _process_uids() -> Iterator[tuple[int, int]]:
    """(pid, real uid) of every process on the machine this process may see."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as status:
                line = next(line for line in status if line.startswith(b"Uid:"))
            yield int(entry.name), int(line.split()[1])
        except (OSError, ValueError, StopIteration):
            continue  # gone already, or not ours to read


def _kill_processes_of(uid: int) -> None:
    """Anything still running as a slot's uid belongs to no live build: end it."""
    for pid, found in _process_uids():
        if found == uid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


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


# A build launcher's accounts: a block of BLOCK uids of its own, among the first BLOCKS free
# blocks above the root scorers' own.
BLOCK = 1024
BLOCKS = 64


class NoFreeBlock(Exception):
    """Every block of build uids a launcher may claim is taken (or their folder cannot be trusted)."""


def _uids_in_use(first: int, last: int) -> str | None:
    """Why the uids first…last are not free for builds (an account has one, a process runs as one), or None."""
    for account in pwd.getpwall():
        if first <= account.pw_uid <= last:
            return f"the account {account.pw_name} has uid {account.pw_uid}"
    for pid, uid in _process_uids():
        if first <= uid <= last:
            return f"process {pid} runs as uid {uid}"
    return None


def claim_block(range_dir: Path, slots: int, uid_base: int) -> tuple[int, BuildAccounts]:
    """A block of build uids of a launcher's own, for its life: (the lock's descriptor, its accounts).

    Blocks are the machine's uids in runs of BLOCK, numbered absolutely and locked by
    that number in `range_dir` (one folder for the machine), so launchers started with other
    `SCORING_BUILD_UID_BASE`s still never share a uid; the first block lies wholly above the uids a
    root scorer builds as (`uid_base` onwards, `slots` of them). A block some account or process
    already uses is passed over."""
    range_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    problem = root_only_problem(range_dir)
    if problem:
        raise NoFreeBlock(problem)
    first_block = (uid_base + slots + BLOCK - 1) // BLOCK
    passed_over = []
    for block in range(first_block, first_block + BLOCKS):
        first = block * BLOCK
        handle = os.open(range_dir / f"block-{block}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            continue
        used = _uids_in_use(first, first + BLOCK - 1)
        if used is not None:
            os.close(handle)
            passed_over.append(used)
            continue
        return handle, BuildAccounts(uid_base=first, slots=slots, lock_dir=range_dir / f"block-{block}")
    raise NoFreeBlock(f"no block of {BLOCK} build uids is free in {range_dir}: "
                        + ("; ".join(passed_over[:3]) or "every one is another launcher's"))
