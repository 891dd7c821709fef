"""The build launcher (scripts/build-launcher): root's one process, which gives the builds an
unprivileged site asks for an account and a cgroup of their own. Real launchers, real builds, the
site's account played by `nobody`."""

from __future__ import annotations

import grp
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from engine.builds import pack_folder
from engine.builds.accounts import BLOCK, claim_block
from engine.builds.cgroups import layout
from engine.builds.protocol import HEAD
from engine.builds.run import LOG_MARGIN
from engine.tests.hostile import BUILD, LAUNCHER_REQUESTS, request
from engine.tests.launchers import starting_a_launcher
from tests.serve_stack import uids_running

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


class Launcher:
    """A launcher for `nobody`, with its socket in a folder of root's that `nobody`'s group may pass;
    with `namespace`, in a PID namespace of its own (as in a container: `/proc` shows only its own)."""

    def __init__(self, namespace: bool = False, memory_cgroup: Path | None = None, **environment: str):
        self.folder = Path(tempfile.mkdtemp(prefix="fuelboard-launcher-"))
        self.folder.chmod(0o750)
        os.chown(self.folder, 0, grp.getgrnam("nogroup").gr_gid)
        self.socket = self.folder / "launcher.sock"
        inside = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "--"] if namespace else []
        if memory_cgroup is not None:  # started in another memory cgroup than this process's
            inside = ["/bin/sh", "-c", f'echo $$ > {memory_cgroup}/cgroup.procs && exec "$@"', "launcher"]
        with starting_a_launcher():
            self.process = subprocess.Popen(
                [*inside, str(ROOT / "scripts" / "build-launcher"), "--socket", str(self.socket), "--client-user",
                 "nobody"],
                env={"PATH": "/usr/bin:/bin", **environment}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True)
            deadline = time.monotonic() + 60
            while not self.socket.exists():
                assert self.process.poll() is None, self.process.stdout.read()
                assert time.monotonic() < deadline, "the launcher did not start"
                time.sleep(0.05)
        # The launcher itself, as this namespace numbers it (unshare's child when in one of its own).
        self.pid = self.process.pid
        if namespace:
            self.pid = int(Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()[0])

    def stop(self) -> None:
        os.kill(self.pid, signal.SIGTERM)
        self.process.communicate(timeout=30)  # its log read as it ends: a full pipe would hold it
        shutil.rmtree(self.folder, ignore_errors=True)

    def kill(self) -> str:
        """SIGKILL, as the machine's out-of-memory killer or an operator would: no clean-up. Its log."""
        os.kill(self.pid, signal.SIGKILL)
        log = self.process.communicate(timeout=30)[0]
        shutil.rmtree(self.folder, ignore_errors=True)
        return log


def cgroup_folders(name: str) -> list[Path]:
    """A cgroup's folders in every hierarchy builds are capped in (one on v2)."""
    return [parent / name for parent in layout().parents.values() if (parent / name).exists()]


@pytest.fixture
def launcher():
    started = Launcher(SCORING_BUILD_TOTAL_MEMORY_BYTES=str(256 << 20), SCORING_BUILD_SLOTS="4")
    yield started
    started.stop()


ASK = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engine.builds import BuildLimits, SandboxUnavailable
from engine.builds.remote import build_remotely, launcher_status
socket_path, what = sys.argv[2], sys.argv[3]
try:
    if what == "status":
        print(json.dumps(launcher_status(socket_path)))
    else:
        source = open(sys.argv[4], "rb").read()
        result = build_remotely(socket_path, source, install="", build=sys.argv[5], module_path="out.wasm",
                                limits=BuildLimits(timeout=30, total_memory_bytes=64 << 30), log_limit=1 << 16)
        print(json.dumps({"ok": result.ok, "message": result.message, "log": result.log,
                          "confinement": result.confinement}))
except SandboxUnavailable as error:
    print(json.dumps({"unavailable": str(error)}))
