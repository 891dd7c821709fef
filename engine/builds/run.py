"""Running a build: unpack within caps, start the driver in the sandbox, collect its log, status and module."""

from __future__ import annotations

import logging
import os
import posixpath
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lib.unpack import ArchiveError, ArchiveLimits, extract_tar_bytes
from engine.builds.accounts import BuildAccounts, build_account, unprivileged
from engine.builds.cgroups import BuildCgroup, build_cgroup, cgroup_problem
from engine.builds.bwrap import SANDBOX_DIRECTORIES, bwrap_command, sandbox_problem
from engine.builds.limits import BuildLimits, BuildResult, SandboxUnavailable, limited
from engine.builds.seccomp import seccomp_filter

logger = logging.getLogger(__name__)


STATUS_LIMIT = 256  # bytes of status line the host reads


# The driver (engine/builds/driver.py) runs under the system's python3, outside the project's
# environment: standard library only.
DRIVER = (Path(__file__).resolve().parent / "driver.py").read_text()


SYSTEM_PYTHON = "/usr/bin/python3"


class _TailBuffer:
    """Keeps the last `limit` bytes written to it, and how many were dropped."""

    def __init__(self, limit: int):
        self.limit = limit
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.dropped = 0

    def write(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.size - len(self.chunks[0]) >= self.limit:
            removed = self.chunks.popleft()
            self.size -= len(removed)
            self.dropped += len(removed)

    def text(self) -> str:
        data = b"".join(self.chunks)
        if len(data) > self.limit:
            self.dropped += len(data) - self.limit
            data = data[-self.limit:]
        text = data.decode("utf-8", errors="replace")
        if self.dropped:
            return f"[… {self.dropped:,} earlier bytes of output omitted …]\n{text}"
        return text


@dataclass
class _Collected:
    finished: bool  # False if the wall-clock guard had to kill the build
    module: bytes
    module_too_large: bool
    status: list[str]


class _Pipes:
    """The two pipes a driver reports through (the module's bytes, its status line), and the
    one bwrap reads the seccomp program from."""

    def __init__(self, seccomp: bytes | None = None):
        self.module_read, self.module_write = os.pipe()
        self.status_read, self.status_write = os.pipe()
        self.seccomp_read = None
        if seccomp is not None:
            self.seccomp_read, seccomp_write = os.pipe()
            os.write(seccomp_write, seccomp)  # a few hundred bytes: the pipe holds them
            os.close(seccomp_write)

    @property
    def env(self) -> dict[str, str]:
        return {"MODULE_FD": str(self.module_write), "STATUS_FD": str(self.status_write)}

    @property
    def passed(self) -> tuple[int, ...]:
        extra = (self.seccomp_read,) if self.seccomp_read is not None else ()
        return (self.module_write, self.status_write, *extra)

    def close_write_ends(self) -> None:
        for descriptor in self.passed:
            os.close(descriptor)


def _run(command: list[str], *, env: dict[str, str], cwd: Path, preexec, wall_seconds: float,
         log: _TailBuffer, module_limit: int, pipes: _Pipes) -> _Collected:
    """Run the driver, collecting its output (the log's tail), the module and the status line.

    `env` is the whole environment of the process started: nothing of this one's is inherited.
    """
    module_read, status_read = pipes.module_read, pipes.status_read
    try:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec,
            pass_fds=pipes.passed,
        )
    finally:
        pipes.close_write_ends()
    killed = threading.Event()

    def kill_group() -> None:
        killed.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(wall_seconds, kill_group)
    timer.start()
    module, status = bytearray(), bytearray()
    too_large = False
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout.fileno(), selectors.EVENT_READ, "log")
    selector.register(module_read, selectors.EVENT_READ, "module")
    selector.register(status_read, selectors.EVENT_READ, "status")
    try:
        while selector.get_map():
            for key, _ in selector.select(timeout=1.0):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.data == "log":
                    log.write(chunk)
                elif key.data == "module":
                    # Past the cap the rest is drained and dropped, never kept.
                    if len(module) + len(chunk) > module_limit:
                        too_large = True
                    if not too_large:
                        module += chunk
                elif len(status) < STATUS_LIMIT:
                    status += chunk[: STATUS_LIMIT - len(status)]
        process.wait()
    finally:
        timer.cancel()
        selector.close()
        os.close(module_read)
        os.close(status_read)
        process.stdout.close()
        # Whatever the build left running in its group goes too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
    return _Collected(not killed.is_set(), bytes(module) if not too_large else b"", too_large,
                      status.decode("ascii", "replace").split())


def _driver_env(path: str, build: str, install: str, module_path: str, limits: BuildLimits,
                directories: dict[str, str], sandboxed: bool) -> dict[str, str]:
    home = directories["HOME"]
    return {
        "PATH": path,
        "CARGO_HOME": f"{home}/.cargo",
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TERM_COLOR": "never",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "INSTALL_COMMAND": install,
        "BUILD_COMMAND": build,
        # Where the module must be, with no `.`, `..` or doubled slashes: resolving it must give
        # exactly this, or some part of the path is a link.
        "MODULE_REAL": posixpath.normpath(posixpath.join(directories["BUILD_DIR"], module_path)),
        "MODULE_LIMIT": str(limits.module_bytes),
        "STEP_SECONDS": str(max(1, int(limits.timeout))),
        "SANDBOXED": "1" if sandboxed else "0",
        **directories,
    }


@contextmanager
def _own_cgroup(limits: BuildLimits) -> Iterator[BuildCgroup | None]:
    """The build's own cgroup, or None where none can be made (cgroups.cgroup_problem() says why;
    a system check warns of it at start-up)."""
    if cgroup_problem() is not None:
        yield None
        return
    with build_cgroup(limits.total_memory_bytes, limits.processes) as cgroup:
        yield cgroup


