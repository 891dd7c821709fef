"""The build launcher: the one privileged piece of a site, which gives each build an account and a
cgroup of its own for workers that run as the site's unprivileged account.

An account and a cgroup need root; the site (its web workers, its task workers) must never run
as root. So root runs this small process, one per machine and site (`scripts/build-launcher`,
started by `make serve` and `scripts/worker.sh`), and the workers ask it for builds over a Unix
socket (`protocol.py`): a request is the build's commands, the limits asked for and the packed
source; the answer is the log, the outcome and the module. Nothing else can be asked.

What it trusts of a request: nothing. Only the site's account (and root) may connect (the
socket is 0660 of the site's group, in a folder of root's, and every connection's peer is
checked); a request is read within size caps and a deadline, every field is typed and bounded,
and every limit is clamped to the launcher's own caps (its environment's SCORING_BUILD_*, read
here, strictly): a site account that is taken over can ask for no more than the launcher gives.
The launcher never parses the source archive: it hands the bytes to the build's driver through
a pipe, and the driver unpacks them inside the sandbox, as the build's account (`driver.py`).

Accounts: each launcher claims a block of 1,024 uids of its own (a lock held for its life, in
`--range-dir`, by the block's absolute number; a block an account or a process already uses is
passed over), so two sites on one machine never share an account, a slot or a process limit;
within it, one uid per concurrent build (`accounts.py`). Every build's cgroup lies inside one
cgroup over all the launcher's builds (SCORING_BUILDS_MEMORY_BYTES, _PROCESSES, _CPUS), so
however many builds are asked for, together they take no more; no more builds run at once than
that cgroup holds at their full caps, and the launcher itself stays outside it (and is the
kernel's last choice when memory runs out), so no build can take it down. A build's
output is cut to its last `log_limit` bytes inside its sandbox and comes back as bytes, beside
the module. A build whose asker goes away (a worker killed) is killed at once. The launcher refuses to start where it cannot give what it is for
(no sandbox, no cgroups, not root), and where the code it runs could be changed by an account
other than root.
"""

from __future__ import annotations

import argparse
import grp
import logging
import os
import pwd
import signal
import socket
import stat
import struct
import sys
import threading
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path

from engine.builds import protocol
from engine.builds.accounts import BLOCK, BuildAccounts, NoFreeBlock, claim_block
from engine.builds.bwrap import sandbox_problem
from engine.builds.cgroups import Layout, confine_all_builds, remove_orphans, remove_with_children
from engine.builds.limits import BuildLimits, SandboxUnavailable
from engine.builds.run import DRIVER_MODULES, build_submission, confinement_problem

logger = logging.getLogger("engine.builds.launcher")

ROOT = Path(__file__).resolve().parents[2]
REQUEST_SECONDS = 60  # to send a whole request (a source of tens of MiB over a local socket)
ANSWER_SECONDS = 60
ACCEPT_WAKE_SECONDS = 1.0  # how soon a stop asked by a signal is acted on
COMMAND_LIMIT = 8192
MODULE_PATH_LIMIT = 1024


# The launcher's caps, from its environment: the names (and defaults) of the site's own settings,
# so one environment configures both.
CAPS_FROM_ENVIRONMENT = {
    "timeout": ("SCORING_BUILD_TIMEOUT", float, 900.0),
    "cpu_seconds": ("SCORING_BUILD_CPU_SECONDS", int, BuildLimits.cpu_seconds),
    "memory_bytes": ("SCORING_BUILD_MEMORY_BYTES", int, BuildLimits.memory_bytes),
    "file_bytes": ("SCORING_BUILD_FILE_BYTES", int, BuildLimits.file_bytes),
    "processes": ("SCORING_BUILD_PROCESSES", int, BuildLimits.processes),
    "total_memory_bytes": ("SCORING_BUILD_TOTAL_MEMORY_BYTES", int, BuildLimits.total_memory_bytes),
    "disk_bytes": ("SCORING_BUILD_DISK_BYTES", int, BuildLimits.disk_bytes),
    "module_bytes": ("SCORING_MAX_MODULE_BYTES", int, BuildLimits.module_bytes),
    "unpacked_bytes": ("SCORING_MAX_UNPACKED_BYTES", int, BuildLimits.unpacked_bytes),
    "source_entries": ("SCORING_MAX_SOURCE_ENTRIES", int, BuildLimits.source_entries),
    "cpus": ("SCORING_BUILD_CPUS", float, BuildLimits.cpus),
}
def _physical_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


