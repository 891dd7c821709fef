"""The bubblewrap sandbox a build runs in: its mounts, its seccomp filter, and the check that it starts."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from scoring.build.limits import BuildLimits, limited

BWRAP = "/usr/bin/bwrap"


# Host files a toolchain may need; everything else of the host stays invisible.
HOST_FILES = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")


# The sandbox's one writable place (a size-capped tmpfs) and what lives in it.
SANDBOX_WORK = "/work"


SANDBOX_DIRECTORIES = {"BUILD_DIR": "/work/build", "HOME": "/work/home", "TMPDIR": "/work/tmp"}


PROBE_UID = 65534  # nobody: checking that a sandbox starts needs no slot of its own


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


def bwrap_command(source: Path, limits: BuildLimits, env: dict[str, str], program: list[str],
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
        probe = bwrap_command(source, limits, {"PATH": "/usr/bin:/bin"}, ["/bin/sh", "-c", "touch /work/probe"])
        try:
            done = subprocess.run(probe, env={}, preexec_fn=limited(limits, account), capture_output=True,
                                  text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bubblewrap could not start: {exc}"
        if done.returncode != 0:
            return f"bubblewrap could not start a sandbox: {done.stderr.strip() or done.returncode}"
    return None
