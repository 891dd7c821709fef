"""Packing a submission folder and building it (no database)."""

from __future__ import annotations

import io
import os
import tarfile
import time

import pytest

from scoring.build import SourceTooLarge, build_submission, pack_folder


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


def build(source: bytes, command: str, **options):
    defaults = dict(install="", build=command, module_path="out.wasm", timeout=30, log_limit=65536, path="/usr/bin:/bin")
    return build_submission(source, **{**defaults, **options})


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


def test_a_build_runs_in_a_copy_with_a_clean_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "do-not-leak")
    folder = tmp_path / "sub"
    folder.mkdir()
    result = build(pack_folder(folder, max_bytes=10**6), 'env | sort; printf "\\0asm" > out.wasm')
    assert result.ok
    assert "SECRET_TOKEN" not in result.log
    assert "CARGO_NET_OFFLINE=true" in result.log
    assert "PATH=/usr/bin:/bin" in result.log
    assert result.module == b"\0asm"
    assert sorted(path.name for path in folder.iterdir()) == []


def test_a_module_path_leaving_the_build_folder_is_refused(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    result = build(pack_folder(folder, max_bytes=10**6), "printf x > ../escape.wasm", module_path="../escape.wasm")
    assert not result.ok
    assert result.message == "module ../escape.wasm points outside the build directory"


def test_a_timeout_kills_the_whole_process_group(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    marker = tmp_path / "still-running"
    started = time.monotonic()
    result = build(pack_folder(folder, max_bytes=10**6), f"(sleep 3; touch {marker}) & sleep 30", timeout=1)
    assert result.message == "build command timed out after 1 s"
    assert time.monotonic() - started < 10
    time.sleep(3)
    assert not marker.exists(), "a child of the build outlived the timeout"


def test_a_garbage_archive_is_build_failed_not_an_exception():
    result = build(b"not a tarball", "true")
    assert not result.ok
    assert result.message.startswith("the submission could not be unpacked")


def test_an_archive_with_a_link_out_of_the_tree_is_refused(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        link = tarfile.TarInfo("source/escape")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    result = build(buffer.getvalue(), "cat escape > out.wasm")
    assert not result.ok
    assert "could not be unpacked" in result.message