"""


def ask(launcher: Launcher, what: str, *arguments: str, user: str = "nobody", timeout: float = 120) -> dict:
    """What the site's account (or `user`) is told when it asks the launcher, with the system's python3."""
    done = subprocess.run(["/usr/sbin/runuser", "-u", user, "--", "/usr/bin/python3", "-I", "-c", ASK, str(ROOT),
                           str(launcher.socket), what, *arguments], capture_output=True, text=True, timeout=timeout,
                          cwd="/")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def source_file(tmp_path: Path) -> str:
    """A packed empty submission, where `nobody` may read it."""
    folder = tmp_path / f"submission-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    readable = Path(tempfile.mkdtemp(prefix="fuelboard-source-"))
    readable.chmod(0o755)
    path = readable / "source.tar.gz"
    path.write_bytes(pack_folder(folder, max_bytes=10**6))
    path.chmod(0o644)
    return str(path)


def test_the_sites_account_gets_builds_as_an_account_and_a_cgroup_of_their_own(launcher, tmp_path):
    status = ask(launcher, "status")
    assert status["ready"] and status["slots"] == 4
    first, last = status["uids"]
    assert last - first == 3 and first >= 2_000_001_024  # a range above the root scorers' own
    built = ask(launcher, "build", source_file(tmp_path), "id -u; printf '\\0asm' > out.wasm")
    assert (built["ok"], built["confinement"]) == (True, "confined"), built
    uid = int(built["log"].split("\n")[1])
    assert first <= uid <= last and uid != NOBODY
    # 64 GiB asked for, the launcher's own cap (256 MiB) given.
    assert "bytes of 268,435,456" in built["log"]


def test_every_build_lies_in_a_cgroup_over_them_all_and_the_launcher_outside_it(tmp_path):
    """Builds filling the cgroup over them all can make the kernel kill a build, never the
    launcher: it stays outside, runs no more builds than that cgroup holds at their full caps,
    and is the kernel's last choice; each build its first."""
    launcher = Launcher(SCORING_BUILD_TOTAL_MEMORY_BYTES=str(256 << 20), SCORING_BUILDS_MEMORY_BYTES=str(3 * 256 << 20),
                        SCORING_BUILD_SLOTS="8")
    pid = launcher.process.pid
    try:
        status = ask(launcher, "status")
        assert status["slots"] == 3  # what 768 MiB holds at 256 MiB each, not the 8 asked for
        first, last = status["uids"]
        over_all = status["cgroup"]

        def capped(pid: int) -> list[str]:  # its cgroups in the hierarchies builds are capped in
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
            return [line for line in lines if (line.startswith("0::") if layout().version == 2
                                               else any(f":{name}:" in line for name in ("memory", "pids")))]

        assert not any(over_all in line for line in capped(pid))
        lowering = subprocess.run(["/usr/bin/python3", "-c",
                                   "import os; os.write(os.open('/proc/self/oom_score_adj', os.O_WRONLY), b'-1000')"],
                                  capture_output=True)
        if lowering.returncode == 0:  # root may lower a score here (CAP_SYS_RESOURCE)
            assert Path(f"/proc/{pid}/oom_score_adj").read_text().strip() == "-1000"
        answers = []
        asker = threading.Thread(target=lambda: answers.append(
            ask(launcher, "build", source_file(tmp_path), "sleep 3; printf '\\0asm' > out.wasm")))
        asker.start()
        deadline, inside, adjusted = time.monotonic() + 30, [], ""
        while not inside and time.monotonic() < deadline:
            builds = [found for found, uid in uids_running().items() if first <= uid <= last]
            try:
                inside = capped(builds[0]) if builds else []
                adjusted = Path(f"/proc/{builds[0]}/oom_score_adj").read_text().strip() if builds else ""
            except OSError:
                continue
            time.sleep(0.05)
        asker.join()
        assert answers[0]["ok"], answers
        assert inside and all(f"/{over_all}/fuelboard-build-" in line for line in inside), inside
        assert adjusted == "1000"
    finally:
        launcher.stop()
    parents = layout().parents.values()
    owner = over_all.removeprefix("fuelboard-build-").split("-")[0]
    assert [folder for parent in parents for folder in parent.glob(f"fuelboard-build-{owner}-*")] == []  # removed


