"""The bubblewrap sandbox a build runs in: its mounts, its seccomp filter, and the check that it starts."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile

from engine.builds.limits import BuildLimits, limited, remembered_when_fine
from engine.builds.seccomp import seccomp_filter

BWRAP = "/usr/bin/bwrap"


# Host files a toolchain may need; everything else of the host stays invisible.
HOST_FILES = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")


DEVICES = ("null", "zero", "full", "random", "urandom")
DEVICE_BINDS = tuple(argument for device in DEVICES for argument in ("--dev-bind", f"/dev/{device}",
                                                                     f"/dev/{device}")) + (
    "--symlink", "/proc/self/fd", "/dev/fd", "--symlink", "/proc/self/fd/0", "/dev/stdin",
    "--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink", "/proc/self/fd/2", "/dev/stderr",
)


# The sandbox's one writable place (a size-capped tmpfs) and what lives in it.
SANDBOX_WORK = "/work"


SANDBOX_DIRECTORIES = {"BUILD_DIR": "/work/build", "HOME": "/work/home", "TMPDIR": "/work/tmp"}


PROBE_UID = 65534  # nobody: checking that a sandbox starts needs no slot of its own


@functools.lru_cache(maxsize=1)
def userns_options() -> tuple[str, ...]:
    """`--disable-userns` where the installed bwrap has it (0.8 and later): the build can make
    no user namespace of its own, in which it could mount a tmpfs past its disk cap. The seccomp
    filter refuses the same calls, on any bwrap."""
    try:
        usage = subprocess.run([BWRAP, "--help"], capture_output=True, text=True, timeout=10, env={}).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return ("--disable-userns",) if "--disable-userns" in usage else ()


def bwrap_command(limits: BuildLimits, env: dict[str, str], program: list[str],
                   seccomp_fd: int | None = None) -> list[str]:
    """The sandbox for `program`: nothing of the host's but `/usr` and a few `/etc` files, read-only;
    one size-capped tmpfs to write in. The source comes in through a pipe, never from the host's disk."""
    command = [
        # --as-pid-1: the driver itself is pid 1, so no process of bwrap's own, dumpable and
        # holding the driver's pipes, sits in the sandbox beside the build.
        BWRAP, "--unshare-all", "--unshare-user", *userns_options(),
        "--as-pid-1", "--die-with-parent", "--new-session", "--clearenv",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
    ]
    for host_file in HOST_FILES:
        command += ["--ro-bind-try", host_file, host_file]
    command += [
        # A /dev of its own with only what a compiler uses: no /dev/ptmx (a pty's buffers are
        # kernel memory no cgroup counts, and the host's pty pool is shared) and no /dev/shm.
        "--tmpfs", "/dev", *DEVICE_BINDS, "--proc", "/proc",
        "--size", str(limits.disk_bytes), "--tmpfs", SANDBOX_WORK,
        "--symlink", SANDBOX_DIRECTORIES["TMPDIR"], "/tmp",
        # The tmpfs above is the only writable place: bwrap's own root and /dev are not.
        "--remount-ro", "/dev", "--remount-ro", "/",
        "--chdir", SANDBOX_WORK,
    ]
    if seccomp_fd is not None:
        command += ["--seccomp", str(seccomp_fd)]
    for name, value in env.items():
        command += ["--setenv", name, value]
    return command + program


@remembered_when_fine
def sandbox_problem() -> str | None:
    """None if bubblewrap can start a sandbox here, else what went wrong (a success is remembered,
    a failure is looked at again next time)."""
    if shutil.which("bwrap") is None or not os.path.exists(BWRAP):
        return "bubblewrap (bwrap) is not installed"
    limits = BuildLimits(timeout=10)
    # The probe runs as an unprivileged account no build uses, so it can never disturb one.
    account = (PROBE_UID, PROBE_UID) if os.geteuid() == 0 else None
    with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as temp:
        if account:
            os.chown(temp, *account)
        # With the build's own seccomp filter: a kernel that refuses it fails here, not per build.
        program = seccomp_filter()
        seccomp_read = None
        if program is not None:
            seccomp_read, seccomp_write = os.pipe()
            os.write(seccomp_write, program)
            os.close(seccomp_write)
        probe = bwrap_command(limits, {"PATH": "/usr/bin:/bin"}, ["/bin/sh", "-c", "touch /work/probe"], seccomp_read)
        try:
            done = subprocess.run(probe, cwd=temp, env={}, preexec_fn=limited(limits, account), capture_output=True,
                                  text=True, timeout=30, pass_fds=() if seccomp_read is None else (seccomp_read,))
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bubblewrap could not start: {exc}"
        finally:
            if seccomp_read is not None:
                os.close(seccomp_read)
        if done.returncode != 0:
            return f"bubblewrap could not start a sandbox: {done.stderr.strip() or done.returncode}"
    return None
