"""Build a submission into a wasm module with the manifest's `[build]` commands.

A submitted folder is packed into a tar.gz archive when it is submitted (`pack_folder`); a build
unpacks it on the host (Python's "data" filter: no absolute paths, `..`, device files or links
leaving the tree) and then runs a small driver script that copies the source into a fresh build
root, runs `install` then `build` (each under its own timeout), and copies the module out.

The driver runs inside bubblewrap: as an unprivileged user, with no network, no capabilities,
its own PID namespace, only `/usr` (read-only) and a few `/etc` files of the host visible, the
source read-only, a size-capped tmpfs as the build root, a clean environment, and resource
limits (CPU seconds, address space, file size, process count). The whole process group is
killed on a wall-clock timeout. Where the sandbox cannot start, builds are refused unless
`SCORING_ALLOW_UNSANDBOXED_BUILDS` is on (then the same driver runs directly, with the same
limits where the OS allows, and a warning is logged for every build).
"""

from __future__ import annotations

import functools
import gzip
import io
import logging
import os
import pwd
import resource
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

# Build products and version-control data are not part of a submission's source.
EXCLUDED_DIRECTORIES = {".git", "target"}
SANDBOX_USER = "nobody"
# Host files a toolchain may need; everything else of the host stays invisible.
HOST_FILES = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")

# Runs inside the build root. Each step's outcome goes to $OUT_DIR/status as "<step> <code>".
DRIVER = r"""
set -u
status() { echo "$1 $2" > "$OUT_DIR/status"; exit 0; }
cp -R "$SOURCE_DIR/." "$BUILD_DIR/" || status copy $?
cd "$BUILD_DIR" || status copy 1
step() {
    [ -n "$2" ] || return 0
    printf '$ %s\n' "$2"
    timeout --kill-after=5 "$STEP_SECONDS" /bin/sh -c "$2" < /dev/null
    code=$?
    [ "$code" -eq 0 ] || status "$1" "$code"
}
step install "$INSTALL_COMMAND"
step build "$BUILD_COMMAND"
[ -f "$MODULE_PATH" ] || status module 1
cp "$MODULE_PATH" "$OUT_DIR/module.wasm" || status module $?
status ok 0
"""


class SandboxUnavailable(RuntimeError):
    """Builds are sandboxed, and the sandbox cannot start on this machine."""


@dataclass(frozen=True)
class BuildLimits:
    timeout: float  # seconds per command (install, build)
    cpu_seconds: int = 900
    memory_bytes: int = 8 << 30  # address space per process (rustc reserves a lot of it)
    file_bytes: int = 512 << 20  # largest file a build may write
    processes: int = 512  # processes of the build user
    disk_bytes: int = 2 << 30  # the build root (a tmpfs in the sandbox)


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    module: bytes | None
    log: str
    message: str  # why the build failed ("" when it succeeded)
    seconds: float
    sandboxed: bool = True


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


def pack_folder(folder: Path, *, max_bytes: int) -> bytes:
    """The folder as a tar.gz (symlinks kept as links), without build products or `.git`."""
    folder = Path(folder)
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


# --- the sandbox ----------------------------------------------------------------------------------


def _sandbox_account() -> tuple[int, int] | None:
    """(uid, gid) to build as when running as root; None when already unprivileged."""
    if os.geteuid() != 0:
        return None
    account = pwd.getpwnam(SANDBOX_USER)
    return account.pw_uid, account.pw_gid


def _limit(limits: BuildLimits, account: tuple[int, int] | None):
    """preexec_fn: drop to the build user and apply resource limits (in the child only)."""

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


def _bwrap_command(work: Path, limits: BuildLimits, env: dict[str, str]) -> list[str]:
    command = [
        "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
    ]
    for host_file in HOST_FILES:
        command += ["--ro-bind-try", host_file, host_file]
    command += [
        "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        "--size", str(limits.disk_bytes), "--tmpfs", "/build",
        "--ro-bind", str(work / "source"), "/source",
        "--bind", str(work / "out"), "/out",
        "--chdir", "/build",
    ]
    for name, value in env.items():
        command += ["--setenv", name, value]
    return command + ["/bin/sh", "-c", DRIVER]