def test_a_request_the_launcher_refuses_outright_is_a_failed_build_not_a_wait(launcher, tmp_path):
    built = ask(launcher, "build", source_file(tmp_path), "true " + "x" * 9000)
    assert (built["ok"], built["message"]) == (False, "the build could not be started: the build launcher refused "
                                                      "the request")


def test_a_build_that_floods_its_output_is_answered_with_the_tail_of_it(launcher, tmp_path):
    """Megabytes of control characters and broken UTF-8 (which JSON would write six times over)
    come back as the build's last bytes, beside its module: the build is judged, not bounced."""
    flood = "head -c 3000000 /dev/zero | tr '\\0' '\\1'; printf '\\377\\376 end\\n'; printf '\\0asm' > out.wasm"
    built = ask(launcher, "build", source_file(tmp_path), flood)
    assert built["ok"], built
    written = len(f"$ {flood}\n".encode()) + 3_000_000 + len(b"\377\376 end\n")
    kept = (1 << 16) - LOG_MARGIN  # what the asker allows, less room for the host's own lines
    omitted = f"[… {written - kept:,} earlier bytes of output omitted …]\n\x01\x01"
    assert built["log"].startswith(omitted), built["log"][:80]
    assert "\x01\ufffd\ufffd end\nmemory at its peak" in built["log"]
    assert len(built["log"].encode()) < 1 << 16


def test_a_refused_asker_that_trickles_is_cut_off(launcher):
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(str(launcher.socket))
    connection.sendall(b"GET / HTTP/1.1\r\n\r\n" + bytes(20))
    started = time.monotonic()
    try:
        while time.monotonic() - started < 30:
            connection.sendall(b"x")
            time.sleep(0.05)
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        connection.close()
    assert time.monotonic() - started < 30, "the launcher kept reading a refused asker"
    assert raw(launcher, request({"op": "status"}))["ready"]


def test_connections_that_send_a_byte_each_hold_no_slot_a_worker_needs(launcher):
    """One process may have two connections handled at once, and each must send its header within
    a few seconds: fourteen that send one byte each leave the workers' requests answered."""
    silent = []
    for _ in range(14):
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(str(launcher.socket))
        silent.append(connection)
        try:
            connection.sendall(b"F")
        except (BrokenPipeError, ConnectionResetError):
            pass  # cut off at once, before its byte arrived (this process has two connections handled)
    try:
        started = time.monotonic()
        assert ask(launcher, "status")["ready"]  # another process: a worker
        assert time.monotonic() - started < 5
        for connection in silent:  # each cut off: at once, or once its header is late
            connection.settimeout(15)
            try:
                while connection.recv(1 << 16):
                    pass
            except (ConnectionResetError, TimeoutError):
                pass
        assert time.monotonic() - started < 12
    finally:
        for connection in silent:
            connection.close()


def test_askers_outside_a_launchers_pid_namespace_are_not_one_asker():
    """A launcher in a PID namespace of its own is told pid 0 for every process outside it: those
    are not one asker whose two connections shut out the rest (only the cap on all connections holds)."""
    started = Launcher(namespace=True)
    silent = []
    try:
        for _ in range(2):
            connection = socket.socket(socket.AF_UNIX)
            connection.connect(str(started.socket))
            connection.sendall(b"F")
            silent.append(connection)
        assert ask(started, "status")["ready"]  # another process, within the others' header time
    finally:
        for connection in silent:
            connection.close()
        started.stop()


