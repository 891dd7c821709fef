"""Running a build: start the driver in the sandbox (it unpacks the source itself), collect its
log, status and module."""

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
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from engine.builds.accounts import BuildAccounts, build_account, unprivileged
from engine.builds.bwrap import SANDBOX_DIRECTORIES, bwrap_command, sandbox_problem
from engine.builds.cgroups import BuildCgroup, Layout, build_cgroup, cgroup_problem
from engine.builds.limits import (
    CONFINED,
    UNCONFINED,
    UNSANDBOXED,
    BuildLimits,
    BuildResult,
    SandboxUnavailable,
    limited,
)
from engine.builds.seccomp import seccomp_filter
from engine.toolchain import PINNED_TOOLCHAIN, installed, toolchain_reason
from lib.cargoconfig import REFUSED as REFUSED_SETTINGS
from lib.tail import Tail

logger = logging.getLogger(__name__)


LOG_MARGIN = 2048  # bytes of a log kept for the host's own lines
STATUS_LIMIT = 1024  # bytes of status the host reads: "<step> <code>", and a reason for an unpacking


ROOT = Path(__file__).resolve().parents[2]
# The project's modules a driver runs with (name, path under ROOT).
DRIVER_MODULES = (("lib.errors", "lib/errors.py"), ("lib.unpack", "lib/unpack.py"), ("lib.tail", "lib/tail.py"),
                  ("lib.cargoconfig", "lib/cargoconfig.py"))


def _driver_program() -> str:
    """The driver (engine/builds/driver.py) runs under the system's python3, outside the project's
    environment: the modules it takes from the project (the archive reader, standard library only)
    come with it as source text, registered before its own code runs."""
    modules = {name: (ROOT / path).read_text() for name, path in DRIVER_MODULES}
    bootstrap = (
        "import sys as _sys, types as _types\n"
        "_package = _types.ModuleType('lib'); _package.__path__ = []; _sys.modules['lib'] = _package\n"
        f"for _name, _text in {modules!r}.items():\n"
        "    _module = _types.ModuleType(_name); _sys.modules[_name] = _module\n"
        "    exec(compile(_text, _name.replace('.', '/') + '.py', 'exec'), _module.__dict__)\n"
        "    setattr(_package, _name.rpartition('.')[2], _module)\n"
        "del _sys, _types, _package, _name, _text, _module\n"
    )
    return bootstrap + (Path(__file__).resolve().parent / "driver.py").read_text()


DRIVER = _driver_program()


SYSTEM_PYTHON = "/usr/bin/python3"


def confinement_problem() -> str | None:
    """None when a build run by this process gets an account and a cgroup of its own (it runs as
    root, and cgroups can be made here), else why not."""
    if os.geteuid() != 0:
        return ("this process does not run as root, so a build cannot run as an account of its own "
                "(ask a build launcher: SCORING_BUILD_LAUNCHER)")
    problem = cgroup_problem()
    return None if problem is None else f"no cgroup can be made for a build: {problem}"


@dataclass
class _Collected:
    finished: bool  # False if the wall-clock guard had to kill the build
    cancelled: bool  # True if whoever asked for it went away (the build was killed)
    module: bytes
    module_too_large: bool
    status: list[str]  # "<step>", "<code>"
    reason: str  # why the source could not be unpacked (the submission's own names: staff only)


