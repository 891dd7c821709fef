"""The build driver: runs inside the sandbox, as the build's account, under the system's python3.

It copies the source into the build root, runs the `install` and `build` commands (each under
its own timeout, in its own process group, with none of the driver's pipes open), then ends
every other process of the build and hands the module back. Standard library only: it runs
with `python3 -I -S`, not in the project's environment.

The driver makes itself non-dumpable first: the build runs as the same uid, and a dumpable
driver could be read or written through `/proc/<pid>/mem`, ptrace or pidfd_getfd (its pipes
taken, its status forged). The outcome goes to the status pipe as "<step> <code>"; the module
to the module pipe, only when it is a regular file reached without symbolic links.

Environment: SOURCE_DIR, BUILD_DIR, HOME, TMPDIR, INSTALL_COMMAND, BUILD_COMMAND, MODULE_REAL
(the module's normalised absolute path), MODULE_LIMIT (its largest size), STEP_SECONDS,
SANDBOXED, MODULE_FD, STATUS_FD.
"""

import ctypes
import os
import shutil
import signal
import stat
import subprocess
import sys

PR_SET_DUMPABLE = 4
GRACE_SECONDS = 5


def status(step: str, code: int) -> None:
    os.write(STATUS_FD, f"{step} {code}\n".encode())
    sys.exit(0)


def run_step(name: str, command: str) -> None:
    if not command:
        return
    print(f"$ {command}", flush=True)
    process = subprocess.Popen(["/bin/sh", "-c", command], stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        code = process.wait(timeout=int(os.environ["STEP_SECONDS"]))
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        status(name, 124)
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
    for descriptor in (MODULE_FD, STATUS_FD):
        os.set_inheritable(descriptor, False)
    try:
        os.makedirs(environ["HOME"], exist_ok=True)
        os.makedirs(environ["TMPDIR"], exist_ok=True)
        shutil.copytree(environ["SOURCE_DIR"], environ["BUILD_DIR"], symlinks=True, dirs_exist_ok=True)
        os.chdir(environ["BUILD_DIR"])
    except (OSError, shutil.Error):
        status("copy", 1)
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


MODULE_FD, STATUS_FD = int(os.environ["MODULE_FD"]), int(os.environ["STATUS_FD"])

if __name__ == "__main__":
    main()