def test_sources_held_at_once_are_bounded_before_they_are_read(tmp_path):
    """Each connection may send a source at its cap: past a slot's worth and one more held at
    once, a request is answered "try again" before its source is read (a worker then waits and
    asks again), and the budget comes back when those requests end."""
    started = Launcher(SCORING_MAX_SOURCE_BYTES=str(1 << 20), SCORING_BUILD_SLOTS="1")
    holding = []
    try:
        for _ in range(2):  # the whole budget, claimed by two requests that send their source slowly
            connection = socket.socket(socket.AF_UNIX)
            connection.connect(str(started.socket))
            body = json.dumps(BUILD).encode()
            connection.sendall(HEAD.pack(b"FBL1", len(body), 1 << 20) + body + b"x")
            holding.append(connection)
        time.sleep(0.5)  # both headers read
        busy = ask(started, "build", source_file(tmp_path), "printf '\\0asm' > out.wasm")
        assert "holds as many sources as it may (2,097,152 bytes); try again" in busy["unavailable"]
        assert ask(started, "status")["ready"]  # no source: answered
    finally:
        for connection in holding:
            connection.close()
    try:
        assert ask(started, "build", source_file(tmp_path), "printf '\\0asm' > out.wasm")["ok"]
    finally:
        started.stop()


def test_a_launcher_passes_over_a_block_of_uids_in_use():
    """Blocks are numbered absolutely: a launcher with another uid base still never shares one, and
    a block where a process already runs is passed over."""
    folder = Path(tempfile.mkdtemp(prefix="fuelboard-ranges-"))
    first_block = (3_000_000_000 + 4 + BLOCK - 1) // BLOCK
    squatter = subprocess.Popen(["setpriv", f"--reuid={first_block * BLOCK + 7}", "--regid=65534",
                                 "--clear-groups", "sleep", "60"])
    try:
        time.sleep(0.3)
        one, accounts = claim_block(folder, 4, 3_000_000_000)
        assert accounts.uid_base == (first_block + 1) * BLOCK  # the squatted block passed over
        two, others = claim_block(folder, 4, 3_000_000_000 - 512)  # another base, half a block lower
        assert others.uid_base == (first_block + 2) * BLOCK  # not a block overlapping the first
        os.close(one)
        os.close(two)
    finally:
        squatter.kill()
        squatter.wait()
        shutil.rmtree(folder, ignore_errors=True)


def test_another_account_cannot_ask_even_where_it_can_reach_the_socket(launcher, tmp_path):
    refused = ask(launcher, "status", user="daemon")
    assert "cannot be reached: Permission denied" in refused["unavailable"]
    launcher.folder.chmod(0o755)  # mistakes of the machine's: the peer's uid is still checked
    launcher.socket.chmod(0o666)
    refused = ask(launcher, "status", user="daemon")
    assert "did not answer" in refused["unavailable"]
    assert ask(launcher, "status")["ready"]


def raw(launcher: Launcher, message: bytes) -> dict:
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(str(launcher.socket))  # as root, whom the launcher also answers
    try:
        connection.sendall(message)
        connection.shutdown(socket.SHUT_WR)
        connection.settimeout(30)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    finally:
        connection.close()
    _, header_size, _ = HEAD.unpack(answer[:HEAD.size])
    return json.loads(answer[HEAD.size:HEAD.size + header_size])


@pytest.mark.parametrize("message, said", [item[1:] for item in LAUNCHER_REQUESTS],
                         ids=[item[0] for item in LAUNCHER_REQUESTS])
def test_a_malformed_request_is_refused_saying_why_and_the_launcher_goes_on(launcher, message, said):
    answer = raw(launcher, message)
    assert said in answer["refused"], answer
    assert raw(launcher, request({"op": "status"}))["ready"]


def test_two_launchers_on_one_machine_share_no_account():
    first, second = Launcher(), Launcher()
    try:
        ranges = [ask(started, "status")["uids"] for started in (first, second)]
    finally:
        first.stop()
        second.stop()
    (low, high), (other_low, other_high) = sorted(ranges)
    assert high < other_low