class _Pipes:
    """The pipes a driver works through: the source it reads, the module's bytes and its status it
    writes, and the one bwrap reads the seccomp program from. Every descriptor is closed once, by
    `close_passed()` (the driver's ends, once it has started) and `close()` (all that remain), even
    when making them or starting the driver fails."""

    def __init__(self, seccomp: bytes | None = None):
        self.open: set[int] = set()
        try:
            self.source_read, self.source_write = self._pipe()
            self.module_read, self.module_write = self._pipe()
            self.status_read, self.status_write = self._pipe()
            self.seccomp_read = None
            if seccomp is not None:
                self.seccomp_read, seccomp_write = self._pipe()
                os.write(seccomp_write, seccomp)  # a few hundred bytes: the pipe holds them
                self.close_one(seccomp_write)
        except BaseException:
            self.close()
            raise

    def _pipe(self) -> tuple[int, int]:
        read, write = os.pipe()
        self.open |= {read, write}
        return read, write

    def close_one(self, descriptor: int) -> None:
        if descriptor in self.open:
            self.open.discard(descriptor)
            os.close(descriptor)

    @property
    def env(self) -> dict[str, str]:
        return {"MODULE_FD": str(self.module_write), "STATUS_FD": str(self.status_write),
                "SOURCE_FD": str(self.source_read)}

    @property
    def passed(self) -> tuple[int, ...]:
        """The ends the driver (or bwrap) keeps; this process closes them once it has started."""
        extra = (self.seccomp_read,) if self.seccomp_read is not None else ()
        return (self.module_write, self.status_write, self.source_read, *extra)

    def close_passed(self) -> None:
        for descriptor in self.passed:
            self.close_one(descriptor)

    def close(self) -> None:
        for descriptor in list(self.open):
            self.close_one(descriptor)


