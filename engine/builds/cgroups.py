"""A cgroup of its own for each build: one memory, one process and one processor limit over all
its processes.

Per-process limits (address space, RLIMIT_NPROC, RLIMIT_CPU) multiply with the number of
processes, and the files a build writes into its tmpfs are memory too: only a cgroup bounds the
sum. Each build gets a fresh cgroup under the scorer's own (`fuelboard-build-<owner>-<n>`), with
`memory`, `pids` and `cpu` limits (the last a share of the processors over time: a build that
spins on every core of a worker host gets its share and no more); the build's first process
joins it before it runs anything (from `preexec_fn`, while it is still root), everything in it
is killed when the build is over, and the cgroup is removed.

cgroup v2 is used where the scorer's cgroup is writable and offers the three controllers;
otherwise cgroup v1's `memory`, `pids` and `cpu` hierarchies, where they are mounted and writable
(as root on most machines without systemd's unified layout). Where neither works,
`cgroup_problem()` says why, and builds are refused unless a development setting allows them
unconfined (engine/builds/run.py).

Owners: every cgroup's name carries its owner's token, a random name of the process that made it
(a scorer, a build launcher), and the owner holds a lock on a file of that name in OWNERS for its
whole life (the kernel lets go of it when the process ends, however it ends). So a launcher that
starts can tell a live owner's cgroups from a dead one's whatever PID namespace either runs in (a
process id means nothing across them, and is reused): it removes exactly the cgroups of owners
whose lock it can take, and never touches the others.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from engine.builds.limits import remembered_when_fine
from engine.builds.owners import (
    current_token,
    dead_owners_lock,
    forget,
    known_tokens,
    owner_token,
    record_folders,
    recorded_folders,
)

PREFIX = "fuelboard-build-"
CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_MICROSECONDS = 100_000
_counter = itertools.count()
logger = logging.getLogger(__name__)
@dataclass(frozen=True)
class Layout:
    """Where this process's cgroups are: one folder for v2, one per controller for v1."""

    version: int
    parents: dict[str, Path]  # controller ("memory", "pids", "cpu", or "unified") -> our cgroup's folder


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, filesystem type, options) of every cgroup mount (/proc/self/mountinfo)."""
    mounts = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return mounts
    for line in lines:
        fields = line.split()
        if " - " not in line:
            continue
        after = line.split(" - ", 1)[1].split()
        if len(after) >= 3 and after[0] in ("cgroup", "cgroup2"):
            options = set(after[2].split(",")) | set(fields[5].split(","))
            mounts.append((fields[4].replace("\\040", " "), after[0], options))
    return mounts


def _memberships() -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path (/proc/self/cgroup)."""
    memberships = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return memberships
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            memberships[controller] = path
    return memberships


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _v2_layout(mounts, memberships) -> Layout | str:
    mount = next((point for point, kind, _ in mounts if kind == "cgroup2"), None)
    if mount is None or "" not in memberships:
        return "no cgroup v2 hierarchy"
    parent = Path(mount) / memberships[""].lstrip("/")
    try:
        offered = set((parent / "cgroup.controllers").read_text().split())
    except OSError:
        return f"cgroup v2: {parent} cannot be read"
    if not set(CONTROLLERS) <= offered:
        return (f"cgroup v2: {parent} offers {', '.join(sorted(offered)) or 'no controllers'}, "
                f"not {', '.join(CONTROLLERS)}")
    if not _writable(parent):
        return f"cgroup v2: {parent} is not writable"
    try:
        enabled = set((parent / "cgroup.subtree_control").read_text().split())
        if not set(CONTROLLERS) <= enabled:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{name}" for name in CONTROLLERS))
    except OSError as exc:
        return f"cgroup v2: {', '.join(CONTROLLERS)} cannot be enabled below {parent} ({exc.strerror})"
    return Layout(2, {"unified": parent})


def _v1_layout(mounts, memberships) -> Layout | str:
    parents = {}
    for controller in CONTROLLERS:
        mount = next((point for point, kind, options in mounts if kind == "cgroup" and controller in options), None)
        if mount is None or controller not in memberships:
            return f"cgroup v1: no {controller} hierarchy"
        parent = Path(mount) / memberships[controller].lstrip("/")
        if not _writable(parent):
            return f"cgroup v1: {parent} is not writable"
        parents[controller] = parent
    return Layout(1, parents)


_found: Layout | None = None


def _find_layout() -> Layout | str:
    """Where builds' cgroups go, or why there is nowhere (found by making one)."""
    mounts, memberships = _mounts(), _memberships()
    problems = []
    for find in (_v2_layout, _v1_layout):
        found = find(mounts, memberships)
        if isinstance(found, Layout):
            try:
                with build_cgroup(64 << 20, 8, 1.0, found) as probe:
                    probe.remove()
            except OSError as exc:
                problems.append(f"cgroup v{found.version}: a cgroup cannot be made ({exc.strerror or exc})")
                continue
            return found
        problems.append(found)
    return "; ".join(problems)


