"""Packing a submission and building it in the sandbox, including hostile builds (no database).

Real bubblewrap builds: `make check` leaves them out, `make test` runs them."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from engine import builds as build_module
from engine.builds import BuildLimits, SandboxUnavailable, SourceTooLarge, build_submission, pack_folder

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LIMITS = BuildLimits(timeout=20, cpu_seconds=60, memory_bytes=2 << 30, file_bytes=64 << 20, processes=64,
                     disk_bytes=64 << 20)


def make_folder(root):
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.rs").write_text("fn main() {}\n")
    (root / "target" / "release").mkdir(parents=True)
    (root / "target" / "release" / "big.bin").write_bytes(b"x" * 1000)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def names(archive: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        return sorted(tar.getnames())


def empty_source(tmp_path) -> bytes:
    folder = tmp_path / f"submission-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    return pack_folder(folder, max_bytes=10**6)


def build(source: bytes, command: str, *, limits: BuildLimits = LIMITS, **options):
    defaults = dict(install="", build=command, module_path="out.wasm", limits=limits, log_limit=65536,
                    path="/usr/bin:/bin")
    return build_submission(source, **{**defaults, **options})


# --- packing ---------------------------------------------------------------------------------------


def test_packing_leaves_out_build_products_and_version_control(tmp_path):
    archive = pack_folder(make_folder(tmp_path / "sub"), max_bytes=10**6)
    assert names(archive) == ["source", "source/src", "source/src/main.rs"]


def test_packing_is_byte_for_byte_reproducible(tmp_path):
    folder = make_folder(tmp_path / "sub")
    first = pack_folder(folder, max_bytes=10**6)
    time.sleep(1.1)
    os.utime(folder / "src" / "main.rs")
    assert pack_folder(folder, max_bytes=10**6) == first


def test_packing_refuses_a_folder_over_the_cap(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "noise.bin").write_bytes(os.urandom(200_000))
    with pytest.raises(SourceTooLarge):
        pack_folder(folder, max_bytes=100_000)


# --- the sandbox -------------------------------------------------------------------------------------


def test_the_sandbox_is_available_here():
    """The suite's own machine has bubblewrap (make test installs it): builds below are sandboxed."""
    assert build_module.sandbox_problem() is None


def test_a_build_sees_a_clean_environment_and_produces_the_module(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "do-not-leak")
    result = build(empty_source(tmp_path), 'env | sort; id -u; printf "\\0asm" > out.wasm')
    assert result.ok and result.sandboxed
    assert result.module == b"\0asm"
    assert "SECRET_TOKEN" not in result.log
    assert "CARGO_NET_OFFLINE=true" in result.log and "PATH=/usr/bin:/bin" in result.log
    assert "\n0\n" not in result.log  # not root


def test_a_module_that_is_never_built_is_build_failed(tmp_path):
    result = build(empty_source(tmp_path), "echo nothing here")
    assert (result.ok, result.message) == (False, "the build did not produce the module out.wasm")


def test_install_runs_before_build_in_the_same_root(tmp_path):
    result = build(empty_source(tmp_path), "cat prepared > out.wasm", install="printf ready > prepared")
    assert result.ok and result.module == b"ready"
    assert "$ printf ready > prepared\n$ cat prepared > out.wasm" in result.log


def test_a_garbage_archive_is_build_failed_not_an_exception():
    result = build(b"not a tarball", "true")
    assert not result.ok
    assert result.message.startswith("the submission could not be unpacked")


def test_an_archive_with_a_link_out_of_the_tree_is_refused():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        link = tarfile.TarInfo("source/escape")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    result = build(buffer.getvalue(), "cat escape > out.wasm")
    assert not result.ok
    assert "could not be unpacked" in result.message


def test_without_the_sandbox_builds_are_refused_unless_allowed(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(shutil, "which", lambda name: None)  # bwrap is not on this machine
    build_module.sandbox_problem.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="bubblewrap \\(bwrap\\) is not installed; refusing to build"):
            build(empty_source(tmp_path), 'printf "\\0asm" > out.wasm')
        with caplog.at_level(logging.WARNING, logger="engine.builds"):
            result = build(empty_source(tmp_path), 'printf "\\0asm" > out.wasm', allow_unsandboxed=True)
        assert result.ok and not result.sandboxed
        assert "building WITHOUT a sandbox" in caplog.text
    finally:
        build_module.sandbox_problem.cache_clear()


# --- hostile builds ----------------------------------------------------------------------------------
# Each: what the build tries, and what must hold afterwards on the host.