def _feed(pipes: _Pipes, data: bytes) -> None:
    """Write the source into the driver's pipe, then close it (a driver that died early is no error here)."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(pipes.source_write, view[:1 << 16]):]
    except OSError:
        pass
    finally:
        pipes.close_one(pipes.source_write)


def _run(command: list[str], *, env: dict[str, str], cwd: Path, preexec, wall_seconds: float,
         log: Tail, module_limit: int, pipes: _Pipes, source: bytes, cancel: int | None) -> _Collected:
    """Run the driver, feeding it the source and collecting its output (the log's tail), the module
    and the status. `cancel`: a descriptor that turns readable (data, or the end of a connection)
    when the build is no longer wanted; it is then killed at once.

    `env` is the whole environment of the process started: nothing of this one's is inherited.
    """
    module_read, status_read = pipes.module_read, pipes.status_read
    try:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec,
            pass_fds=pipes.passed,
        )
    except BaseException:
        pipes.close()
        raise
    pipes.close_passed()
    killed, cancelled = threading.Event(), False

    def kill_group() -> None:
        killed.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    feeder = threading.Thread(target=_feed, args=(pipes, source), daemon=True)
    timer = threading.Timer(wall_seconds, kill_group)
    timer.daemon = True  # a process ending (a launcher stopped) never waits for a build's guard
    module, status = bytearray(), bytearray()
    too_large = False
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    try:
        feeder.start()  # inside: a thread that cannot start still ends the driver and closes every pipe
        timer.start()
        selector.register(process.stdout.fileno(), selectors.EVENT_READ, "log")
        selector.register(module_read, selectors.EVENT_READ, "module")
        selector.register(status_read, selectors.EVENT_READ, "status")
        if cancel is not None:
            selector.register(cancel, selectors.EVENT_READ, "cancel")
        while any(key.data != "cancel" for key in selector.get_map().values()):
            for key, _ in selector.select(timeout=1.0):
                if key.data == "cancel":
                    cancelled = True
                    selector.unregister(key.fd)
                    kill_group()
                    continue
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
        process.stdout.close()
        # Whatever the build left running in its group goes too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        if feeder.ident is not None:
            feeder.join()
        pipes.close()
    line, _, reason = status.decode("utf-8", "replace").partition("\n")
    return _Collected(not killed.is_set() or cancelled, cancelled, bytes(module) if not too_large else b"", too_large,
                      line.split(), reason.strip())


def _driver_env(path: str, build: str, install: str, module_path: str, limits: BuildLimits, source_size: int,
                log_limit: int, directories: dict[str, str], sandboxed: bool) -> dict[str, str]:
    home = directories["HOME"]
    return {
        "PATH": path,
        "CARGO_HOME": f"{home}/.cargo",
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TERM_COLOR": "never",
        **PINNED_TOOLCHAIN,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "INSTALL_COMMAND": install,
        "BUILD_COMMAND": build,
        # Where the module must be, with no `.`, `..` or doubled slashes: resolving it must give
        # exactly this, or some part of the path is a link.
        "MODULE_REAL": posixpath.normpath(posixpath.join(directories["BUILD_DIR"], module_path)),
        "MODULE_LIMIT": str(limits.module_bytes),
        "SOURCE_LIMIT": str(source_size),
        "UNPACKED_BYTES": str(limits.unpacked_bytes),
        "SOURCE_ENTRIES": str(limits.source_entries),
        "STEP_SECONDS": str(limits.step_seconds),
        # Room left for the lines the host adds (a line on what was omitted, the memory's peak…).
        "LOG_LIMIT": str(max(log_limit - LOG_MARGIN, log_limit // 2)),
        "SANDBOXED": "1" if sandboxed else "0",
        **directories,
    }


@contextmanager
def _own_cgroup(limits: BuildLimits, wanted: bool, where: Layout | None) -> Iterator[BuildCgroup | None]:
    """The build's own cgroup (under `where`, by default this process's own), or None where none is
    wanted or none can be made (then the build is unconfined, which `build_submission` refuses
    unless allowed)."""
    if not wanted or cgroup_problem() is not None:
        yield None
        return
    with build_cgroup(limits.total_memory_bytes, limits.processes, limits.cpus, where) as cgroup:
        yield cgroup


_STEP_MESSAGES = {
    "no_source": "the submission archive holds no source folder",
    "module": "the build did not produce the module {module}",
    "module_link": "the module {module} is a symbolic link or lies under one; a build must produce a regular file",
    "module_type": "the module {module} is not a regular file",
    "module_size": "the module {module} is larger than the {limit:,}-byte limit",
    **REFUSED_SETTINGS,
}


def _confinement(allow_unsandboxed: bool, allow_unconfined: bool) -> str:
    """How this build will be held; raises SandboxUnavailable where that is less than the settings allow."""
    problem = sandbox_problem()
    if problem is not None:
        if not allow_unsandboxed:
            raise SandboxUnavailable(
                f"{problem}; refusing to build untrusted code without it "
                "(SCORING_ALLOW_UNSANDBOXED_BUILDS=1 builds anyway, on a machine you can afford to lose)"
            )
        logger.warning("building WITHOUT a sandbox (%s): the submission's code runs with this process's rights",
                       problem)
        return UNSANDBOXED
    problem = confinement_problem()
    if problem is None:
        return CONFINED
    if not (allow_unconfined or allow_unsandboxed):
        raise SandboxUnavailable(
            f"{problem}; refusing to build untrusted code without an account and a cgroup of its own "
            "(start the build launcher, or SCORING_ALLOW_UNCONFINED_BUILDS=1 on a development machine)"
        )
    logger.warning("building in the sandbox but without an account and a cgroup of its own (%s)", problem)
    return UNCONFINED


def build_submission(source: bytes, *, install: str, build: str, module_path: str, limits: BuildLimits,
                     log_limit: int, path: str, allow_unsandboxed: bool = False, allow_unconfined: bool = False,
                     accounts: BuildAccounts = BuildAccounts(), cancel: int | None = None,
                     cgroup_parent: Layout | None = None) -> BuildResult:
    """Run `install` then `build` on the packed `source`, take out `module_path`.

    Never raises for a bad submission (that is a failed BuildResult); raises SandboxUnavailable
    when the build cannot be held as the settings require: in the sandbox, as an account of its
    own, in a cgroup of its own (unless `allow_unconfined`, or `allow_unsandboxed` for no
    sandbox at all). `cancel`: see `_run`. `cgroup_parent`: where the build's cgroup goes (the
    launcher's cgroup over all its builds; by default, this process's own).
    """
    started = time.perf_counter()
    log = Tail(log_limit)
    confinement = _confinement(allow_unsandboxed, allow_unconfined)
    sandboxed, confined = confinement != UNSANDBOXED, confinement == CONFINED

    def failed(message: str, detail: str = "") -> BuildResult:
        log.write(f"\n{detail or message}\n".encode())
        return BuildResult(False, None, log.text(), message, time.perf_counter() - started, sandboxed, detail,
                           confinement, installed().as_dict())

    wall_seconds = limits.wall
    with tempfile.TemporaryDirectory(prefix="build-") as temp:
        work = Path(temp)
        account_pool = build_account(accounts, wait_seconds=wall_seconds) if confined else unprivileged()
        with account_pool as account, _own_cgroup(limits, confined, cgroup_parent) as cgroup:
            if confined and (account is None or cgroup is None):  # root, or a cgroup, went away meanwhile
                raise SandboxUnavailable(confinement_problem() or "no account or cgroup could be had for a build")
            if account:  # the build's account starts in (and may write) its folder, nothing else of the host
                os.chown(work, *account)
            pipes = _Pipes(seccomp_filter() if sandboxed else None)
            if sandboxed:
                env = _driver_env(path, build, install, module_path, limits, len(source), log_limit,
                                  {**SANDBOX_DIRECTORIES, **pipes.env}, sandboxed=True)
                # bwrap itself starts with an empty environment; the driver's comes by --setenv.
                command = bwrap_command(limits, env, [SYSTEM_PYTHON, "-I", "-S", "-c", DRIVER], pipes.seccomp_read)
                run_env: dict[str, str] = {}
            else:
                directories = {"BUILD_DIR": str(work / "sandbox" / "build"), "HOME": str(work / "sandbox" / "home"),
                               "TMPDIR": str(work / "sandbox" / "tmp")}
                (work / "sandbox").mkdir()
                run_env = _driver_env(path, build, install, module_path, limits, len(source), log_limit,
                                      {**directories, **pipes.env}, sandboxed=False)
                python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
                command = [python, "-I", "-S", "-c", DRIVER]
            collected = _run(command, env=run_env, cwd=work, preexec=limited(limits, account, cgroup),
                             wall_seconds=wall_seconds, log=log, module_limit=limits.module_bytes, pipes=pipes,
                             source=source, cancel=cancel)
            out_of_memory = cgroup is not None and cgroup.out_of_memory()
            peak = cgroup.peak_memory() if cgroup is not None else None
            throttled = cgroup.throttled_seconds() if cgroup is not None else None
    if peak is not None:
        log.write(f"memory at its peak: {peak:,} bytes of {limits.total_memory_bytes:,}\n".encode())
    if throttled:
        log.write(f"held back {throttled:.1f} s by its share of the processors ({limits.cpus:g})\n".encode())
    status = collected.status
    if collected.cancelled:
        return failed("the build was stopped: it was no longer wanted")
    if out_of_memory and status[:1] != ["ok"]:
        return failed(f"the build ran out of memory: its processes and files may hold {limits.total_memory_bytes:,} "
                      "bytes together")
    if not collected.finished:
        return failed(f"the build was stopped after {wall_seconds:g} s")
    if not status:
        return failed("the build ended without reporting (killed by a resource limit?)")
    step, code = status[0], int(status[1]) if len(status) > 1 and status[1].isdigit() else 1
    if step == "unpack":
        # The reason can quote the submission's own file names: staff see it, the public not.
        return failed("the submission could not be unpacked",
                      f"the submission could not be unpacked: {collected.reason}")
    if step in ("install", "build"):
        if code in (124, 137):  # timeout(1): timed out / killed after the grace period
            return failed(f"{step} command timed out after {limits.step_seconds} s")
        reason = toolchain_reason(log.text())
        return failed(f"{step} command failed with exit status {code}" + (f": {reason}" if reason else ""))
    if step in _STEP_MESSAGES:
        return failed(_STEP_MESSAGES[step].format(module=module_path, limit=limits.module_bytes))
    if collected.module_too_large:
        return failed(f"the module {module_path} is larger than the {limits.module_bytes:,}-byte limit")
    if step != "ok":
        return failed("the build ended without reporting (killed by a resource limit?)")
    log.write(f"built {module_path} ({len(collected.module):,} bytes)\n".encode())
    return BuildResult(True, collected.module, log.text(), "", time.perf_counter() - started, sandboxed,
                       confinement=confinement, toolchain=installed().as_dict())
