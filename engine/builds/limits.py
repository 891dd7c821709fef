"""What bounds a build (BuildLimits), what it gives back (BuildResult), and the limits applied to its processes."""

from __future__ import annotations

import functools
import os
import resource
from dataclasses import dataclass, field


class SandboxUnavailable(RuntimeError):
    """Builds are sandboxed (and confined), and this machine cannot give a build that now."""


# How a build was held (BuildResult.confinement, stored with the entry): in the sandbox, as an
# account of its own, in a cgroup of its own; in the sandbox only (a development machine that
# allows it); or with no sandbox at all (one that allows even that).
CONFINED, UNCONFINED, UNSANDBOXED = "confined", "unconfined", "unsandboxed"


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
    cpus: float = 1.0  # processor time per second of the wall clock, all its processes together (its cgroup)
    wall_seconds: float | None = None  # the whole build, start to end (None: both steps' timeouts and a minute)

    @property
    def wall(self) -> float:
        """How long the whole build may take, whatever it does (works, sleeps, holds a pipe open)."""
        return self.wall_seconds if self.wall_seconds is not None else 2 * self.timeout + 60

    @property
    def step_seconds(self) -> int:
        """Each command's own timeout: never past the whole build's wall."""
        return max(1, int(min(self.timeout, self.wall)))


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    module: bytes | None
    log: str
    message: str  # why the build failed ("" when it succeeded); shown to everyone
    seconds: float
    sandboxed: bool = True
    detail: str = ""  # more about the failure, from the submission's own data: staff only
    confinement: str = CONFINED
    toolchain: dict = field(default_factory=dict)  # the compiler it ran with (engine.toolchain)


def limited(limits: BuildLimits, account: tuple[int, int] | None, cgroup=None):
    """preexec_fn: join the build's cgroup (while still root), drop to the build's account and
    apply resource limits (in the child only)."""

    def apply() -> None:
        if cgroup is not None:
            cgroup.enter()
        try:  # when memory runs out anyway, a build goes first: never its launcher or scorer
            with open("/proc/self/oom_score_adj", "w") as adjust:
                adjust.write("1000")
        except OSError:
            pass
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


def remembered_when_fine(check):
    """A check of this machine (`() -> problem or None`) asked once while it finds nothing wrong,
    and asked again each time while it does: a passing problem (a process limit reached for a
    moment, a launcher restarting) must not make a long-lived worker refuse every build after it."""
    fine = False

    @functools.wraps(check)
    def remembered():
        nonlocal fine
        if fine:
            return None
        problem = check()
        fine = problem is None
        return problem

    def cache_clear() -> None:
        nonlocal fine
        fine = False

    remembered.cache_clear = cache_clear
    return remembered
