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
the module. A build whose asker goes away (a worker killed) is killed at once. The launcher refuses to start where it
cannot give what it is for
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
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from engine.builds import protocol
from engine.builds.accounts import BuildAccounts, NoFreeBlock, claim_block
from engine.builds.admission import Admission, Busy
from engine.builds.bwrap import sandbox_problem
from engine.builds.caps import Caps, LauncherError, concurrent_builds
from engine.builds.cgroups import BuildCgroup, Layout, confine_all_builds, remove_orphans, remove_with_children
from engine.builds.limits import SandboxUnavailable
from engine.builds.run import DRIVER_MODULES, build_submission, confinement_problem
from engine.toolchain import installed

logger = logging.getLogger("engine.builds.launcher")

ROOT = Path(__file__).resolve().parents[2]
REQUEST_SECONDS = 60  # to send a whole request (a source of tens of MiB over a local socket)
HEADER_SECONDS = 5  # to send its head and header (a few hundred bytes): a silent asker goes soon
ANSWER_SECONDS = 60
ACCEPT_WAKE_SECONDS = 1.0  # how soon a stop asked by a signal is acted on
COMMAND_LIMIT = 8192
MODULE_PATH_LIMIT = 1024


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


class OverAllBuilds:
    """The cgroup over every build of the launcher, made again when it is found gone (removed from
    outside) before a build goes into it."""

    def __init__(self, caps: Caps):
        self.caps = caps
        self.guard = threading.Lock()
        self.where: Layout | None = None  # where the builds' cgroups go: inside it
        self.group: BuildCgroup | None = None
        self.problem: str | None = None
        self.remade = 0

    def make(self) -> None:
        """Raises OSError when none can be made."""
        self.where, self.group = confine_all_builds(self.caps.all_memory_bytes, self.caps.all_processes,
                                                    self.caps.all_cpus)

    def present(self) -> bool:
        return self.group is not None and all(folder.is_dir() for folder in self.group.folders)

    def ensure(self) -> Layout | None:
        """Where a build's cgroup goes now, or None (`problem` says why) when no cgroup over all
        the builds can be had."""
        with self.guard:
            if not self.present():
                logger.warning("the cgroup over all builds (%s) is gone: making it again",
                               self.group.folders[0].name if self.group else None)
                if self.group is not None:
                    remove_with_children(self.group)  # what is left of it, on another controller
                try:
                    self.make()
                    self.problem = None
                    self.remade += 1
                except OSError as error:
                    self.where = self.group = None
                    self.problem = f"no cgroup can be made over all the builds: {error.strerror or error}"
                    return None
            return self.where

    def remove(self) -> None:
        with self.guard:
            if self.group is not None:
                remove_with_children(self.group)  # any build still running goes with it


