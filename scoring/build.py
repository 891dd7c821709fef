"""Build a submission into a wasm module with the manifest's `[build]` commands.

A submitted folder is packed into a tar.gz archive when it is submitted (`pack_folder`); the
build unpacks that archive into a fresh temporary directory and builds there, so the submitted
folder is never modified and any machine holding the archive can build it. Each command runs
in its own process group with a clean environment and a timeout that kills the whole group;
the log keeps the tail of the output.
"""

from __future__ import annotations

import gzip
import io
import os
import signal
import subprocess
import tarfile
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    module: bytes | None
    log: str
    message: str  # why the build failed ("" when it succeeded)
    seconds: float


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


def build_environment(home: Path, path: str) -> dict[str, str]:
    """A clean environment: nothing of the scorer's own environment leaks into a build."""
    return {
        "PATH": path,
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "CARGO_HOME": str(home / "cargo"),
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TERM_COLOR": "never",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


def _run(command: str, *, cwd: Path, env: dict[str, str], timeout: float, log: _TailBuffer) -> tuple[int | None, bool]:
    """Run one shell command; (exit status, timed out). Output goes to `log`."""
    process = subprocess.Popen(
        ["/bin/sh", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    timed_out = threading.Event()

    def kill_group() -> None:
        timed_out.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill_group)
    timer.start()
    try:
        assert process.stdout is not None
        for chunk in iter(lambda: process.stdout.read1(65536), b""):
            log.write(chunk)
        status = process.wait()
    finally:
        timer.cancel()
        # Whatever the command left running in its group (a daemon, a stray compiler) goes too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return status, timed_out.is_set()


# Build products and version-control data are not part of a submission's source.
EXCLUDED_DIRECTORIES = {".git", "target"}


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


def build_submission(source: bytes, *, install: str, build: str, module_path: str, timeout: float,
                     log_limit: int, path: str) -> BuildResult:
    """Unpack, run `install` then `build`, load `module_path`. Never raises for a bad submission."""
    started = time.perf_counter()
    log = _TailBuffer(log_limit)

    def failed(message: str) -> BuildResult:
        log.write(f"\n{message}\n".encode())
        return BuildResult(False, None, log.text(), message, time.perf_counter() - started)

    with tempfile.TemporaryDirectory(prefix="build-") as temp:
        home = Path(temp) / "home"
        (home / "tmp").mkdir(parents=True)
        work = Path(temp) / "source"
        try:
            with tarfile.open(fileobj=io.BytesIO(source), mode="r:gz") as archive:
                # The "data" filter refuses absolute paths, `..`, links leaving the tree and
                # device files, and drops set-uid bits.
                archive.extractall(temp, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            return failed(f"the submission could not be unpacked: {exc}")
        if not work.is_dir():
            return failed("the submission archive holds no source folder")
        env = build_environment(home, path)
        for label, command in (("install", install), ("build", build)):
            if not command.strip():
                continue
            log.write(f"$ {command}\n".encode())
            status, timed_out = _run(command, cwd=work, env=env, timeout=timeout, log=log)
            if timed_out:
                return failed(f"{label} command timed out after {timeout:g} s")
            if status != 0:
                return failed(f"{label} command failed with exit status {status}")
        module = (work / module_path).resolve()
        if not (module == work.resolve() or work.resolve() in module.parents):
            return failed(f"module {module_path} points outside the build directory")
        if not module.is_file():
            return failed(f"the build did not produce the module {module_path}")
        try:
            data = module.read_bytes()
        except OSError as exc:
            return failed(f"module {module_path} could not be read: {exc.strerror}")
    log.write(f"built {module_path} ({len(data):,} bytes)\n".encode())
    return BuildResult(True, data, log.text(), "", time.perf_counter() - started)