_STEP_MESSAGES = {
    "copy": "the submission could not be copied into the build root (is it too large?)",
    "module": "the build did not produce the module {module}",
    "module_link": "the module {module} is a symbolic link or lies under one; a build must produce a regular file",
    "module_type": "the module {module} is not a regular file",
    "module_size": "the module {module} is larger than the {limit:,}-byte limit",
}


def build_submission(source: bytes, *, install: str, build: str, module_path: str, limits: BuildLimits,
                     log_limit: int, path: str, allow_unsandboxed: bool = False,
                     accounts: BuildAccounts = BuildAccounts()) -> BuildResult:
    """Unpack, run `install` then `build`, take out `module_path`.

    Never raises for a bad submission (that is a failed BuildResult); raises SandboxUnavailable
    when the sandbox cannot start and unsandboxed builds are not allowed.
    """
    started = time.perf_counter()
    log = _TailBuffer(log_limit)
    problem = sandbox_problem()
    sandboxed = problem is None
    if not sandboxed:
        if not allow_unsandboxed:
            raise SandboxUnavailable(
                f"{problem}; refusing to build untrusted code without it "
                "(SCORING_ALLOW_UNSANDBOXED_BUILDS=1 builds anyway, on a machine you can afford to lose)"
            )
        logger.warning("building WITHOUT a sandbox (%s): the submission's code runs with this process's rights", problem)

    def failed(message: str, detail: str = "") -> BuildResult:
        log.write(f"\n{detail or message}\n".encode())
        return BuildResult(False, None, log.text(), message, time.perf_counter() - started, sandboxed, detail)

    wall_seconds = 2 * limits.timeout + 60  # both steps' timeouts, plus a margin for copying
    with tempfile.TemporaryDirectory(prefix="build-") as temp:
        work = Path(temp)
        try:
            extract_tar_bytes(source, work, ArchiveLimits(
                max_entries=limits.source_entries, max_total_bytes=limits.unpacked_bytes,
                max_file_bytes=limits.unpacked_bytes,
            ), allow_links=True)
        except ArchiveError as exc:
            # The reason can quote the submission's own file names: staff see it, the public not.
            return failed("the submission could not be unpacked", f"the submission could not be unpacked: {exc}")
        if not (work / "source").is_dir() or (work / "source").is_symlink():
            return failed("the submission archive holds no source folder")
        account_pool = build_account(accounts, wait_seconds=wall_seconds) if sandboxed else unprivileged()
        with account_pool as account, _own_cgroup(limits) as cgroup:
            if account:  # the build's account must read the source, whatever its modes
                for directory, _, files in os.walk(work):
                    os.chown(directory, *account, follow_symlinks=False)
                    for name in files:
                        os.chown(os.path.join(directory, name), *account, follow_symlinks=False)
            pipes = _Pipes(seccomp_filter() if sandboxed else None)
            if sandboxed:
                env = _driver_env(path, build, install, module_path, limits,
                                  {"SOURCE_DIR": "/source", **SANDBOX_DIRECTORIES, **pipes.env}, sandboxed=True)
                # bwrap itself starts with an empty environment; the driver's comes by --setenv.
                command = bwrap_command(work / "source", limits, env, [SYSTEM_PYTHON, "-I", "-S", "-c", DRIVER],
                                         pipes.seccomp_read)
                run_env: dict[str, str] = {}
            else:
                directories = {"SOURCE_DIR": str(work / "source"), "BUILD_DIR": str(work / "sandbox" / "build"),
                               "HOME": str(work / "sandbox" / "home"), "TMPDIR": str(work / "sandbox" / "tmp")}
                (work / "sandbox" / "build").mkdir(parents=True)
                run_env = _driver_env(path, build, install, module_path, limits, {**directories, **pipes.env},
                                      sandboxed=False)
                python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
                command = [python, "-I", "-S", "-c", DRIVER]
            collected = _run(command, env=run_env, cwd=work, preexec=limited(limits, account, cgroup),
                             wall_seconds=wall_seconds, log=log, module_limit=limits.module_bytes, pipes=pipes)
            out_of_memory = cgroup is not None and cgroup.out_of_memory()
            peak = cgroup.peak_memory() if cgroup is not None else None
    if peak is not None:
        log.write(f"memory at its peak: {peak:,} bytes of {limits.total_memory_bytes:,}\n".encode())
    status = collected.status
    if out_of_memory and status[:1] != ["ok"]:
        return failed(f"the build ran out of memory: its processes and files may hold {limits.total_memory_bytes:,} "
                      "bytes together")
    if not collected.finished:
        return failed(f"the build was stopped after {wall_seconds:g} s")
    if not status:
        return failed("the build ended without reporting (killed by a resource limit?)")
    step, code = status[0], int(status[1]) if len(status) > 1 and status[1].isdigit() else 1
    if step in ("install", "build"):
        if code in (124, 137):  # timeout(1): timed out / killed after the grace period
            return failed(f"{step} command timed out after {max(1, int(limits.timeout))} s")
        return failed(f"{step} command failed with exit status {code}")
    if step in _STEP_MESSAGES:
        return failed(_STEP_MESSAGES[step].format(module=module_path, limit=limits.module_bytes))
    if collected.module_too_large:
        return failed(f"the module {module_path} is larger than the {limits.module_bytes:,}-byte limit")
    if step != "ok":
        return failed("the build ended without reporting (killed by a resource limit?)")
    log.write(f"built {module_path} ({len(collected.module):,} bytes)\n".encode())
    return BuildResult(True, collected.module, log.text(), "", time.perf_counter() - started, sandboxed)
