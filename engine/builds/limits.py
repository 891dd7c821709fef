"""What bounds a build (BuildLimits), what it gives back (BuildResult), and the limits applied to its processes."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass


class SandboxUnavailable(RuntimeError):
    """Builds are sandboxed, and the sandbox cannot start on this machine."""


@dataclass(frozen=True)
class BuildLimits:
    timeout: float  # seconds per command (install, build)
    cpu_seconds: int = 900
    memory_bytes: int = 8 << 30  # address space per process (rustc reserves a lot of it)
    file_bytes: int = 512 << 20  # largest file a build may write
    processes: int = 512  # processes of the build's account, and of its cgroup
    total_memory_bytes: int = 4 << 30  # all its processes and the files in its tmpfs together (its cgroup)
    disk_bytes: int = 2 << 30  # everything a build may write (one tmpfs in the sandbox)
    module_bytes: int = 64 << 20  # the largest module the host accepts from a build
    unpacked_bytes: int = 256 << 20  # what the source archive may unpack to
    source_entries: int = 20_000  # files and folders the source archive may hold


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    module: bytes | None
    log: str
    message: str  # why the build failed ("" when it succeeded); shown to everyone
    seconds: float
    sandboxed: bool = True
    detail: str = ""  # more about the failure, from the submission's own data: staff only


def limited(limits: BuildLimits, account: tuple[int, int] | None, cgroup=None):
    """preexec_fn: join the build's cgroup (while still root), drop to the build's account and
    apply resource limits (in the child only)."""

    def apply() -> None:
        if cgroup is not None:
            cgroup.enter()
        if account is not None:
            os.setgroups([])
            os.setgid(account[1])
            os.setuid(account[0])
        for kind, value in (
            (resource.RLIMIT_CPU, limits.cpu_seconds),
            (resource.RLIMIT_AS, limits.memory_bytes),
            (resource.RLIMIT_FSIZE, limits.file_bytes),
            (resource.RLIMIT_NPROC, limits.processes),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(kind, (value, value))

    return apply
