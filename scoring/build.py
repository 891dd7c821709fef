"""Build a submission into a wasm module with the manifest's `[build]` commands.

A submitted folder is packed into a tar.gz archive when it is submitted (`pack_folder`). A build
unpacks it on the host within caps on entries and bytes written (`lib.unpack`), then runs a
small driver script that copies the source into a fresh build root, runs `install` then `build`
(each under its own timeout), and hands the module back through a pipe.

The driver runs inside bubblewrap, which is itself started with an empty environment (so nothing
of the scorer's environment is readable from `/proc` inside the sandbox), as an account of its
own (a uid per concurrent build slot, so one build's processes never count against another's
process limit), with no network, no capabilities and its own PID namespace. It sees `/usr` and
a few `/etc` files read-only, the source read-only, and exactly one writable place: a tmpfs of
`disk_bytes` holding the build root, `$HOME` and `/tmp` (`/` and `/dev` are read-only). The
module never touches the host's disk: when the build is done, every other process of the build
is killed, and the driver sends the module down a pipe only if it is a regular file reached
without symbolic links; the host reads at most `max_module_bytes` of it. Resource limits cap
CPU seconds, address space, file size and processes; the whole process group is killed on a
wall-clock timeout. Where the sandbox cannot start, builds are refused unless
`SCORING_ALLOW_UNSANDBOXED_BUILDS` is on (then the same driver runs directly, as the scorer,
with the same limits where the OS allows, and a warning is logged for every build).
"""

from __future__ import annotations

import fcntl
import functools
import gzip
import io
import logging
import os
import posixpath
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lib.unpack import ArchiveError, ArchiveLimits, extract_tar_bytes

logger = logging.getLogger(__name__)

# Build products and version-control data are not part of a submission's source.
EXCLUDED_DIRECTORIES = {".git", "target"}
BWRAP = "/usr/bin/bwrap"
# Host files a toolchain may need; everything else of the host stays invisible.
HOST_FILES = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
# The sandbox's one writable place (a size-capped tmpfs) and what lives in it.
SANDBOX_WORK = "/work"
SANDBOX_DIRECTORIES = {"BUILD_DIR": "/work/build", "HOME": "/work/home", "TMPDIR": "/work/tmp"}
STATUS_LIMIT = 256  # bytes of status line the host reads
PROBE_UID = 65534  # nobody: checking that a sandbox starts needs no slot of its own

# The driver (scoring/build_driver.py) runs under the system's python3, outside the project's
# environment: standard library only.
DRIVER = (Path(__file__).resolve().parent / "build_driver.py").read_text()
SYSTEM_PYTHON = "/usr/bin/python3"