OTHER_SETTINGS = {
    "source_bytes": ("SCORING_MAX_SOURCE_BYTES", int, 32 << 20),
    "log_bytes": ("SCORING_BUILD_LOG_BYTES", int, 64 << 10),
    "uid_base": ("SCORING_BUILD_UID_BASE", int, 2_000_000_000),
    "slots": ("SCORING_BUILD_SLOTS", int, 8),
    # Every build of the launcher together, and the launcher itself (the sources it holds).
    "all_memory_bytes": ("SCORING_BUILDS_MEMORY_BYTES", int, _physical_memory() * 3 // 4),
    "all_processes": ("SCORING_BUILDS_PROCESSES", int, 4096),
    "all_cpus": ("SCORING_BUILDS_CPUS", float, float(os.cpu_count() or 1)),
}


class LauncherError(Exception):
    """The launcher cannot start; the message says why and what to do."""


def _setting(environ, name: str, parse, default):
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw.strip())
    except ValueError:
        raise LauncherError(f"{name}={raw!r} is not {'an integer' if parse is int else 'a number'}") from None
    if not value > 0 or value == float("inf"):
        raise LauncherError(f"{name}={raw!r} must be a positive finite number")
    return value


@dataclass(frozen=True)
class Caps:
    limits: BuildLimits  # the most any build may have
    source_bytes: int
    log_bytes: int
    uid_base: int
    slots: int
    all_memory_bytes: int
    all_processes: int
    all_cpus: float
    path: str

    @classmethod
    def from_environment(cls, environ=os.environ) -> "Caps":
        limits = BuildLimits(**{field: _setting(environ, *spec) for field, spec in CAPS_FROM_ENVIRONMENT.items()})
        limits = replace(limits, wall_seconds=limits.wall)  # the longest wall a build may ask for
        other = {field: _setting(environ, *spec) for field, spec in OTHER_SETTINGS.items()}
        if other["slots"] > BLOCK:
            raise LauncherError(f"SCORING_BUILD_SLOTS={other['slots']} is more than {BLOCK}")
        return cls(limits, path=environ.get("SCORING_BUILD_PATH", "/usr/bin:/bin:/usr/sbin:/sbin"), **other)

    def clamp(self, asked: dict) -> BuildLimits:
        """The limits asked for, each at most the launcher's own. Raises ProtocolError."""
        if not isinstance(asked, dict):
            raise protocol.ProtocolError("limits must be an object")
        known = {field.name: field for field in fields(BuildLimits)}
        values = {}
        for key, value in asked.items():
            if key not in known:
                raise protocol.ProtocolError(f"limits.{key} is not a build limit")
            if key == "wall_seconds" and value is None:
                continue
            integer = known[key].type == "int"
            values[key] = min(protocol.number(value, f"limits.{key}", integer=integer), getattr(self.limits, key))
        if "timeout" not in values:
            raise protocol.ProtocolError("limits.timeout is required")
        clamped = BuildLimits(**{name: getattr(self.limits, name) for name in known} | {"wall_seconds": None} | values)
        return replace(clamped, wall_seconds=min(clamped.wall, self.limits.wall))


def _changeable_by_others(path: Path) -> str | None:
    info = os.lstat(path)
    if info.st_uid != 0 and info.st_uid != os.geteuid():
        return f"{path} belongs to uid {info.st_uid}"
    if info.st_mode & 0o022 and not (stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX):
        return f"{path} may be written by its group or by everyone"
    return None


def code_problem() -> str | None:
    """Why the code this process runs could be changed by another account (None: it cannot)."""
    modules = list(sys.modules.values())
    loaded = {Path(module.__file__).resolve() for module in modules
              if getattr(module, "__file__", None) and Path(module.__file__).resolve().is_relative_to(ROOT)}
    # The compiled copies Python may have read instead of the sources, and their folders.
    loaded |= {Path(module.__cached__).resolve() for module in modules
               if getattr(module, "__cached__", None) and Path(module.__file__ or "").resolve().is_relative_to(ROOT)
               and Path(module.__cached__).exists()}
    folders = {folder for path in loaded for folder in path.parents if folder == ROOT or folder.is_relative_to(ROOT)}
    for path in sorted(loaded | folders | {ROOT / path for _, path in DRIVER_MODULES} | set(ROOT.parents)):
        problem = _changeable_by_others(path)
        if problem is not None:
            return problem
    return None