def test_a_launcher_in_a_pid_namespace_of_its_own_leaves_a_live_launchers_builds_alone(tmp_path):
    """A launcher starting in a container sees no process of the host's: it must still tell the
    host launcher's cgroups (and the build running in them) from a dead one's, and leave them."""
    first = Launcher()
    second = None
    try:
        before = ask(first, "status")
        answers = []
        asker = threading.Thread(target=lambda: answers.append(
            ask(first, "build", source_file(tmp_path), "sleep 4; printf '\\0asm' > out.wasm")))
        asker.start()
        deadline = time.monotonic() + 30
        while not [found for found, uid in uids_running().items() if before["uids"][0] <= uid <= before["uids"][1]]:
            assert time.monotonic() < deadline, "the build never started"
            time.sleep(0.05)
        second = Launcher(namespace=True)  # its start-up sweeps the cgroups of launchers that are gone
        assert ask(second, "status")["ready"]
        asker.join()
        assert answers[0]["ok"], answers
        after = ask(first, "status")
        assert after["ready"] and (after["cgroup"], after["cgroup_remade"]) == (before["cgroup"], 0)
        # Nothing of the live launcher's removed (a launcher gone since, of another test, may be swept).
        said = second.kill()
        assert not [line for line in said.splitlines() if "removed the cgroup" in line
                    and Path(before["cgroup"]).name in line], said
    finally:
        first.stop()
        if second is not None and second.process.poll() is None:
            second.kill()


def test_a_launcher_killed_in_a_pid_namespace_is_swept_by_the_next_one_there(tmp_path):
    """SIGKILLed mid-build, it leaves its cgroup over all builds with a build's cgroup inside; the
    next launcher in another PID namespace starts, removes exactly those, and builds."""
    dead = Launcher(namespace=True)
    status = ask(dead, "status")
    threading.Thread(target=lambda: ask(dead, "build", source_file(tmp_path), "sleep 60"), daemon=True).start()
    deadline = time.monotonic() + 30
    while not any(child.is_dir() for folder in cgroup_folders(status["cgroup"]) for child in folder.iterdir()):
        assert time.monotonic() < deadline, "the build never started"
        time.sleep(0.05)
    dead.kill()
    assert cgroup_folders(status["cgroup"])  # left behind
    token = status["cgroup"].removeprefix("fuelboard-build-").split("-")[0]
    following = Launcher(namespace=True)
    try:
        assert ask(following, "status")["ready"]
        assert cgroup_folders(status["cgroup"]) == []
        assert not Path(f"/run/fuelboard-cgroup-owners/{token}.lock").exists()  # forgotten once swept
        assert ask(following, "build", source_file(tmp_path), "printf '\\0asm' > out.wasm")["ok"]
    finally:
        following.kill()
    # Removed by this launcher's start-up, or by another that started on the machine meanwhile (a
    # test run starts launchers in parallel, and any one sweeps every owner that is gone): which
    # one did it, the log of each says; that it is done, the cgroups and the owner's file say.


@pytest.mark.skipif(layout().version != 1, reason="one cgroup holds every controller under cgroup v2")
def test_a_launcher_killed_in_another_memory_cgroup_is_swept_whole_by_one_that_is_not(tmp_path):
    """Under cgroup v1 each controller has a hierarchy of its own, and a launcher's memory cgroup
    may lie elsewhere than the next one's: the next finds the dead one's cgroups in every
    hierarchy (its owner's file names where) and forgets the owner only once they are all gone."""
    elsewhere = layout().parents["memory"] / f"fuelboard-test-elsewhere-{uuid.uuid4().hex[:6]}"
    elsewhere.mkdir()
    try:
        dead = Launcher(memory_cgroup=elsewhere)
        status = ask(dead, "status")
        token = status["cgroup"].removeprefix("fuelboard-build-").split("-")[0]
        assert (elsewhere / status["cgroup"]).is_dir()
        dead.kill()
        following = Launcher()
        try:
            assert ask(following, "status")["ready"]
        finally:
            log = following.kill()
        # Swept whole by the time it is ready: by it, or by a launcher another test started meanwhile
        # (either says so in its log; which one is not this test's to know).
        assert not (elsewhere / status["cgroup"]).exists() and cgroup_folders(status["cgroup"]) == [], log
        assert not Path(f"/run/fuelboard-cgroup-owners/{token}.lock").exists()
    finally:
        elsewhere.rmdir()