class Launcher:
    def __init__(self, socket_path: Path, client_uid: int, client_gid: int, caps: Caps, accounts: BuildAccounts,
                 over_all: OverAllBuilds | None = None):
        self.socket_path = socket_path
        self.over_all = over_all  # the cgroup over all the builds (None: a root scorer's own)
        self.client_uid, self.client_gid = client_uid, client_gid
        self.caps = caps
        self.accounts = accounts
        self.free = threading.BoundedSemaphore(accounts.slots)
        self.admission = Admission(client_uid, accounts.slots, caps.source_bytes)  # admission.py

    def status(self) -> dict:
        problem = sandbox_problem() or confinement_problem()
        cgroup = None
        if self.over_all is not None:
            problem = problem or (self.over_all.problem if self.over_all.ensure() is None else None)
            cgroup = self.over_all.group.folders[0].name if self.over_all.group else None
        first = self.accounts.uid_base
        return {"ready": problem is None, "problem": problem, "uids": [first, first + self.accounts.slots - 1],
                "slots": self.accounts.slots, "caps": self.caps.limits.__dict__,
                "source_bytes": self.caps.source_bytes, "pid": os.getpid(), "cgroup": cgroup,
                "toolchain": installed().as_dict(),
                "cgroup_remade": self.over_all.remade if self.over_all else 0}

    def _build(self, connection: socket.socket, header: dict, source: bytes) -> tuple[dict, bytes]:
        limits = self.caps.clamp(header.get("limits"))
        log_limit = protocol.number(header.get("log_limit"), "log_limit", integer=True)
        commands = {key: protocol.text(header, key, COMMAND_LIMIT) for key in ("install", "build")}
        module = protocol.text(header, "module", MODULE_PATH_LIMIT)
        if not self.free.acquire(blocking=False):
            return {"unavailable": f"all {self.accounts.slots} build slots of this launcher are busy"}, b""
        try:
            where = None
            if self.over_all is not None:
                where = self.over_all.ensure()
                if where is None:
                    return {"unavailable": self.over_all.problem}, b""
            result = build_submission(
                source, install=commands["install"], build=commands["build"], module_path=module, limits=limits,
                log_limit=min(log_limit, self.caps.log_bytes), path=self.caps.path, accounts=self.accounts,
                cancel=connection.fileno(), cgroup_parent=where)
        except SandboxUnavailable as unavailable:
            return {"unavailable": str(unavailable)}, b""
        finally:
            self.free.release()
        # The log goes in the payload, as its bytes: in the header, JSON would spell each control
        # character a build prints in six, past any cap the asker could set.
        log = result.log.encode("utf-8", "replace")
        return ({"ok": result.ok, "log_bytes": len(log), "message": result.message, "detail": result.detail[:4096],
                 "seconds": result.seconds, "confinement": result.confinement, "limits": limits.__dict__,
                 "toolchain": result.toolchain},
                log + (result.module or b""))

    def handle(self, connection: socket.socket) -> None:
        held: list[int] = []
        with connection:
            try:
                header, source = protocol.receive(connection, payload_limit=self.caps.source_bytes,
                                                  seconds=REQUEST_SECONDS, header_seconds=HEADER_SECONDS,
                                                  admit=lambda size: self.admission.hold_payload(size, held))
                if header.get("op") == "status":
                    answer, module = self.status(), b""
                elif header.get("op") == "build":
                    answer, module = self._build(connection, header, source)
                else:
                    raise protocol.ProtocolError("op must be status or build")
            except protocol.ProtocolError as refused:
                answer, module = {"refused": str(refused)}, b""
            except Busy as busy:
                answer, module = {"unavailable": str(busy)}, b""
            except Exception:  # one request's failure must not take the launcher down
                logger.exception("a build request failed")
                answer, module = {"unavailable": "the build launcher failed on this request (see its log)"}, b""
            finally:
                source = None  # noqa: F841  (its memory is given back before the budget is)
                self.admission.release_payload(held)
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
        # Made under a name of its own and moved into place once it listens: a socket at the path
        # is one that answers (an asker that finds it never meets a refused connection).
        making = self.socket_path.with_name(f".{self.socket_path.name}.{os.getpid()}")
        making.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(making))
        os.chown(making, 0, self.client_gid, follow_symlinks=False)
        os.chmod(making, 0o660)
        listener.listen(64)
        # Said before the socket is in place: whoever waits for the socket may stop the launcher
        # at once, and the log must still say that it had started.
        logger.info("build launcher on %s for uid %s: build uids %s", self.socket_path, self.client_uid,
                    self.status()["uids"])
        os.replace(making, self.socket_path)
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
            pid = self.admission.admitted(connection)
            if pid is None:
                connection.close()
                continue
            try:
                threading.Thread(target=self._handled, args=(connection, pid), daemon=True).start()
            except RuntimeError as error:  # no thread can be had now: this asker tries again later
                logger.warning("could not start a handler: %s", error)
                connection.close()
                self.admission.done(pid)

    def _handled(self, connection: socket.socket, pid: int) -> None:
        try:
            self.handle(connection)
        finally:
            self.admission.done(pid)


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
        over_all = OverAllBuilds(caps)
        try:
            over_all.make()
        except OSError as error:
            raise LauncherError(f"no cgroup can be made over all the builds: {error.strerror or error}") from None
        _last_to_go()
        launcher = Launcher(arguments.socket, uid, gid, caps, accounts, over_all)
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
        over_all.remove()  # any build still running goes with it
    return 0


def _last_to_go() -> None:
    """When the machine runs out of memory anyway, the kernel kills anything before the launcher."""
    try:
        Path("/proc/self/oom_score_adj").write_text("-1000")
    except OSError as error:
        logger.warning("could not protect the launcher from the out-of-memory killer: %s", error)