def _peer(connection: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end, as the kernel knows it."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)


def _drain(connection: socket.socket, limit: int = 1 << 20, seconds: float = 1.0) -> None:
    """After the answer: read (and drop) a little of what a refused asker still sends, so the close
    does not reset the connection before the asker has read why it was refused; at most `limit`
    bytes within `seconds` in all, however slowly they come."""
    connection.shutdown(socket.SHUT_WR)
    deadline = time.monotonic() + seconds
    left = limit
    try:
        while left > 0 and (remaining := deadline - time.monotonic()) > 0:
            connection.settimeout(remaining)
            chunk = connection.recv(min(left, 1 << 16))
            if not chunk:
                return
            left -= len(chunk)
    except OSError:
        pass


class Launcher:
    def __init__(self, socket_path: Path, client_uid: int, client_gid: int, caps: Caps, accounts: BuildAccounts,
                 cgroups: Layout | None = None):
        self.socket_path = socket_path
        self.cgroups = cgroups  # where the builds' cgroups go: inside the one over them all
        self.client_uid, self.client_gid = client_uid, client_gid
        self.caps = caps
        self.accounts = accounts
        self.free = threading.BoundedSemaphore(accounts.slots)
        # Connections handled at once: a slot's worth of builds, and as many more waiting or asking
        # for the status; past that a connection is closed at once (no thread, no memory).
        self.handlers = threading.BoundedSemaphore(accounts.slots * 2 + 4)

    def status(self) -> dict:
        problem = sandbox_problem() or confinement_problem()
        first = self.accounts.uid_base
        return {"ready": problem is None, "problem": problem, "uids": [first, first + self.accounts.slots - 1],
                "slots": self.accounts.slots, "caps": self.caps.limits.__dict__,
                "source_bytes": self.caps.source_bytes, "pid": os.getpid()}

    def _build(self, connection: socket.socket, header: dict, source: bytes) -> tuple[dict, bytes]:
        limits = self.caps.clamp(header.get("limits"))
        log_limit = protocol.number(header.get("log_limit"), "log_limit", integer=True)
        commands = {key: protocol.text(header, key, COMMAND_LIMIT) for key in ("install", "build")}
        module = protocol.text(header, "module", MODULE_PATH_LIMIT)
        if not self.free.acquire(blocking=False):
            return {"unavailable": f"all {self.accounts.slots} build slots of this launcher are busy"}, b""
        try:
            result = build_submission(
                source, install=commands["install"], build=commands["build"], module_path=module, limits=limits,
                log_limit=min(log_limit, self.caps.log_bytes), path=self.caps.path, accounts=self.accounts,
                cancel=connection.fileno(), cgroup_parent=self.cgroups)
        except SandboxUnavailable as unavailable:
            return {"unavailable": str(unavailable)}, b""
        finally:
            self.free.release()
        # The log goes in the payload, as its bytes: in the header, JSON would spell each control
        # character a build prints in six, past any cap the asker could set.
        log = result.log.encode("utf-8", "replace")
        return ({"ok": result.ok, "log_bytes": len(log), "message": result.message, "detail": result.detail[:4096],
                 "seconds": result.seconds, "confinement": result.confinement, "limits": limits.__dict__},
                log + (result.module or b""))

    def handle(self, connection: socket.socket) -> None:
        with connection:
            try:
                _, uid, _ = _peer(connection)
                if uid not in (0, self.client_uid):
                    logger.warning("refused a connection from uid %s", uid)
                    return
                header, source = protocol.receive(connection, payload_limit=self.caps.source_bytes,
                                                  seconds=REQUEST_SECONDS)
                if header.get("op") == "status":
                    answer, module = self.status(), b""
                elif header.get("op") == "build":
                    answer, module = self._build(connection, header, source)
                else:
                    raise protocol.ProtocolError("op must be status or build")
            except protocol.ProtocolError as refused:
                answer, module = {"refused": str(refused)}, b""
            except Exception:  # one request's failure must not take the launcher down
                logger.exception("a build request failed")
                answer, module = {"unavailable": "the build launcher failed on this request (see its log)"}, b""
            try:
                connection.settimeout(ANSWER_SECONDS)
                protocol.send(connection, answer, module)
                _drain(connection)
            except OSError:
                pass  # the asker went away

    def serve(self, ready=None) -> None:
        folder = self.socket_path.parent
        problem = _changeable_by_others(folder) if folder.exists() else f"{folder} does not exist"
        if problem is not None:
            raise LauncherError(f"the socket's folder must be root's and written by no one else: {problem}")
        if self.socket_path.is_symlink() or (self.socket_path.exists() and not self.socket_path.is_socket()):
            raise LauncherError(f"{self.socket_path} exists and is not a socket")
        self.socket_path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.socket_path))
        os.chown(self.socket_path, 0, self.client_gid, follow_symlinks=False)
        os.chmod(self.socket_path, 0o660)
        listener.listen(64)
        logger.info("build launcher on %s for uid %s: build uids %s", self.socket_path, self.client_uid,
                    self.status()["uids"])
        if ready is not None:
            ready()
        # accept() wakes every second: a signal the kernel hands to a handler's thread only sets a
        # flag the main thread acts on when it runs Python again (blocked in accept(), never).
        listener.settimeout(ACCEPT_WAKE_SECONDS)
        while True:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError as error:  # out of descriptors, say: wait, and go on
                logger.warning("could not accept a connection: %s", error)
                time.sleep(0.5)
                continue
            if not self.handlers.acquire(blocking=False):
                connection.close()
                continue
            try:
                threading.Thread(target=self._handled, args=(connection,), daemon=True).start()
            except RuntimeError as error:  # no thread can be had now: this asker tries again later
                logger.warning("could not start a handler: %s", error)
                connection.close()
                self.handlers.release()

    def _handled(self, connection: socket.socket) -> None:
        try:
            self.handle(connection)
        finally:
            self.handlers.release()