def test_a_cgroup_over_all_builds_removed_from_outside_is_made_again_before_the_next_build(launcher, tmp_path):
    """Removed by hand, or by a launcher of an older release: the status, or the next build, makes
    it again, and the builds are confined in it."""
    first = ask(launcher, "status")["cgroup"]
    for folder in cgroup_folders(first):
        folder.rmdir()
    status = ask(launcher, "status")
    assert status["ready"] and status["cgroup_remade"] == 1 and status["cgroup"] != first
    for folder in cgroup_folders(status["cgroup"]):
        folder.rmdir()
    inside = []

    def watch():
        deadline = time.monotonic() + 30
        while not inside and time.monotonic() < deadline:
            remade = [folder for parent in layout().parents.values() for folder in parent.glob(
                f"{status['cgroup'].rsplit('-', 1)[0]}-*") if folder.name not in (first, status["cgroup"])]
            inside.extend(child.name for folder in remade for child in folder.iterdir() if child.is_dir())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    built = ask(launcher, "build", source_file(tmp_path), "sleep 2; printf '\\0asm' > out.wasm")
    watcher.join()
    assert (built["ok"], built["confinement"]) == (True, "confined"), built
    assert inside and inside[0].startswith("fuelboard-build-")  # the build's own cgroup, in the new one
    assert ask(launcher, "status")["cgroup_remade"] == 2


def test_a_build_whose_asker_goes_away_is_killed_at_once(launcher, tmp_path):
    """A worker killed mid-build must not leave its build running, holding a slot and the machine."""
    header = {**BUILD, "build": "sleep 60 & sleep 60 & wait", "limits": {"timeout": 120}}
    source = Path(source_file(tmp_path)).read_bytes()
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(str(launcher.socket))
    connection.sendall(request(header, source))
    first, last = raw(launcher, request({"op": "status"}))["uids"]

    def build_processes() -> int:
        count = 0
        for entry in Path("/proc").iterdir():
            try:
                uid = int(next(line for line in (entry / "status").read_text().splitlines()
                               if line.startswith("Uid:")).split()[1])
            except (OSError, StopIteration, ValueError):
                continue
            count += first <= uid <= last
        return count

    deadline = time.monotonic() + 30
    while build_processes() < 3:
        assert time.monotonic() < deadline, "the build never started"
        time.sleep(0.1)
    connection.close()
    deadline = time.monotonic() + 10
    while build_processes():
        assert time.monotonic() < deadline, "the build outlived its asker"
        time.sleep(0.1)
    assert raw(launcher, request({"op": "status"}))["ready"]