@functools.lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """None if bubblewrap can start a sandbox here, else what went wrong (checked once)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as temp:
        work = Path(temp)
        (work / "source").mkdir()
        (work / "out").mkdir()
        account = _sandbox_account()
        if account:
            for path in (work, work / "source", work / "out"):
                os.chown(path, *account)
        probe = _bwrap_command(work, BuildLimits(timeout=10), {"PATH": "/usr/bin:/bin"})
        probe[-1] = "true"
        try:
            done = subprocess.run(probe, preexec_fn=_limit(BuildLimits(timeout=10), account),
                                  capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bubblewrap could not start: {exc}"
        if done.returncode != 0:
            return f"bubblewrap could not start a sandbox: {done.stderr.strip() or done.returncode}"
    return None


# --- building -------------------------------------------------------------------------------------


def _run(command: list[str], *, env: dict[str, str] | None, cwd: Path, preexec, wall_seconds: float,
         log: _TailBuffer) -> bool:
    """Run the driver; False if the wall-clock guard had to kill it."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec,
    )
    killed = threading.Event()

    def kill_group() -> None:
        killed.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(wall_seconds, kill_group)
    timer.start()
    try:
        assert process.stdout is not None
        for chunk in iter(lambda: process.stdout.read1(65536), b""):
            log.write(chunk)
        process.wait()
    finally:
        timer.cancel()
        # Whatever the build left running in its group goes too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return not killed.is_set()


def _driver_env(path: str, build: str, install: str, module_path: str, limits: BuildLimits,
                directories: dict[str, str], home: str) -> dict[str, str]:
    return {
        "PATH": path,
        "HOME": home,
        "TMPDIR": "/tmp" if directories["BUILD_DIR"] == "/build" else home,
        "CARGO_HOME": f"{home}/.cargo",
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TERM_COLOR": "never",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "INSTALL_COMMAND": install,
        "BUILD_COMMAND": build,
        "MODULE_PATH": module_path,
        "STEP_SECONDS": str(max(1, int(limits.timeout))),
        **directories,
    }


def build_submission(source: bytes, *, install: str, build: str, module_path: str, limits: BuildLimits,
                     log_limit: int, path: str, allow_unsandboxed: bool = False) -> BuildResult:
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

    def failed(message: str) -> BuildResult:
        log.write(f"\n{message}\n".encode())
        return BuildResult(False, None, log.text(), message, time.perf_counter() - started, sandboxed)

    with tempfile.TemporaryDirectory(prefix="build-") as temp:
        work = Path(temp)
        try:
            with tarfile.open(fileobj=io.BytesIO(source), mode="r:gz") as archive:
                # The "data" filter refuses absolute paths, `..`, links leaving the tree and
                # device files, and drops set-uid bits.
                archive.extractall(work, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            return failed(f"the submission could not be unpacked: {exc}")
        if not (work / "source").is_dir():
            return failed("the submission archive holds no source folder")
        (work / "out").mkdir()
        account = _sandbox_account() if sandboxed else None
        if account:  # the build user must read the source (whatever its modes) and write out/
            for directory, _, files in os.walk(work):
                os.chown(directory, *account, follow_symlinks=False)
                for name in files:
                    os.chown(os.path.join(directory, name), *account, follow_symlinks=False)
        if sandboxed:
            env = _driver_env(path, build, install, module_path, limits,
                              {"SOURCE_DIR": "/source", "BUILD_DIR": "/build", "OUT_DIR": "/out"}, "/build")
            command, run_env, cwd = _bwrap_command(work, limits, env), None, work
        else:
            (work / "build").mkdir()
            env = _driver_env(path, build, install, module_path, limits,
                              {"SOURCE_DIR": str(work / "source"), "BUILD_DIR": str(work / "build"),
                               "OUT_DIR": str(work / "out")}, str(work / "build"))
            command, run_env, cwd = ["/bin/sh", "-c", DRIVER], env, work
        # Both steps' timeouts, plus a margin for copying: after that the whole group is killed.
        finished = _run(command, env=run_env, cwd=cwd, preexec=_limit(limits, account),
                        wall_seconds=2 * limits.timeout + 60, log=log)
        status_file = work / "out" / "status"
        status = status_file.read_text().split() if status_file.is_file() else []
        if not finished or not status:
            return failed(f"the build was stopped after {2 * limits.timeout + 60:g} s" if not finished
                          else "the build ended without reporting (killed by a resource limit?)")
        step, code = status[0], int(status[1]) if len(status) > 1 and status[1].isdigit() else 1
        if step in ("install", "build"):
            if code in (124, 137):  # timeout(1): timed out / killed after the grace period
                return failed(f"{step} command timed out after {max(1, int(limits.timeout))} s")
            return failed(f"{step} command failed with exit status {code}")
        if step == "copy":
            return failed("the submission could not be copied into the build root (is it too large?)")
        if step == "module" or not (work / "out" / "module.wasm").is_file():
            return failed(f"the build did not produce the module {module_path}")
        data = (work / "out" / "module.wasm").read_bytes()
    log.write(f"built {module_path} ({len(data):,} bytes)\n".encode())
    return BuildResult(True, data, log.text(), "", time.perf_counter() - started, sandboxed)
