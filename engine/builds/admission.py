"""Who the build launcher handles now, and how much of their requests it holds at once.

Connections handled at once: a slot's worth of builds, and as many more waiting or asking for the
status; past that a connection is closed at once (no thread, no memory). Only the site's account
(and root) may connect, as the kernel's peer credentials say. One process may hold PER_ASKER of
the connections (each must also send its header within the launcher's header deadline), so an
asker that opens many and trickles bytes cannot hold them all; processes outside the launcher's
PID namespace, which the kernel names pid 0 here, are told apart by nothing and fall under the
cap on all connections alone.

Sources held in memory at once (received, waiting for a slot, being built): a slot's worth and
one more at their cap. A request that would pass it is answered "try again" (Busy) before its
source is read, so connections at the cap cannot fill the machine's memory.
"""

from __future__ import annotations

import logging
import socket
import struct
import threading

PER_ASKER = 2  # connections one process may have handled at once (a worker needs one)
logger = logging.getLogger("engine.builds.launcher")


class Busy(Exception):
    """The launcher cannot take this request's source now (another asker may, later)."""


def peer(connection: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end, as the kernel knows it."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)


class Admission:
    def __init__(self, client_uid: int, slots: int, source_bytes: int):
        self.client_uid = client_uid
        self.handlers = threading.BoundedSemaphore(slots * 2 + 4)
        self.askers: dict[int, int] = {}  # peer pid -> connections being handled
        self.payload_budget = (slots + 1) * source_bytes
        self.payload_held = 0
        self.guard = threading.Lock()

    def admitted(self, connection: socket.socket) -> int | None:
        """The asker's pid, its connection counted, if it may be handled now; else None (close it at once)."""
        try:
            pid, uid, _ = peer(connection)
        except OSError:
            return None
        if uid not in (0, self.client_uid):
            logger.warning("refused a connection from uid %s", uid)
            return None
        with self.guard:
            if (pid and self.askers.get(pid, 0) >= PER_ASKER) or not self.handlers.acquire(blocking=False):
                return None
            self.askers[pid] = self.askers.get(pid, 0) + 1
        return pid

    def done(self, pid: int) -> None:
        """The connection of `pid` admitted earlier is over."""
        with self.guard:
            self.askers[pid] -= 1
            if not self.askers[pid]:
                del self.askers[pid]
            self.handlers.release()

    def hold_payload(self, size: int, held: list[int]) -> None:
        """Count `size` bytes against the budget of sources held at once (into `held`), or raise Busy."""
        with self.guard:
            if self.payload_held + size > self.payload_budget:
                raise Busy(f"it holds as many sources as it may ({self.payload_held:,} bytes); try again")
            self.payload_held += size
            held.append(size)

    def release_payload(self, held: list[int]) -> None:
        with self.guard:
            self.payload_held -= sum(held)
