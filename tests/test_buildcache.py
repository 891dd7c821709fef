"""The builds kept between test runs (tests/buildcache.py) are kept for one compiler, one wasm32
standard library and one version of the build code: another of any is a folder of its own, and
the folder of the old one goes. A failed build is never kept."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine import toolchain
from tests import buildcache


@pytest.fixture
def kept(tmp_path, monkeypatch) -> Path:
    """The kept folders in a place of this test's, the build code one file of its own."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "build.py").write_text("one")
    monkeypatch.setattr(buildcache, "KEPT", tmp_path / "kept")
    monkeypatch.setattr(buildcache, "ROOT", code)
    monkeypatch.setattr(buildcache, "BUILD_CODE", ("*.py",))
    return code


def test_another_compiler_or_other_build_code_is_a_folder_of_its_own_and_the_old_one_goes(kept, monkeypatch):
    first = buildcache.kept_builds_folder()
    assert first.is_dir() and first.stat().st_mode & 0o777 == 0o700
    assert buildcache.kept_builds_folder() == first  # the same inputs: the same folder
    (kept / "build.py").write_text("two")
    second = buildcache.kept_builds_folder()
    assert second != first and not first.exists()
    other = replace(toolchain.installed(), commit="0" * 40)
    monkeypatch.setattr(toolchain, "installed", lambda: other)
    third = buildcache.kept_builds_folder()
    assert third != second and not second.exists()


class Result:
    def __init__(self, ok: bool):
        self.ok, self.module = ok, b"\0asm"


class Version:
    build_install, build_command, build_module = "", "cargo build", "out.wasm"


def test_only_a_successful_build_is_kept(kept):
    outcomes = iter([Result(False), Result(True), Result(False)])
    calls = []

    def real(source, version, *, wall_seconds=None):
        calls.append(source)
        return next(outcomes)

    build = buildcache.keeping(buildcache.kept_builds_folder(), real)
    assert not build(b"source", Version()).ok  # failed: not kept, built again next time
    assert build(b"source", Version()).ok
    assert build(b"source", Version()).ok and len(calls) == 2  # kept: not built a third time
    assert not build(b"other", Version()).ok and len(calls) == 3
