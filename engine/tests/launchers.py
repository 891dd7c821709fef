"""Test processes that start build launchers, and the one test that makes the machine's folder of
build-account blocks unusable for a moment (to see a launcher that will not start be tried again):
a launcher started in that moment would refuse to start, so starting one takes a shared lock and
that test an exclusive one (tests/test_production_caps.py)."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from typing import Iterator

LOCK = "/run/fuelboard-test-launchers.lock"  # root's, like the folder it guards


@contextmanager
def starting_a_launcher() -> Iterator[None]:
    """Held while a launcher starts (until its socket answers)."""
    with _held(fcntl.LOCK_SH):
        yield


@contextmanager
def no_launcher_starting() -> Iterator[None]:
    """Held while the machine's folder of blocks is made unusable: no other launcher starts meanwhile."""
    with _held(fcntl.LOCK_EX):
        yield


@contextmanager
def _held(mode: int) -> Iterator[None]:
    try:
        handle = open(LOCK, "a")
    except PermissionError:  # not root: no launcher starts here, and no folder of root's is touched
        yield
        return
    with handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