def test_hostile_build_reading_outside_its_directory(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the-host-secret")
    secret.chmod(0o644)
    project_database = os.path.abspath("var/db.sqlite3")
    result = build(empty_source(tmp_path),
                   f"cat {secret} {project_database} /etc/shadow /root/.bashrc; ls /work /home; exit 1")
    assert not result.ok
    assert "the-host-secret" not in result.log
    assert "No such file or directory" in result.log


def test_hostile_build_writing_outside_its_directory(tmp_path):
    target = tmp_path / "planted.txt"
    tmp_path.chmod(0o777)
    result = build(empty_source(tmp_path),
                   f"echo planted > {target}; echo x > /usr/planted; echo x > /etc/planted; exit 1")
    assert not result.ok
    assert not target.exists()
    assert not os.path.exists("/usr/planted") and not os.path.exists("/etc/planted")


def test_hostile_build_opening_a_socket(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    accepted = []
    build_done = threading.Event()

    def accept() -> None:
        while not build_done.is_set() and not accepted:
            try:
                accepted.append(listener.accept())
            except OSError:
                pass

    watcher = threading.Thread(target=accept)
    watcher.start()
    script = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=3)'"
    result = build(empty_source(tmp_path), f"{script}; {script.replace('127.0.0.1', '93.184.216.34')}; exit 1")
    build_done.set()
    watcher.join()
    listener.close()
    assert not result.ok
    assert accepted == []
    assert "Connection refused" in result.log or "unreachable" in result.log


def test_hostile_build_fork_bombing(tmp_path):
    marker = f"forkbomb-{uuid.uuid4().hex[:8]}"
    result = build(empty_source(tmp_path), f"bomb() {{ sleep 30 {marker} 2>/dev/null & bomb & }}; bomb; sleep 60",
                   limits=BuildLimits(**{**LIMITS.__dict__, "timeout": 3}))
    assert not result.ok
    assert "timed out" in result.message or "stopped" in result.message or "failed" in result.message
    time.sleep(0.5)
    survivors = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert survivors == [], "processes of the build outlived it"


def test_hostile_build_filling_the_disk(tmp_path):
    before = shutil.disk_usage(tmp_path).free
    result = build(empty_source(tmp_path),
                   "i=0; while dd if=/dev/zero of=fill$i bs=1M count=16 2>/dev/null; do i=$((i+1)); done; exit 1")
    assert not result.ok
    assert shutil.disk_usage(tmp_path).free > before - (32 << 20)  # capped at the tmpfs size, not the host disk


def test_hostile_build_writing_one_huge_file(tmp_path):
    result = build(empty_source(tmp_path), "dd if=/dev/zero of=out.wasm bs=1M count=200",
                   limits=BuildLimits(**{**LIMITS.__dict__, "file_bytes": 8 << 20}))
    assert not result.ok
    assert "File size limit exceeded" in result.log or "failed" in result.message


def test_hostile_build_running_forever(tmp_path):
    started = time.monotonic()
    result = build(empty_source(tmp_path), "while :; do :; done", limits=BuildLimits(**{**LIMITS.__dict__,
                                                                                        "timeout": 2}))
    assert result.message == "build command timed out after 2 s"
    assert time.monotonic() - started < 20


def test_hostile_build_exhausting_memory(tmp_path):
    result = build(empty_source(tmp_path), "python3 -c 'x = bytearray(4 << 30)'",
                   limits=BuildLimits(**{**LIMITS.__dict__, "memory_bytes": 512 << 20}))
    assert not result.ok
    assert "MemoryError" in result.log


# --- what a build can read of the scorer, and where it can write --------------------------------------

SCORER_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engine.builds import BuildLimits, build_submission
source = open(sys.argv[2], "rb").read()
result = build_submission(source, install="", build=sys.argv[3], module_path="out.wasm",
                          limits=BuildLimits(timeout=20, processes=64, disk_bytes=64 << 20), log_limit=1 << 20,
                          path="/usr/bin:/bin")
print(json.dumps({"ok": result.ok, "message": result.message, "log": result.log,
                  "module": (result.module or b"").decode("latin-1")}))
"""

# Everything of every process the build can see, and its own environment, made into its module.
SNOOP = ("for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do echo \"== $f\"; tr '\\0' ' ' < $f; echo; done > "
         "out.wasm; "
         "env >> out.wasm; cat out.wasm")


def test_nothing_of_the_scorers_environment_or_command_line_is_readable_in_a_build(tmp_path):
    """Run as a scorer would be, with a secret in its environment and on its command line."""
    marker = f"secret-{uuid.uuid4().hex}"
    source = tmp_path / "source.tar.gz"
    source.write_bytes(empty_source(tmp_path))
    environment = {**os.environ, "SECRET_KEY": marker, "DATABASE_URL": f"postgres://fuel:{marker}@db/fuel"}
    done = subprocess.run([sys.executable, "-c", SCORER_SCRIPT, str(ROOT), str(source), SNOOP, f"--token={marker}"],
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ok"], result
    assert "== /proc/1/environ" in result["module"]  # the build did look: bwrap is pid 1 in there
    assert marker not in result["module"] and marker not in result["log"]
    assert "SECRET_KEY" not in result["module"] and "DATABASE_URL" not in result["module"]


def test_every_writable_place_of_a_build_shares_one_capped_tmpfs(tmp_path):
    """/tmp, $HOME, the build root, / and /dev: 4 MiB files until nothing more fits anywhere."""
    script = ("n=0; for d in /tmp \"$HOME\" . / /dev /dev/shm /source; do i=0; "
              "while dd if=/dev/zero of=\"$d/fill$i\" bs=1M count=4 2>/dev/null; do i=$((i+1)); n=$((n+1)); done; "
              "done; "
              "echo \"written: $n\"; exit 1")
    limits = BuildLimits(**{**LIMITS.__dict__, "disk_bytes": 32 << 20})
    before = shutil.disk_usage(tmp_path).free
    result = build(empty_source(tmp_path), script, limits=limits)
    written = int(result.log.split("\nwritten: ")[1].split()[0]) * (4 << 20)
    assert written <= 32 << 20
    assert written >= 16 << 20  # the build root itself is usable
    assert shutil.disk_usage(tmp_path).free > before - (16 << 20)


def tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_source_that_unpacks_past_the_cap_is_build_failed_before_anything_runs(tmp_path, monkeypatch):
    bomb = tar_gz([("source/zeros.bin", bytes(40 << 20))])
    assert len(bomb) < 100_000
    limits = BuildLimits(**{**LIMITS.__dict__, "unpacked_bytes": 8 << 20})
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the host unpacks
    result = build(bomb, "touch ran; exit 1", limits=limits)
    assert (result.ok, result.message) == (False, "the submission could not be unpacked")
    assert "unpacks to more than 8,388,608 bytes" in result.detail
    assert "$ touch ran" not in result.log
    assert list(tmp_path.iterdir()) == []  # nothing of it is left on the host


def test_a_source_with_too_many_entries_is_build_failed(tmp_path):
    many = tar_gz([(f"source/{index}.txt", b"") for index in range(300)])
    result = build(many, "true", limits=BuildLimits(**{**LIMITS.__dict__, "source_entries": 100}))
    assert result.message == "the submission could not be unpacked"
    assert "more than 100 entries" in result.detail


@pytest.mark.parametrize("script, message", [
    ("ln -s /proc/1/environ out.wasm", "is a symbolic link or lies under one"),
    ("mkdir real; printf '\\0asm' > real/out.wasm; ln -s real target; ln -s target/out.wasm out.wasm",
     "is a symbolic link or lies under one"),
    ("mkfifo out.wasm", "is not a regular file"),
    ("mkdir out.wasm", "is not a regular file"),
], ids=["link-to-proc", "link-chain", "fifo", "directory"])
def test_a_module_that_is_not_a_regular_file_reached_without_links_is_refused(tmp_path, script, message):
    result = build(empty_source(tmp_path), script)
    assert not result.ok
    assert message in result.message


def test_a_module_under_a_linked_folder_is_refused(tmp_path):
    result = build(empty_source(tmp_path), "mkdir real; printf '\\0asm' > real/m.wasm; ln -s real target",
                   module_path="target/m.wasm")
    assert "is a symbolic link or lies under one" in result.message


def test_a_process_left_behind_cannot_swap_the_module_for_a_link(tmp_path):
    script = "printf '\\0asm' > out.wasm; (sleep 0.3; rm -f out.wasm; ln -s /proc/1/environ out.wasm) & sleep 0.1"
    result = build(empty_source(tmp_path), script)
    assert result.ok and result.module == b"\0asm"


def test_a_module_over_the_size_cap_is_refused_without_being_kept(tmp_path):
    result = build(empty_source(tmp_path), "head -c 3000000 /dev/zero > out.wasm",
                   limits=BuildLimits(**{**LIMITS.__dict__, "module_bytes": 1 << 20}))
    assert (result.ok, result.module) == (False, None)
    assert result.message == "the module out.wasm is larger than the 1,048,576-byte limit"


def private_accounts(tmp_path, slots: int):
    """Slots of this test's own: their own lock folder, and uids no other build uses (a slot's
    uid is claimed by its lock, and the builds of other tests running at once claim the
    machine's shared slots from the default base)."""
    return build_module.BuildAccounts(lock_dir=tmp_path / "slots", slots=slots,
                                      uid_base=2_100_000_000 + (os.getpid() % 10_000) * 10)


@pytest.mark.skipif(os.geteuid() != 0, reason="build accounts per slot are for scorers run as root")
def test_one_build_holding_processes_cannot_make_a_concurrent_build_fail(tmp_path):
    """RLIMIT_NPROC counts a uid's processes machine-wide: each build has a uid of its own."""
    limits = BuildLimits(**{**LIMITS.__dict__, "processes": 40, "timeout": 20})
    hog = "i=0; while [ $i -lt 200 ]; do sleep 8 & i=$((i+1)); done 2>/dev/null; sleep 8; exit 1"
    innocent = "sleep 2; for i in $(seq 20); do sleep 1 & done; wait; printf '\\0asm' > out.wasm"
    results = {}
    accounts = private_accounts(tmp_path, 4)

    def run(name, script):
        results[name] = build(empty_source(tmp_path), script, limits=limits, accounts=accounts)

    threads = [threading.Thread(target=run, args=item) for item in (("hog", hog), ("innocent", innocent))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results["innocent"].ok, results["innocent"].log
    assert results["innocent"].module == b"\0asm"


@pytest.mark.skipif(os.geteuid() != 0, reason="build accounts per slot are for scorers run as root")
def test_each_concurrent_build_runs_as_its_own_uid_and_waits_for_a_free_slot(tmp_path):
    accounts = private_accounts(tmp_path, 2)
    uids = []

    def run():
        result = build(empty_source(tmp_path), "id -u; sleep 1; printf '\\0asm' > out.wasm", accounts=accounts)
        assert result.ok
        uids.append(int(result.log.split("\n")[1]))

    threads = [threading.Thread(target=run) for _ in range(3)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(set(uids)) == [accounts.uid_base, accounts.uid_base + 1]
    assert time.monotonic() - started >= 2  # the third build waited for a slot


def test_a_sparse_giant_is_refused_before_it_is_compressed(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    with open(folder / "sparse.bin", "wb") as stream:
        stream.truncate(4 << 30)
    started = time.monotonic()
    with pytest.raises(SourceTooLarge, match="add up to 4,294,967,296 bytes"):
        pack_folder(folder, max_bytes=1 << 20, max_unpacked_bytes=64 << 20)
    assert time.monotonic() - started < 2


def test_a_build_cannot_reach_into_the_driver_or_hold_memory_outside_its_caps(tmp_path):
    """The driver is not dumpable (no /proc/<pid>/mem, ptrace or pidfd_getfd into it) and the
    calls that hold memory outside the tmpfs are refused."""
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "reach.py").write_text(
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    try:\n"
        "        for fd in os.listdir(f'/proc/{pid}/fd'):\n"
        "            if int(fd) > 2 and os.readlink(f'/proc/{pid}/fd/{fd}').startswith('pipe:'): print('pipe held by', "
        "pid)\n"
        "    except OSError: pass\n"
        "for pid in ['1']:  # the driver\n"
        "    for name in ('mem', 'fd/3', 'fd/4'):\n"
        "        try:\n"
        "            open(f'/proc/{pid}/{name}', 'r+b'); print('opened', pid, name)\n"
        "        except OSError as error: pass\n"
        "    try:\n"
        "        pidfd = os.pidfd_open(int(pid))\n"
        "        for target in range(3, 12):\n"
        "            if libc.syscall(438, pidfd, target, 0) >= 0: print('took', pid, target)\n"
        "    except OSError: pass\n"
        "    if libc.ptrace(16, int(pid), 0, 0) == 0: print('attached', pid)\n"
        "for call in ('memfd', 'shm'):\n"
        "    try:\n"
        "        os.memfd_create('x') if call == 'memfd' else None\n"
        "        if call == 'shm' and libc.shmget(0, 1 << 20, 0o1600) >= 0: print('shm allowed')\n"
        "        if call == 'memfd': print('memfd allowed')\n"
        "    except OSError as error: print(call, 'refused:', error.strerror)\n"
    )
    result = build(pack_folder(folder, max_bytes=10**6), "python3 reach.py; ln -s /proc/1/environ out.wasm")
    assert "opened" not in result.log and "took" not in result.log and "attached" not in result.log
    assert "pipe held" not in result.log
    assert "memfd refused: Operation not permitted" in result.log and "shm allowed" not in result.log
    assert not result.ok and "symbolic link" in result.message


def tar_members(members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None, *,
                pax: dict | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            payload = (data or {}).get(member.name)
            if pax:
                member.pax_headers = pax
            if payload is not None:
                member.size = len(payload)
                archive.addfile(member, io.BytesIO(payload))
            else:
                archive.addfile(member)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    if kind == tarfile.DIRTYPE:
        info.mode = 0o755
    return info


@pytest.mark.parametrize("members, fragment", [
    # up -> .. and r -> up/../.. look inside as text, and resolve to the host's /.
    ([member("source", tarfile.DIRTYPE), member("source/up", tarfile.SYMTYPE, ".."),
      member("source/r", tarfile.SYMTYPE, "up/../.."), member("source/shadow", tarfile.LNKTYPE, "source/r/etc/shadow")],
     "a link must be relative and point below its own folder"),
    ([member("source", tarfile.DIRTYPE), member("source/copy", tarfile.LNKTYPE, "etc/hostname")],
     "a hard link must name a file earlier in the archive"),
    ([member("source", tarfile.DIRTYPE), member("source/dir", tarfile.SYMTYPE, "sub"), member("source/dir/x")],
     "lies under a file or a link"),
], ids=["link-chain-to-root", "hard-link-to-host", "file-under-link"])
def test_links_in_a_source_never_reach_outside_it(tmp_path, members, fragment):
    result = build(tar_members(members, {"source/dir/x": b"x"}), "cat shadow copy > out.wasm")
    assert result.message == "the submission could not be unpacked"
    assert fragment in result.detail


def test_a_deep_source_is_refused_quickly():
    path = "source/" + "/".join(["d"] * 100)
    started = time.monotonic()
    result = build(tar_members([member(path + "/x")], {path + "/x": b"x"}), "true")
    assert "longer or deeper than an archive may hold" in result.detail
    assert time.monotonic() - started < 5


def test_a_header_that_claims_a_gigabyte_stops_at_the_cap():
    bomb = tar_members([member("source/x")], {"source/x": b"x"}, pax={"comment": "z" * (16 << 20)})
    result = build(bomb, "true", limits=BuildLimits(**{**LIMITS.__dict__, "unpacked_bytes": 1 << 20,
                                                       "source_entries": 100}))
    assert "an extended header of 16,777,234 bytes" in result.detail  # refused before it is read


def test_a_build_can_make_no_namespace_and_mount_nothing(tmp_path):
    """A user namespace of its own would let a build mount a fresh tmpfs past its disk cap:
    `unshare -Urm` then `mount -t tmpfs` must fail, and so must a raw clone with a namespace
    flag, setns and clone3 (which the C library then replaces with a checked clone)."""
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "spawn.py").write_text(
        "import ctypes, os, threading, subprocess\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "pid = libc.syscall(56 if os.uname().machine == 'x86_64' else 220, 0x10000000 | 17, 0, 0, 0, 0)\n"
        "if pid == 0: os._exit(0)\n"
        "print('clone NEWUSER:', 'made' if pid > 0 else os.strerror(ctypes.get_errno()))\n"
        "print('clone3:', libc.syscall(435, 0, 0) >= 0 or os.strerror(ctypes.get_errno()))\n"
        "print('setns:', libc.setns(os.open('/proc/self/ns/mnt', os.O_RDONLY), 0) == 0 or "
        "os.strerror(ctypes.get_errno()))\n"
        "thread = threading.Thread(target=print, args=('a thread runs',)); thread.start(); thread.join()\n"
        "print(subprocess.run(['echo', 'a child runs'], capture_output=True, text=True).stdout.strip())\n"
    )
    script = ("unshare -Urm sh -c 'mount -t tmpfs -o size=1g none /tmp && "
              "dd if=/dev/zero of=/tmp/fill bs=1M count=128 && echo mounted=$((6*7))'; "
              "unshare -U true && echo unshared=$((6*7)); python3 spawn.py; exit 1")
    result = build(pack_folder(folder, max_bytes=10**6), script)
    assert "mounted=42" not in result.log and "unshared=42" not in result.log
    assert "unshare failed: Operation not permitted" in result.log
    assert "clone NEWUSER: Operation not permitted" in result.log
    assert "clone3: Function not implemented" in result.log
    assert "setns: Operation not permitted" in result.log
    assert "a thread runs" in result.log and "a child runs" in result.log  # ordinary work is unaffected


def test_the_seccomp_filter_refuses_what_it_lists_on_every_architecture():
    from engine.builds.seccomp import CLONE, CLONE3, DENIED_SYSCALLS, seccomp_filter

    for machine, calls in DENIED_SYSCALLS.items():
        assert {"unshare", "setns", "mount", "fsmount", "ptrace", "memfd_create"} <= set(calls)
        program = seccomp_filter(machine)
        assert len(program) % 8 == 0 and len(program) // 8 < 256  # classic BPF jumps are 8-bit
        assert CLONE[machine] not in calls.values() and CLONE3[machine] not in calls.values()
    assert seccomp_filter("sparc") is None


# --- a cgroup of its own ------------------------------------------------------------------------------


def test_builds_get_a_cgroup_of_their_own_here():
    from engine.builds.cgroups import cgroup_problem

    assert cgroup_problem() is None


def test_a_builds_processes_together_cannot_hold_more_than_its_total_memory(tmp_path):
    """Four processes of 100 MB each, every one well under the per-process cap: together they
    pass the build's 256 MiB, and the build fails saying so."""
    limits = BuildLimits(**{**LIMITS.__dict__, "total_memory_bytes": 256 << 20, "disk_bytes": 512 << 20})
    hold = "python3 -c 'x = bytearray(100 << 20); import time; time.sleep(4)'"
    result = build(empty_source(tmp_path), f"for i in 1 2 3 4; do {hold} & done; wait; exit 1", limits=limits)
    assert result.message == ("the build ran out of memory: its processes and files may hold 268,435,456 bytes "
                              "together")


def test_files_in_a_builds_tmpfs_count_against_its_memory(tmp_path):
    limits = BuildLimits(**{**LIMITS.__dict__, "total_memory_bytes": 128 << 20, "disk_bytes": 512 << 20,
                            "file_bytes": 512 << 20})
    result = build(empty_source(tmp_path), "dd if=/dev/zero of=fill bs=1M count=300; exit 1", limits=limits)
    assert "ran out of memory" in result.message
    assert "memory at its peak: 134,217,728 bytes of 134,217,728" in result.log


TCP_LIMIT = "memory.kmem.tcp.limit_in_bytes"


def test_each_build_has_its_cgroup_with_its_limits_and_it_is_removed_after(tmp_path):
    from engine.builds.cgroups import PREFIX, layout, owner_token

    parents = layout().parents
    mine = f"{PREFIX}{owner_token()}-*"  # this process's cgroups
    seen: dict[str, str] = {}
    done = threading.Event()

    def watch():
        while not done.is_set() and len(seen) < len(parents):
            for controller, parent in parents.items():
                for folder in parent.glob(mine):
                    limit_file = {"memory": "memory.limit_in_bytes", "pids": "pids.max", "cpu": "cpu.cfs_quota_us",
                                  "unified": "memory.max"}[controller]
                    try:
                        if (folder / "cgroup.procs").read_text().split():
                            seen[controller] = (folder / limit_file).read_text().strip()
                            if (folder / TCP_LIMIT).exists():  # v1 counts socket buffers apart
                                seen["tcp"] = (folder / TCP_LIMIT).read_text().strip()
                    except OSError:
                        pass
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    limits = BuildLimits(**{**LIMITS.__dict__, "total_memory_bytes": 300 << 20, "processes": 50, "cpus": 1.5})
    try:
        result = build(empty_source(tmp_path), "sleep 2; touch out.wasm", limits=limits)
    finally:
        done.set()
        watcher.join()
    assert result.ok, result.log
    expected = {"memory": str(300 << 20), "pids": "50", "cpu": "150000", "unified": str(300 << 20),
                "tcp": str(64 << 20)}  # v1's separate cap on socket buffers: a quarter, at most 64 MiB
    tcp = ["tcp"] if "memory" in parents and (parents["memory"] / TCP_LIMIT).exists() else []
    assert seen == {controller: expected[controller] for controller in [*parents, *tcp]}
    assert [folder for parent in parents.values() for folder in parent.glob(mine)] == []


SPIN = """
import os, time
def spin(until):
    while time.monotonic() < until:
        pass
until = time.monotonic() + 3
children = [os.fork() for _ in range(2)]
if 0 in children:
    spin(until)
    os._exit(0)
for child in children:
    os.waitpid(child, 0)
times = os.times()
print("cpu seconds:", round(times.children_user + times.children_system, 2))
"""


def test_a_builds_processes_together_get_their_share_of_the_processors_and_no_more(tmp_path):
    """Two processes spinning for 3 s would use 6 s of processor time on two free cores (or 3 on
    one): held to half a processor, the build gets about 1.5 s, and its log says it was held back."""
    folder = tmp_path / "spinner"
    folder.mkdir()
    (folder / "spin.py").write_text(SPIN)
    limits = BuildLimits(**{**LIMITS.__dict__, "cpus": 0.5})
    result = build(pack_folder(folder, max_bytes=10**6), "python3 spin.py; exit 1", limits=limits)
    used = float(result.log.split("cpu seconds: ", 1)[1].split()[0])
    assert 0.5 < used < 2.0, result.log
    assert "held back" in result.log and "by its share of the processors (0.5)" in result.log


KEYRING_SCORER = """
import ctypes, json, sys
sys.path.insert(0, sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
x86 = __import__("os").uname().machine == "x86_64"
KEYCTL, ADD_KEY = (250, 248) if x86 else (219, 217)
libc.syscall(KEYCTL, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: a session keyring, as a service or a login has
secret = b"scorer-token-" + sys.argv[3].encode()
assert libc.syscall(ADD_KEY, b"user", b"scorer-secret", secret, len(secret), -3) > 0
from engine.builds import BuildLimits, build_submission
source = open(sys.argv[2], "rb").read()
probe = ("import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
         f"found = libc.syscall({KEYCTL}, 0, -3, 0); "  # KEYCTL_GET_KEYRING_ID of the session keyring
         "print('keyring:', found if found >= 0 else os.strerror(ctypes.get_errno())); "
         f"print('add_key:', libc.syscall({ADD_KEY}, b'user', b'left', b'x', 1, -3) >= 0 "
         "or os.strerror(ctypes.get_errno()))")
result = build_submission(source, install="", build=f"python3 -c \\"{probe}\\"; exit 1", module_path="out.wasm",
                          limits=BuildLimits(timeout=20, processes=64, disk_bytes=64 << 20), log_limit=1 << 20,
                          path="/usr/bin:/bin")
buf = ctypes.create_string_buffer(4096)
print(json.dumps({"log": result.log, "keys": libc.syscall(KEYCTL, 11, -3, buf, 4096)}))
"""


def test_a_build_cannot_reach_the_scorers_kernel_keyring(tmp_path):
    """A scorer run as a service or from a login has a session keyring, which every process it
    starts inherits whatever its uid: a build must neither read it nor leave keys in it."""
    marker = uuid.uuid4().hex
    source = tmp_path / "source.tar.gz"
    source.write_bytes(empty_source(tmp_path))
    done = subprocess.run([sys.executable, "-c", KEYRING_SCORER, str(ROOT), str(source), marker],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert "keyring: Operation not permitted" in report["log"]
    assert "add_key: Operation not permitted" in report["log"]
    assert marker not in report["log"]
    assert report["keys"] == 4  # the session keyring still holds exactly its one key (a 4-byte id)


def test_a_build_has_no_pty_and_no_shared_memory_folder(tmp_path):
    """A pty's buffers are kernel memory no cgroup counts, and the host's pty pool is shared: a
    build's /dev holds null, zero, full, random and urandom, nothing else."""
    script = ("python3 -c 'import pty; pty.openpty()' 2>&1 | tail -1; ls /dev; "
              "head -c 3 /dev/urandom | wc -c; echo quiet > /dev/null && echo devices-work; exit 1")
    result = build(empty_source(tmp_path), script)
    assert "out of pty devices" in result.log
    listing = result.log.split("out of pty devices\n", 1)[1].split("\n3\n", 1)[0].split()
    assert listing == ["fd", "full", "null", "random", "stderr", "stdin", "stdout", "urandom", "zero"]
    assert "devices-work" in result.log


UNCONFINED_SCORER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engine.builds import BuildLimits, SandboxUnavailable, build_submission
source = open(sys.argv[2], "rb").read()
options = dict(install="", build="printf '\\\\0asm' > out.wasm", module_path="out.wasm",
               limits=BuildLimits(timeout=20, processes=64, disk_bytes=64 << 20), log_limit=1 << 16,
               path="/usr/bin:/bin")
try:
    build_submission(source, **options)
    refused = None
except SandboxUnavailable as error:
    refused = str(error)
result = build_submission(source, allow_unconfined=True, **options)
print(json.dumps({"refused": refused, "ok": result.ok, "confinement": result.confinement}))
"""


def test_a_scorer_that_is_not_root_refuses_to_build_unless_unconfined_builds_are_allowed(tmp_path):
    """Not root, a build can have no account and no cgroup of its own: refused, with the way out;
    allowed on a development machine, it runs in the sandbox and says it was unconfined."""
    state = Path(tempfile.mkdtemp(prefix="fuelboard-unconfined-"))
    try:
        state.chmod(0o755)
        (state / "source.tar.gz").write_bytes(empty_source(tmp_path))
        done = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", sys.executable, "-c", UNCONFINED_SCORER,
                               str(ROOT), str(state / "source.tar.gz")], capture_output=True, text=True, timeout=120,
                              cwd=state, env={"PATH": "/usr/bin:/bin", "HOME": str(state), "TMPDIR": str(state)})
    finally:
        shutil.rmtree(state)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert "does not run as root" in report["refused"] and "SCORING_ALLOW_UNCONFINED_BUILDS=1" in report["refused"]
    assert (report["ok"], report["confinement"]) == (True, "unconfined")


# --- the compiler -------------------------------------------------------------------------------------


def test_a_build_names_the_compiler_it_ran_with_and_a_toolchain_failure_says_so(tmp_path):
    """Every build result carries `rustc -vV`'s release and commit and `cargo -V`; a source whose
    lock file this cargo cannot read fails with a message that says why, in the site's words."""
    from engine.toolchain import RUST_RELEASE

    folder = tmp_path / "future"
    (folder / "src").mkdir(parents=True)
    (folder / "Cargo.toml").write_text('[package]\nname = "future"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                       '[lib]\ncrate-type = ["cdylib"]\n')
    (folder / "src" / "lib.rs").write_text("")
    (folder / "Cargo.lock").write_text('version = 99\n\n[[package]]\nname = "future"\nversion = "0.1.0"\n')
    result = build(pack_folder(folder, max_bytes=10**6), "cargo build --release --target wasm32-unknown-unknown "
                   "--offline", module_path="target/wasm32-unknown-unknown/release/future.wasm")
    assert not result.ok
    assert result.message == ("build command failed with exit status 101: its Cargo.lock is of a format this cargo "
                              f"cannot read (this site builds with rustc {RUST_RELEASE} "
                              f"({result.toolchain['commit'][:9]} {result.toolchain['date']}))")
    assert result.toolchain["release"] == RUST_RELEASE and result.toolchain["cargo"].startswith("cargo ")


def test_a_source_that_chooses_how_cargo_builds_it_is_refused(tmp_path):
    """The compiler an entry records is the one its build ran: a source's cargo configuration
    (which could name another compiler or linker, for the target or the host, pass rustc flags,
    or preload a library into rustc through `[env]`) or `cargo-features` (profile `rustflags`)
    would let a module made elsewhere pass as rustc's. Such a source is not built, wherever the
    file is; a plain source builds."""
    from lib.cargoconfig import REFUSED

    folder = tmp_path / "forged"
    (folder / "src").mkdir(parents=True)
    manifest = '[package]\nname = "forged"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n'
    (folder / "Cargo.toml").write_text(manifest)
    (folder / "Cargo.lock").write_text('version = 4\n\n[[package]]\nname = "forged"\nversion = "0.1.0"\n')
    (folder / "src" / "lib.rs").write_text('#[no_mangle]\npub extern "C" fn seven() -> i32 { 7 }\n')
    command = "cargo build --release --target wasm32-unknown-unknown --offline"
    module_path = "target/wasm32-unknown-unknown/release/forged.wasm"
    plain = build(pack_folder(folder, max_bytes=10**6), command, module_path=module_path)
    assert plain.ok and len(plain.module) > 8, plain.log
    configurations = {
        ".cargo/config.toml": '[target.wasm32-unknown-unknown]\nlinker = "fake/ld.sh"\n',
        ".cargo/config": '[build]\nrustflags = ["-C", "linker=fake/ld.sh"]\n',
        "src/.cargo/config.toml": '[target.x86_64-unknown-linux-gnu]\nlinker = "fake/hostld.sh"\n',
        "elsewhere/config.toml": '[env]\nLD_PRELOAD = { value = "fake/p.so", relative = true, force = true }\n',
    }
    for name, text in configurations.items():
        shutil.rmtree(folder / ".cargo", ignore_errors=True)
        shutil.rmtree(folder / "src" / ".cargo", ignore_errors=True)
        shutil.rmtree(folder / "elsewhere", ignore_errors=True)
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
        if name.startswith("elsewhere"):  # a `.cargo` that is a link to a folder of the source
            (folder / ".cargo").symlink_to("elsewhere")
        refused = build(pack_folder(folder, max_bytes=10**6), command, module_path=module_path)
        assert (refused.ok, refused.message) == (False, REFUSED["cargo_config"]), (name, refused.log)
    shutil.rmtree(folder / "elsewhere")
    (folder / ".cargo").unlink()
    (folder / "Cargo.toml").write_text('cargo-features = ["profile-rustflags"]\n\n' + manifest
                                       + '\n[profile.release]\nrustflags = ["-Clink-arg=--export-all"]\n')
    refused = build(pack_folder(folder, max_bytes=10**6), command, module_path=module_path)
    assert (refused.ok, refused.message) == (False, REFUSED["cargo_features"]), refused.log
    # Behind a byte order mark (cargo reads it), or in a manifest that cannot be read here
    # (TOML that Python's reader refuses, or one past its size), it is refused all the same.
    features = 'cargo-features = ["profile-rustflags"]\n\n' + manifest
    for text, reason in ((b"\xef\xbb\xbf" + features.encode(), "cargo_features"),
                         (manifest.encode() + b'\n[package.metadata]\nx = {\n a = 1,\n}\n', "cargo_manifest"),
                         (manifest.encode() + b"\n# " + b"x" * (1 << 20) + b"\n", "cargo_manifest")):
        (folder / "Cargo.toml").write_bytes(text)
        refused = build(pack_folder(folder, max_bytes=10**7), command, module_path=module_path)
        assert (refused.ok, refused.message) == (False, REFUSED[reason]), refused.log


def test_the_sites_cargo_keeps_to_its_stable_channel(tmp_path):
    """Past the source check, cargo itself refuses `cargo-features` in a site's build environment
    (Debian's cargo would take them otherwise)."""
    import subprocess

    from engine.toolchain import PINNED_TOOLCHAIN

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("")
    (tmp_path / "Cargo.toml").write_text('cargo-features = ["profile-rustflags"]\n\n[package]\nname = "x"\n'
                                         'version = "0.1.0"\nedition = "2021"\n')
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CARGO_HOME": str(tmp_path / ".cargo"), **PINNED_TOOLCHAIN}
    done = subprocess.run(["cargo", "metadata", "--offline", "--no-deps", "--format-version", "1"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "requires a nightly version of Cargo" in done.stderr, done.stderr
