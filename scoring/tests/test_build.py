"""Packing a submission and building it in the sandbox, including hostile builds (no database)."""

from __future__ import annotations

import io
import logging
import os
import shutil
import socket
import subprocess
import tarfile
import threading
import time
import uuid

import pytest

from scoring import build as build_module
from scoring.build import BuildLimits, SandboxUnavailable, SourceTooLarge, build_submission, pack_folder

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
    monkeypatch.setattr(build_module.shutil, "which", lambda name: None)  # bwrap is not on this machine
    build_module.sandbox_problem.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="bubblewrap \\(bwrap\\) is not installed; refusing to build"):
            build(empty_source(tmp_path), 'printf "\\0asm" > out.wasm')
        with caplog.at_level(logging.WARNING, logger="scoring.build"):
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
    result = build(empty_source(tmp_path), f"cat {secret} {project_database} /etc/shadow /root/.bashrc; ls /work /home; exit 1")
    assert not result.ok
    assert "the-host-secret" not in result.log
    assert "No such file or directory" in result.log


def test_hostile_build_writing_outside_its_directory(tmp_path):
    target = tmp_path / "planted.txt"
    tmp_path.chmod(0o777)
    result = build(empty_source(tmp_path), f"echo planted > {target}; echo x > /usr/planted; echo x > /etc/planted; exit 1")
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
    result = build(empty_source(tmp_path), "i=0; while dd if=/dev/zero of=fill$i bs=1M count=16 2>/dev/null; do i=$((i+1)); done; exit 1")
    assert not result.ok
    assert shutil.disk_usage(tmp_path).free > before - (32 << 20)  # capped at the tmpfs size, not the host disk


def test_hostile_build_writing_one_huge_file(tmp_path):
    result = build(empty_source(tmp_path), "dd if=/dev/zero of=/out/module.wasm bs=1M count=200",
                   limits=BuildLimits(**{**LIMITS.__dict__, "file_bytes": 8 << 20}))
    assert not result.ok
    assert "File size limit exceeded" in result.log or "failed" in result.message


def test_hostile_build_running_forever(tmp_path):
    started = time.monotonic()
    result = build(empty_source(tmp_path), "while :; do :; done", limits=BuildLimits(**{**LIMITS.__dict__, "timeout": 2}))
    assert result.message == "build command timed out after 2 s"
    assert time.monotonic() - started < 20


def test_hostile_build_exhausting_memory(tmp_path):
    result = build(empty_source(tmp_path), "python3 -c 'x = bytearray(4 << 30)'",
                   limits=BuildLimits(**{**LIMITS.__dict__, "memory_bytes": 512 << 20}))
    assert not result.ok
    assert "MemoryError" in result.log


HOSTILE_BUILDS = [
    "reads outside its directory", "writes outside its directory", "opens a socket", "fork-bombs",
    "fills the disk", "writes one huge file", "runs forever", "exhausts memory",
]