def _account(name: str) -> tuple[int, int]:
    try:
        found = pwd.getpwnam(name) if not name.isdigit() else pwd.getpwuid(int(name))
    except KeyError:
        raise LauncherError(f"there is no account {name!r}") from None
    return found.pw_uid, found.pw_gid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build-launcher", description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, type=Path, help="where to listen (its folder: root's, 0750)")
    parser.add_argument("--client-user", required=True, help="the site's account: the only one that may ask")
    parser.add_argument("--client-group", help="the socket's group (default: the account's own)")
    parser.add_argument("--range-dir", type=Path, default=Path("/run/fuelboard-build-ranges"),
                        help="where launchers claim their blocks of build accounts (one folder per machine)")
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="build-launcher: %(message)s")
    try:
        if os.geteuid() != 0:
            raise LauncherError("the build launcher must run as root: it gives builds accounts and cgroups")
        problem = code_problem()
        if problem is not None:
            raise LauncherError(f"refusing to run as root code that another account could change: {problem}")
        caps = Caps.from_environment()
        uid, gid = _account(arguments.client_user)
        if arguments.client_group:
            try:
                gid = grp.getgrnam(arguments.client_group).gr_gid
            except KeyError:
                raise LauncherError(f"there is no group {arguments.client_group!r}") from None
        if uid == 0:
            raise LauncherError("the site's account must not be root")
        problem = sandbox_problem() or confinement_problem()
        if problem is not None:
            raise LauncherError(f"builds cannot be confined here: {problem}")
        caps = replace(caps, slots=concurrent_builds(caps))
        try:
            _, accounts = claim_block(arguments.range_dir, caps.slots, caps.uid_base)
        except NoFreeBlock as error:
            raise LauncherError(str(error)) from None
        for name in remove_orphans():
            logger.warning("removed the cgroup %s, left by a scorer that is gone", name)
        try:
            cgroups, over_all = confine_all_builds(caps.all_memory_bytes, caps.all_processes, caps.all_cpus)
        except OSError as error:
            raise LauncherError(f"no cgroup can be made over all the builds: {error.strerror or error}") from None
        _last_to_go()
        launcher = Launcher(arguments.socket, uid, gid, caps, accounts, cgroups)
    except LauncherError as error:
        print(f"build-launcher: {error}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(0))
    try:
        launcher.serve()
    except LauncherError as error:
        print(f"build-launcher: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        arguments.socket.unlink(missing_ok=True)
        remove_with_children(over_all)  # any build still running goes with it
    return 0


def concurrent_builds(caps: Caps) -> int:
    """How many builds run at once: SCORING_BUILD_SLOTS, but no more than the cgroup over them all
    holds at their full caps, so that cap never makes the kernel choose a build to kill (each
    build's own cap is met first)."""
    limits = caps.limits
    return max(1, min(caps.slots, caps.all_memory_bytes // limits.total_memory_bytes,
                      caps.all_processes // limits.processes))


def _last_to_go() -> None:
    """When the machine runs out of memory anyway, the kernel kills anything before the launcher."""
    try:
        Path("/proc/self/oom_score_adj").write_text("-1000")
    except OSError as error:
        logger.warning("could not protect the launcher from the out-of-memory killer: %s", error)