def layout() -> Layout | str:
    """Where builds' cgroups go (found once), or why there is nowhere (looked for again at each ask)."""
    global _found
    if _found is not None:
        return _found
    found = _find_layout()
    if isinstance(found, Layout):
        _found = found
    return found


@remembered_when_fine
def cgroup_problem() -> str | None:
    """None when each build gets a cgroup of its own, else why not."""
    found = layout()
    return None if isinstance(found, Layout) else found


class BuildCgroup:
    """One build's cgroup (a folder per controller on v1, one folder on v2)."""

    def __init__(self, folders: list[Path], version: int):
        self.folders = folders
        self.version = version

    def enter(self) -> None:
        """Move the calling process in (from preexec_fn: plain system calls only)."""
        pid = str(os.getpid()).encode()
        for folder in self.folders:
            handle = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(handle, pid)
            finally:
                os.close(handle)

    def _pids(self) -> set[int]:
        pids = set()
        for folder in self.folders:
            try:
                pids |= {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return pids

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the build for the memory limit."""
        folder = self.folders[0]
        try:
            if self.version == 2:
                events = dict(line.split() for line in (folder / "memory.events").read_text().splitlines())
                return int(events.get("oom_kill", 0)) > 0
            control = dict(line.split() for line in (folder / "memory.oom_control").read_text().splitlines())
            return int(control.get("oom_kill", 0)) > 0
        except (OSError, ValueError):
            return False

    def peak_memory(self) -> int | None:
        """The most memory the build's processes held at once (files in its tmpfs included)."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((self.folders[0] / name).read_text())
        except (OSError, ValueError):
            return None

    def throttled_seconds(self) -> float | None:
        """How long its processes waited because the build had used its share of the processors."""
        for folder in self.folders:
            try:
                stats = dict(line.split() for line in (folder / "cpu.stat").read_text().splitlines())
            except (OSError, ValueError):
                continue
            if "throttled_usec" in stats:
                return int(stats["throttled_usec"]) / 1e6
            if "throttled_time" in stats:
                return int(stats["throttled_time"]) / 1e9
        return None

    def remove(self, wait_seconds: float = 10.0) -> None:
        """Kill whatever is left in it, then remove it."""
        if self.version == 2 and (self.folders[0] / "cgroup.kill").exists():
            try:
                (self.folders[0] / "cgroup.kill").write_text("1")
            except OSError:
                pass
        deadline = time.monotonic() + wait_seconds
        while True:
            pids = self._pids()
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            remaining = [folder for folder in self.folders if folder.exists()]
            for folder in remaining:
                try:
                    folder.rmdir()
                except FileNotFoundError:
                    pass
                except OSError:  # EBUSY until the killed processes are gone
                    if time.monotonic() > deadline:
                        raise
            if not any(folder.exists() for folder in self.folders):
                return
            time.sleep(0.02)


def remove_orphans() -> list[str]:
    """Remove the cgroups of owners that are gone (killed before they could remove them), in any
    PID namespace and any cgroup: those whose owner's lock can be taken, looked for in every folder
    its file names as well as in this process's own. Their processes are killed first. An owner is
    forgotten (its file removed) only once all its cgroups are gone; the cgroups of live owners,
    and of owners this machine's OWNERS folder does not know, are left alone. Returns the names
    removed."""
    found = layout()
    if not isinstance(found, Layout):
        return []
    mounts = [Path(point) for point, _, _ in _mounts()]
    removed = []
    for token in known_tokens():
        if token == current_token():
            continue
        lock = dead_owners_lock(token)
        if lock is None:
            continue
        try:
            parents = set(found.parents.values()) | {folder for folder in recorded_folders(lock)
                                                     if _a_cgroup_folder(folder, mounts)}
            groups: dict[str, list[Path]] = {}
            for parent in sorted(parents):
                for folder in parent.glob(f"{PREFIX}{token}-*"):
                    groups.setdefault(folder.name, []).append(folder)
            for name, folders in sorted(groups.items()):
                _remove_tree(folders, found.version)
                removed.append(name)
        except OSError as error:
            logger.warning("could not remove the cgroups of a scorer that is gone (%s): %s", token, error)
            os.close(lock)  # its file stays: the next launcher tries again
            continue
        forget(token, lock)
    return removed


def _a_cgroup_folder(folder: Path, mounts: list[Path]) -> bool:
    """Whether `folder` (read from an owner's file) is a real folder inside one of this process's
    cgroup mounts, named without `..` or links: only there are cgroups looked for."""
    if not folder.is_absolute() or ".." in folder.parts or not any(folder.is_relative_to(mount) for mount in mounts):
        return False
    try:
        return folder.resolve(strict=True) == folder and folder.is_dir()
    except OSError:
        return False


def remove_with_children(group: BuildCgroup) -> None:
    """`group` and every cgroup below it (the cgroup over all of a launcher's builds, at its end)."""
    _remove_tree(group.folders, group.version)


def _remove_tree(folders: list[Path], version: int) -> None:
    """A cgroup and every cgroup below it (deepest first), each with whatever is left in it."""
    for name in sorted({child.name for folder in folders if folder.exists() for child in folder.iterdir()
                        if child.is_dir()}):
        _remove_tree([folder / name for folder in folders if (folder / name).is_dir()], version)
    BuildCgroup(folders, version).remove()


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _make(where: Layout, name: str, memory_bytes: int, processes: int, cpus: float) -> BuildCgroup:
    """A new cgroup `name` under `where`, with these limits (`cpus`: processors' worth of time per
    second). Raises OSError, leaving nothing behind, when one cannot be made."""
    # Each controller's folder once (v1 may mount two controllers as one hierarchy).
    folders = list(dict.fromkeys(parent / name for parent in where.parents.values()))
    record_folders(dict.fromkeys(where.parents.values()))  # where a sweeper looks, if this process dies
    quota = max(1000, round(cpus * CPU_PERIOD_MICROSECONDS))
    group = BuildCgroup(folders, where.version)
    try:
        for folder in folders:
            folder.mkdir(mode=0o755)
        if where.version == 2:  # socket buffers count in memory.max
            _write(folders[0] / "memory.max", str(memory_bytes))
            if (folders[0] / "memory.swap.max").exists():
                _write(folders[0] / "memory.swap.max", "0")
            _write(folders[0] / "pids.max", str(processes))
            _write(folders[0] / "cpu.max", f"{quota} {CPU_PERIOD_MICROSECONDS}")
        else:
            memory, pids, cpu = (where.parents[controller] / name for controller in CONTROLLERS)
            _write(memory / "memory.limit_in_bytes", str(memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():
                _write(memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
            # v1 counts a socket's buffers apart, on top of the memory cap (loopback TCP could
            # queue the machine's whole TCP memory otherwise): a small cap of their own.
            if (memory / "memory.kmem.tcp.limit_in_bytes").exists():
                _write(memory / "memory.kmem.tcp.limit_in_bytes", str(tcp_bytes(memory_bytes)))
            _write(pids / "pids.max", str(processes))
            _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_MICROSECONDS))
            _write(cpu / "cpu.cfs_quota_us", str(quota))
    except OSError:
        group.remove()
        raise
    return group


@contextmanager
def build_cgroup(memory_bytes: int, processes: int, cpus: float, where: Layout | None = None) -> Iterator[BuildCgroup]:
    """A new cgroup with these limits (`cpus`: processors' worth of time per second), removed (with
    anything left in it) when the block ends. Raises OSError when one cannot be made."""
    where = where or layout()
    if not isinstance(where, Layout):
        raise OSError(where)
    group = _make(where, f"{PREFIX}{owner_token()}-{next(_counter)}", memory_bytes, processes, cpus)
    try:
        yield group
    finally:
        group.remove()


def tcp_bytes(memory_bytes: int) -> int:
    """v1's separate cap on a cgroup's socket buffers: a quarter of its memory, at most 64 MiB."""
    return min(64 << 20, max(memory_bytes // 4, 1 << 20))


def confine_all_builds(memory_bytes: int, processes: int, cpus: float) -> tuple[Layout, BuildCgroup]:
    """A cgroup over every build of this process (the build launcher), with these limits: where
    the builds' own cgroups go, so their sum is bounded by its limits. The process itself stays
    outside it: builds filling it can make the kernel kill a build, never the launcher. Returns
    (where the builds' cgroups go, the cgroup itself: `remove()` it when done). Raises OSError."""
    where = layout()
    if not isinstance(where, Layout):
        raise OSError(where)
    group = _make(where, f"{PREFIX}{owner_token()}-all-{next(_counter)}", memory_bytes, processes, cpus)
    inside = Layout(where.version, {controller: parent / group.folders[0].name
                                    for controller, parent in where.parents.items()})
    if where.version == 2:  # no process of its own: the controllers pass on to the builds
        try:
            (group.folders[0] / "cgroup.subtree_control").write_text(" ".join(f"+{name}" for name in CONTROLLERS))
        except OSError:
            group.remove()
            raise
    return inside, group