# System calls a build has no use for and that would let it hold memory outside its caps
# (memfd, System V shared memory and message queues) or reach into another process of its own
# account (ptrace and friends): they fail with EPERM. Numbers per architecture.
DENIED_SYSCALLS = {
    "x86_64": {"memfd_create": 319, "memfd_secret": 447, "shmget": 29, "msgget": 68, "ptrace": 101,
               "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438},
    "aarch64": {"memfd_create": 279, "memfd_secret": 447, "shmget": 194, "msgget": 186, "ptrace": 117,
                "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438},
}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp program (as bwrap's --seccomp reads it), or None on an
    architecture this does not know (then builds run without it)."""
    import platform
    import struct

    machine = machine or platform.machine()
    if machine not in DENIED_SYSCALLS:
        return None
    load, jump_eq, jump_ge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny, kill = 0x7FFF0000, 0x00050000 | 1, 0x80000000  # EPERM; a foreign ABI is killed
    numbers = sorted(DENIED_SYSCALLS[machine].values())
    program = [(load, 0, 0, 4)]  # seccomp_data.arch
    # After the syscall checks: [allow, deny, kill].
    checks = len(numbers) + (1 if machine == "x86_64" else 0)
    program.append((jump_eq, 0, 1 + checks + 2, _AUDIT_ARCH[machine]))  # another ABI: kill
    program.append((load, 0, 0, 0))  # seccomp_data.nr
    if machine == "x86_64":  # the x32 ABI (nr | 0x40000000): denied outright
        program.append((jump_ge, checks, 0, 0x40000000))
    for index, number in enumerate(numbers):
        remaining = len(numbers) - index - 1
        program.append((jump_eq, remaining + 1, 0, number))
    program += [(ret, 0, 0, allow), (ret, 0, 0, deny), (ret, 0, 0, kill)]
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in program)


class SandboxUnavailable(RuntimeError):
    """Builds are sandboxed, and the sandbox cannot start on this machine."""


@dataclass(frozen=True)
class BuildLimits:
    timeout: float  # seconds per command (install, build)
    cpu_seconds: int = 900
    memory_bytes: int = 8 << 30  # address space per process (rustc reserves a lot of it)
    file_bytes: int = 512 << 20  # largest file a build may write
    processes: int = 512  # processes of the build's account
    disk_bytes: int = 2 << 30  # everything a build may write (one tmpfs in the sandbox)
    module_bytes: int = 64 << 20  # the largest module the host accepts from a build
    unpacked_bytes: int = 256 << 20  # what the source archive may unpack to
    source_entries: int = 20_000  # files and folders the source archive may hold


@dataclass(frozen=True)
class BuildAccounts:
    """Accounts for builds run by root: `slots` uids from `uid_base`, one per concurrent build.

    A build takes a free slot (a lock file in `lock_dir`, shared by every scorer on the machine)
    and runs as that uid, so RLIMIT_NPROC counts only its own processes.
    """

    uid_base: int = 2_000_000_000
    slots: int = 32
    lock_dir: Path = Path("/run/fuelboard-build-slots")


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    module: bytes | None
    log: str
    message: str  # why the build failed ("" when it succeeded); shown to everyone
    seconds: float
    sandboxed: bool = True
    detail: str = ""  # more about the failure, from the submission's own data: staff only


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


class SourceTooLarge(ValueError):
    pass


def _unpacked_size(folder: Path) -> int:
    """What the folder's files add up to (links not followed; build products left out)."""
    total = 0
    for directory, dirnames, filenames in os.walk(folder):
        dirnames[:] = [name for name in dirnames if name not in EXCLUDED_DIRECTORIES]
        for name in filenames:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                pass
    return total


def pack_folder(folder: Path, *, max_bytes: int, max_unpacked_bytes: int | None = None) -> bytes:
    """The folder as a tar.gz (symlinks kept as links), without build products or `.git`.

    With `max_unpacked_bytes`, a folder whose files add up to more is refused before anything
    is compressed (a sparse file of gigabytes packs small, and slowly).
    """
    folder = Path(folder)
    if max_unpacked_bytes is not None and (size := _unpacked_size(folder)) > max_unpacked_bytes:
        raise SourceTooLarge(f"the submission's files add up to {size:,} bytes, more than {max_unpacked_bytes:,}")
    buffer = io.BytesIO()

    def exclude(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        if any(part in EXCLUDED_DIRECTORIES for part in parts[1:]):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0  # the same folder packs to the same bytes
        return info

    # gzip.GzipFile with mtime=0: tarfile's own "w:gz" stamps the current time into the header.
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0) as compressed:
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive:
            archive.add(folder, arcname="source", filter=exclude, recursive=True)
            if buffer.tell() > max_bytes:
                raise SourceTooLarge(f"the submission is larger than {max_bytes:,} bytes packed")
    data = buffer.getvalue()
    if len(data) > max_bytes:
        raise SourceTooLarge(f"the submission is {len(data):,} bytes packed, more than {max_bytes:,}")
    return data


# --- accounts -------------------------------------------------------------------------------------


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


def _limit(limits: BuildLimits, account: tuple[int, int] | None):
    """preexec_fn: drop to the build's account and apply resource limits (in the child only)."""

    def apply() -> None:
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


# --- the sandbox ----------------------------------------------------------------------------------


def _bwrap_command(source: Path, limits: BuildLimits, env: dict[str, str], program: list[str],
                   seccomp_fd: int | None = None) -> list[str]:
    command = [
        # --as-pid-1: the driver itself is pid 1, so no process of bwrap's own, dumpable and
        # holding the driver's pipes, sits in the sandbox beside the build.
        BWRAP, "--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--clearenv",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
    ]
    for host_file in HOST_FILES:
        command += ["--ro-bind-try", host_file, host_file]
    command += [
        "--dev", "/dev", "--proc", "/proc",
        "--size", str(limits.disk_bytes), "--tmpfs", SANDBOX_WORK,
        "--symlink", SANDBOX_DIRECTORIES["TMPDIR"], "/tmp",
        "--ro-bind", str(source), "/source",
        # The tmpfs above is the only writable place: bwrap's own root and /dev are not.
        "--remount-ro", "/dev", "--remount-ro", "/",
        "--chdir", SANDBOX_WORK,
    ]
    if seccomp_fd is not None:
        command += ["--seccomp", str(seccomp_fd)]
    for name, value in env.items():
        command += ["--setenv", name, value]
    return command + program


@functools.lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """None if bubblewrap can start a sandbox here, else what went wrong (checked once)."""
    if shutil.which("bwrap") is None or not os.path.exists(BWRAP):
        return "bubblewrap (bwrap) is not installed"
    limits = BuildLimits(timeout=10)
    # The probe runs as an unprivileged account no build uses, so it can never disturb one.
    account = (PROBE_UID, PROBE_UID) if os.geteuid() == 0 else None
    with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as temp:
        source = Path(temp) / "source"
        source.mkdir()
        if account:
            for path in (Path(temp), source):
                os.chown(path, *account)
        probe = _bwrap_command(source, limits, {"PATH": "/usr/bin:/bin"}, ["/bin/sh", "-c", "touch /work/probe"])
        try:
            done = subprocess.run(probe, env={}, preexec_fn=_limit(limits, account), capture_output=True,
                                  text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bubblewrap could not start: {exc}"
        if done.returncode != 0:
            return f"bubblewrap could not start a sandbox: {done.stderr.strip() or done.returncode}"
    return None


# --- building -------------------------------------------------------------------------------------


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
        account_pool = build_account(accounts, wait_seconds=wall_seconds) if sandboxed else _unprivileged()
        with account_pool as account:
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
                command = _bwrap_command(work / "source", limits, env, [SYSTEM_PYTHON, "-I", "-S", "-c", DRIVER],
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
            collected = _run(command, env=run_env, cwd=work, preexec=_limit(limits, account),
                             wall_seconds=wall_seconds, log=log, module_limit=limits.module_bytes, pipes=pipes)
    status = collected.status
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


@contextmanager
def _unprivileged() -> Iterator[None]:
    yield None