def test_the_launcher_refuses_to_start_where_it_cannot_do_its_job(tmp_path):
    def start(*command: str, folder: Path, user: str | None = None) -> subprocess.CompletedProcess:
        prefix = ["/usr/sbin/runuser", "-u", user, "--"] if user else []
        return subprocess.run([*prefix, *command, "--socket", str(folder / "launcher.sock"), "--client-user", "nobody"],
                              capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"}, cwd="/")

    folder = Path(tempfile.mkdtemp(prefix="fuelboard-launcher-"))
    copy = Path(tempfile.mkdtemp(prefix="fuelboard-code-"))
    try:
        launcher = str(ROOT / "scripts" / "build-launcher")
        as_nobody = start(launcher, folder=folder, user="nobody")
        assert as_nobody.returncode == 2 and "must run as root" in as_nobody.stderr
        folder.chmod(0o777)
        open_folder = start(launcher, folder=folder)
        assert open_folder.returncode == 2 and "must be root's and written by no one else" in open_folder.stderr
        folder.chmod(0o750)
        # The same code, but a file of it writable by its group: root will not run it.
        for part in ("engine", "lib", "scripts"):
            shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "tests"))
        copy.chmod(0o755)
        (copy / "engine" / "builds" / "run.py").chmod(0o664)
        changeable = start(str(copy / "scripts" / "build-launcher"), folder=folder)
        assert changeable.returncode == 2, changeable.stderr
        assert "refusing to run as root code that another account could change" in changeable.stderr
        assert "run.py may be written by its group or by everyone" in changeable.stderr
        # The sources are fine, but Python would read a compiled copy someone else may write.
        (copy / "engine" / "builds" / "run.py").chmod(0o644)
        subprocess.run(["/usr/bin/python3", "-m", "py_compile", str(copy / "engine" / "builds" / "run.py")], check=True)
        compiled = next((copy / "engine" / "builds" / "__pycache__").glob("run.*.pyc"))
        compiled.chmod(0o666)
        changeable = start(str(copy / "scripts" / "build-launcher"), folder=folder)
        assert changeable.returncode == 2 and f"{compiled.name} may be written by its group" in changeable.stderr
        assert "Traceback" not in as_nobody.stderr + open_folder.stderr + changeable.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(copy, ignore_errors=True)


def test_a_missing_launcher_is_a_sandbox_that_cannot_be_had(tmp_path):
    from engine.builds import BuildLimits, SandboxUnavailable
    from engine.builds.remote import build_remotely

    with pytest.raises(SandboxUnavailable, match="cannot be reached: No such file or directory"):
        build_remotely(str(tmp_path / "none.sock"), b"", install="", build="true", module_path="out.wasm",
                       limits=BuildLimits(timeout=10), log_limit=4096)


def test_a_stop_signal_handed_to_a_handlers_thread_still_stops_the_launcher():
    """The kernel may hand a process's SIGTERM to any of its threads; Python acts on it in the
    main thread, which must not sit in accept() for good. Here it is sent to a handler's thread
    (one waiting on a request that never comes) on purpose."""
    import ctypes
    import platform

    if platform.machine() != "x86_64":
        pytest.skip("tgkill's number is x86_64's")
    started = Launcher()
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(str(started.socket))  # a handler now waits on its request
    try:
        pid = started.process.pid
        deadline = time.monotonic() + 10
        while len(threads := sorted(int(tid) for tid in os.listdir(f"/proc/{pid}/task"))) < 2:
            assert time.monotonic() < deadline, "no handler thread started"
            time.sleep(0.02)
        handler = next(tid for tid in threads if tid != pid)
        tgkill = 234  # x86_64's tgkill(2): a signal to one thread
        assert ctypes.CDLL(None, use_errno=True).syscall(tgkill, pid, handler, signal.SIGTERM) == 0
        started.process.communicate(timeout=10)  # it stops within a second or so
        assert started.process.returncode == 0
    finally:
        connection.close()
        if started.process.poll() is None:
            started.stop()
        shutil.rmtree(started.folder, ignore_errors=True)


def test_a_folder_of_the_machines_locks_others_may_write_is_not_trusted(tmp_path):
    """Whoever can write where owners keep their files could forge one (naming folders to sweep)
    or remove a live owner's: such a folder is refused, saying why."""
    from engine.builds import owners
    from engine.builds.accounts import NoFreeBlock

    folder = tmp_path / "owners"
    folder.mkdir(mode=0o700)
    assert owners.root_only_problem(folder) is None
    folder.chmod(0o777)
    refused = f"{folder} must be root's and writable by root alone (it is uid 0, mode 777)"
    assert owners.root_only_problem(folder) == refused
    with pytest.raises(NoFreeBlock, match="writable by root alone"):
        claim_block(folder, 4, 200_000)
    os.chown(folder, NOBODY, -1)
    folder.chmod(0o700)
    assert "it is uid 65534, mode 700" in owners.root_only_problem(folder)
