"""The build driver: runs inside the sandbox, as the build's account, under the system's python3.

It reads the submission's archive from a pipe and unpacks it into the build root (with the
project's archive reader, `lib.unpack`, handed to it as source text: the driver runs with
`python3 -I -S`, outside the project's environment, standard library only), so the hostile
archive is parsed only here, by the build's own account, inside its sandbox, its cgroup and its
tmpfs — never by the scorer or the launcher. Then it runs the `install` and `build` commands (each
under its own timeout, in its own process group, with none of the driver's pipes open), ends
every other process of the build and hands the module back.

The driver makes itself non-dumpable first: the build runs as the same uid, and a dumpable
driver could be read or written through `/proc/<pid>/mem`, ptrace or pidfd_getfd (its pipes
taken, its status forged). The outcome goes to the status pipe as "<step> <code>" and, for a
source that cannot be unpacked, the reason on the next line; the module goes to the module pipe,
only when it is a regular file reached without symbolic links.

The commands' output is read here, inside the build's cgroup (so a build that floods it pays
with its own share of the processors), and only its last LOG_LIMIT bytes are kept; they go to
the driver's own output once, at the end. What the host reads of a build is that tail, the
module and the status: bounded, whatever the build writes.

Environment: SOURCE_FD, SOURCE_LIMIT (the archive's largest size), UNPACKED_BYTES and
SOURCE_ENTRIES (what it may unpack to), BUILD_DIR, HOME, TMPDIR, INSTALL_COMMAND, BUILD_COMMAND,
MODULE_REAL (the module's normalised absolute path), MODULE_LIMIT (its largest size),
STEP_SECONDS, LOG_LIMIT, SANDBOXED, MODULE_FD, STATUS_FD.
"""

import ctypes
import os
import select
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from lib.cargoconfig import own_build_settings
from lib.tail import Tail
from lib.unpack import ArchiveError, ArchiveLimits, extract_tar_bytes

PR_SET_DUMPABLE = 4
GRACE_SECONDS = 5
LOG = Tail(int(os.environ.get("LOG_LIMIT", "65536")))


def flush_log() -> None:
    data = LOG.bytes()
    while data:
        data = data[os.write(1, data):]


def status(step: str, code: int, reason: str = "") -> None:
    flush_log()
    os.write(STATUS_FD, f"{step} {code}\n{reason}".encode("utf-8", "replace"))
    sys.exit(0)


def _read_until_done(process: subprocess.Popen, output: int, deadline: float) -> bool:
    """Keep the tail of what `process` writes until it ends (then only what is already written: a
    child it left behind may hold the pipe, and is not waited for). False if `deadline` passed first."""
    ended_at = None
    while True:
        now = time.monotonic()
        if ended_at is None and process.poll() is not None:
            ended_at = now
        if ended_at is None and now > deadline:
            return False
        ready, _, _ = select.select([output], [], [], 0 if ended_at else min(0.2, max(deadline - now, 0)))
        if ended_at is not None and (not ready or now - ended_at > 0.2):  # a left-behind child may write on
            return True
        if ready:
            chunk = os.read(output, 1 << 16)
            if not chunk:  # every writer is gone: the command has ended, or is about to
                try:
                    process.wait(timeout=max(deadline - time.monotonic(), 0.01))
                except subprocess.TimeoutExpired:
                    return False
                return True
            LOG.write(chunk)


def run_step(name: str, command: str) -> None:
    if not command:
        return
    LOG.write(f"$ {command}\n".encode())
    read_end, write_end = os.pipe()
    process = subprocess.Popen(["/bin/sh", "-c", command], stdin=subprocess.DEVNULL, stdout=write_end,
                               stderr=write_end, start_new_session=True)
    os.close(write_end)
    try:
        finished = _read_until_done(process, read_end, time.monotonic() + int(os.environ["STEP_SECONDS"]))
    finally:
        os.close(read_end)
    if not finished:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        status(name, 124)
    code = process.wait()
    reap()
    if code != 0:
        status(name, code if code > 0 else 128 - code)


def reap() -> None:
    """As the sandbox's pid 1, the driver inherits the build's orphans: collect the dead."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def read_source(limit: int) -> bytes:
    """The archive, whole, from its pipe: at most `limit` bytes (the host sends no more)."""
    chunks, size = [], 0
    while chunk := os.read(SOURCE_FD, 1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            status("unpack", 1, f"the archive is larger than {limit:,} bytes")
    os.close(SOURCE_FD)
    return b"".join(chunks)


def unpack(environ) -> None:
    """The archive's `source/` folder becomes the build root."""
    build = Path(environ["BUILD_DIR"])
    unpacked = build.parent / "unpacked"
    source = read_source(int(environ["SOURCE_LIMIT"]))
    limit = int(environ["UNPACKED_BYTES"])
    try:
        unpacked.mkdir()
        extract_tar_bytes(source, unpacked, ArchiveLimits(max_entries=int(environ["SOURCE_ENTRIES"]),
                                                          max_total_bytes=limit, max_file_bytes=limit),
                                                          allow_links=True)
    except ArchiveError as refused:
        status("unpack", 1, str(refused))
    except OSError as failed:  # the tmpfs is full, a file is over RLIMIT_FSIZE
        status("unpack", 1, f"{failed.strerror or failed}")
    folder = unpacked / "source"
    if folder.is_symlink() or not folder.is_dir():
        status("no_source", 1)
    refused = own_build_settings(folder)  # no cargo configuration of its own (lib/cargoconfig.py)
    if refused:
        status(refused, 1)
    folder.rename(build)


def send_module(path: str, limit: int) -> None:
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # missing, or (ELOOP) a link itself
        status("module_link" if os.path.islink(path) else "module", 1)
    # Nothing else runs any more: the path cannot change between these checks and the read.
    if os.path.realpath(path) != path:
        status("module_link", 1)
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode):
        status("module_type", 1)
    if info.st_size > limit:
        status("module_size", 1)
    os.set_blocking(handle, True)
    while chunk := os.read(handle, 1 << 16):
        view = memoryview(chunk)
        while view:
            view = view[os.write(MODULE_FD, view):]
    os.close(handle)


def main() -> None:
    environ = os.environ
    if environ["SANDBOXED"] == "1":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    for descriptor in (MODULE_FD, STATUS_FD, SOURCE_FD):
        os.set_inheritable(descriptor, False)
    os.makedirs(environ["HOME"], exist_ok=True)
    os.makedirs(environ["TMPDIR"], exist_ok=True)
    unpack(environ)
    os.chdir(environ["BUILD_DIR"])
    run_step("install", environ["INSTALL_COMMAND"])
    run_step("build", environ["BUILD_COMMAND"])
    if environ["SANDBOXED"] == "1":
        # In the sandbox's own PID namespace: every process but this one and bwrap's init.
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
    send_module(environ["MODULE_REAL"], int(environ["MODULE_LIMIT"]))
    status("ok", 0)


MODULE_FD, STATUS_FD, SOURCE_FD = (int(os.environ[name]) for name in ("MODULE_FD", "STATUS_FD", "SOURCE_FD"))

if __name__ == "__main__":
    main()
