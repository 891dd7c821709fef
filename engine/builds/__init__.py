"""Build a submission into a wasm module with the manifest's `[build]` commands.

A submitted folder is packed into a tar.gz archive when it is submitted (`packing.py`). A build
starts a small driver (`driver.py`) in the sandbox and hands it the archive through a pipe; the
driver unpacks it into a fresh build root within caps on entries and bytes written
(`lib.unpack`), runs `install` then `build` (each under its own timeout), and hands the module
back through another pipe (`run.py`).

The driver runs inside bubblewrap (`bwrap.py`), which is itself started with an empty
environment (so nothing of the scorer's environment is readable from `/proc` inside the
sandbox), as an account of its own (`accounts.py`: a uid per concurrent build slot, so one
build's processes never count against another's process limit), in a cgroup of its own
(`cgroups.py`: memory, processes and a share of the processors, over all its processes and
files), with no network, no capabilities and its own PID namespace, of which the driver is pid 1,
not dumpable. A seccomp filter refuses the calls that hold memory outside the caps or reach
into another process. It sees `/usr` and a few `/etc` files read-only, and exactly one writable
place: a tmpfs of `disk_bytes` holding the build root, `$HOME` and `/tmp` (`/` and `/dev` are
read-only). The module never touches the host's disk: when the build is done, every other
process of the build is killed, and the driver sends the module down a pipe only if it is a
regular file reached without symbolic links; the host reads at most `module_bytes` of it.
Resource limits (`limits.py`) cap CPU seconds, address space, file size and processes; the
whole process group is killed at the build's wall-clock limit.

An account and a cgroup of its own need root. A scorer that is root builds itself; one that is
not (the site's workers) asks a build launcher (`launcher.py`, run as root, one per machine and
site) over a Unix socket with a narrow protocol (`protocol.py`, `remote.py`). Where a build
cannot be held so, it is refused (SandboxUnavailable) unless `SCORING_ALLOW_UNCONFINED_BUILDS`
(the sandbox only) or `SCORING_ALLOW_UNSANDBOXED_BUILDS` (not even that: the same driver runs
directly, as the scorer, with the same limits where the OS allows) is on, and a warning is
logged every build.
"""

from engine.builds.accounts import BuildAccounts, build_account
from engine.builds.bwrap import sandbox_problem
from engine.builds.limits import CONFINED, UNCONFINED, UNSANDBOXED, BuildLimits, BuildResult, SandboxUnavailable
from engine.builds.packing import EXCLUDED_DIRECTORIES, SourceTooLarge, pack_folder
from engine.builds.run import build_submission, confinement_problem
from engine.builds.seccomp import DENIED_SYSCALLS, seccomp_filter

__all__ = [
    "CONFINED", "DENIED_SYSCALLS", "EXCLUDED_DIRECTORIES", "UNCONFINED", "UNSANDBOXED", "BuildAccounts", "BuildLimits",
    "BuildResult", "SandboxUnavailable", "SourceTooLarge", "build_account", "build_submission", "confinement_problem",
    "pack_folder", "sandbox_problem", "seccomp_filter",
]
