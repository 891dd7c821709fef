"""The seccomp filter of a build: a classic-BPF program, as bwrap's `--seccomp FD` reads it.

A build has no use for these calls, and each would let it leave a cap:

- memfd, System V shared memory and message queues hold memory outside the tmpfs and the
  cgroup's accounting of files;
- ptrace, `process_vm_*` and `pidfd_getfd` reach into another process of the build's account
  (the driver);
- `unshare`, `setns`, `clone` with a namespace flag, and every mount call would give it a user
  namespace of its own, in which it may mount a fresh tmpfs of any size (the disk cap is the one
  tmpfs bwrap mounted);
- the kernel keyrings (`keyctl`, `add_key`, `request_key`) are the scorer's session keyring,
  which a build inherits whatever its uid and namespaces: it could read the scorer's keys, or
  leave some for the next build to find;
- io_uring, userfaultfd, System V semaphores, POSIX message queues, perf events and eBPF are
  kernel surfaces a compiler never uses.

They fail with EPERM. `clone3` passes its flags in memory, which a seccomp filter cannot read,
so it fails with ENOSYS: the C library then falls back to `clone`, whose flags the filter
checks (threads and `fork` keep working; a namespace flag is refused). A call from another ABI
(x32, or a 32-bit one) kills the process.
"""

from __future__ import annotations

import platform
import struct

# Namespace flags of clone(2) and unshare(2): any of them makes a clone a refused one.
CLONE_NAMESPACE_FLAGS = (0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000  # time, mount, cgroup, uts, ipc
                         | 0x10000000 | 0x20000000 | 0x40000000)  # user, pid, net

DENIED_SYSCALLS = {
    "x86_64": {"memfd_create": 319, "memfd_secret": 447, "shmget": 29, "msgget": 68, "ptrace": 101,
               "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
               "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
               "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
               "fspick": 433, "mount_setattr": 442, "open_tree_attr": 467,
               "keyctl": 250, "add_key": 248, "request_key": 249, "io_uring_setup": 425, "io_uring_enter": 426,
               "io_uring_register": 427, "userfaultfd": 323, "semget": 64, "mq_open": 240, "perf_event_open": 298,
               "bpf": 321},
    "aarch64": {"memfd_create": 279, "memfd_secret": 447, "shmget": 194, "msgget": 186, "ptrace": 117,
                "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438,
                "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
                "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
                "fspick": 433, "mount_setattr": 442, "open_tree_attr": 467,
                "keyctl": 219, "add_key": 217, "request_key": 218, "io_uring_setup": 425, "io_uring_enter": 426,
                "io_uring_register": 427, "userfaultfd": 282, "semget": 190, "mq_open": 180, "perf_event_open": 241,
                "bpf": 280},
}
CLONE = {"x86_64": 56, "aarch64": 220}
CLONE3 = {"x86_64": 435, "aarch64": 435}

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQ, _JUMP_GE, _JUMP_SET = 0x15, 0x35, 0x45  # BPF_JMP | BPF_JEQ / BPF_JGE / BPF_JSET | BPF_K
_RETURN = 0x06
_ALLOW, _KILL = 0x7FFF0000, 0x80000000
_ERRNO = 0x00050000
EPERM, ENOSYS = 1, 38
# Offsets in struct seccomp_data: nr, arch, then args[0] (its low word first, little-endian).
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """The program for this machine's architecture, or None for one this does not know (then
    builds run without it)."""
    machine = machine or platform.machine()
    if machine not in DENIED_SYSCALLS:
        return None
    # (opcode, target if true, target if false, constant), targets as labels: resolved below.
    program: list[tuple[int, str | None, str | None, int]] = [
        (_LOAD_WORD, None, None, _ARCH),
        (_JUMP_EQ, None, "kill", _AUDIT_ARCH[machine]),
        (_LOAD_WORD, None, None, _NR),
    ]
    if machine == "x86_64":  # the x32 ABI (nr | 0x40000000)
        program.append((_JUMP_GE, "kill", None, 0x40000000))
    for number in sorted(DENIED_SYSCALLS[machine].values()):
        program.append((_JUMP_EQ, "deny", None, number))
    program += [
        (_JUMP_EQ, "nosys", None, CLONE3[machine]),
        (_JUMP_EQ, None, "allow", CLONE[machine]),
        (_LOAD_WORD, None, None, _ARG0_LOW),
        (_JUMP_SET, "deny", "allow", CLONE_NAMESPACE_FLAGS),
    ]
    returns = {"allow": _ALLOW, "deny": _ERRNO | EPERM, "nosys": _ERRNO | ENOSYS, "kill": _KILL}
    labels = {name: len(program) + index for index, name in enumerate(returns)}
    encoded = []
    for index, (opcode, if_true, if_false, constant) in enumerate(program):
        # A jump's targets count the instructions to skip after it; None falls through.
        jump_true = labels[if_true] - index - 1 if if_true else 0
        jump_false = labels[if_false] - index - 1 if if_false else 0
        encoded.append(struct.pack("<HBBI", opcode, jump_true, jump_false, constant))
    encoded += [struct.pack("<HBBI", _RETURN, 0, 0, value) for value in returns.values()]
    return b"".join(encoded)
