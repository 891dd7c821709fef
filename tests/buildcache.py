"""A successful build kept beyond the test run, shared by its processes and the runs after it.

The bundled examples and the fixture crates are built by many tests, in the test processes and
in the commands the tests start (the served site's preparation). The first build of a source is
a real one, in the real sandbox; the others wait for it (a lock per build) and take its result,
kept by the source's digest and everything the build reads (its commands, the log it keeps, the
sandbox it ran in). A failed build is never kept; the build tests call the builder itself.

The kept builds outlive the run (`.test-cache/`, `make clean` removes it), in a folder named for
everything a build's result depends on besides its source and commands: the compiler (`rustc -vV`,
`cargo -V`), the wasm32 standard library it links, and the code that builds (engine/builds/,
scoring/building.py, engine/toolchain.py, this file). So the next run, on the other database,
takes the same modules without building them again; another compiler, another standard library
or a change to the build code is a folder of its own, and the stale ones are removed.
"""

from __future__ import annotations

import fcntl
import hashlib
import pickle
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Kept between runs (never in the repository): the builds, and the compiled modules (whose files
# the module cache itself names by wasmtime's version and the engine's configuration).
KEPT = ROOT / ".test-cache"
WASM32_LIBRARY = Path("/usr/lib/rustlib/wasm32-unknown-unknown")
BUILD_CODE = ("engine/builds/*.py", "scoring/building.py", "engine/toolchain.py", "tests/buildcache.py")

# The folder of the run's kept builds, for the commands a test starts (tests/kept_builds.py).
FOLDER_VARIABLE = "TEST_RUN_BUILDS"


def keeping(folder: Path, real):
    """`real` (scoring.building.build_source), each successful build kept in `folder`."""
    from django.conf import settings

    from engine.builds import sandbox_problem

    def build_source(source: bytes, version, *, wall_seconds=None):
        key = (hashlib.sha256(source).hexdigest(), version.build_install, version.build_command,
               version.build_module, settings.SCORING_BUILD_LOG_BYTES, settings.SCORING_MAX_MODULE_BYTES,
               settings.SCORING_BUILD_LAUNCHER, wall_seconds,
               sandbox_problem())  # a test that takes the sandbox away builds for real
        kept = folder / hashlib.sha256(repr(key).encode()).hexdigest()
        with open(f"{kept}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one build of a source at a time, across the processes
            if kept.exists():
                return pickle.loads(kept.read_bytes())
            result = real(source, version, wall_seconds=wall_seconds)
            if result.ok:
                kept.with_suffix(".part").write_bytes(pickle.dumps(result))
                kept.with_suffix(".part").rename(kept)
            return result

    build_source.real = real  # for a test that must build again for real (a re-measurement)
    return build_source


def _build_inputs_digest() -> str:
    """What a build's result depends on besides its source and commands (see above)."""
    from engine.toolchain import installed

    digest = hashlib.sha256(repr(sorted(installed().as_dict().items())).encode())
    for library in sorted(WASM32_LIBRARY.rglob("*")):
        if library.is_file():
            info = library.stat()
            digest.update(f"{library}:{info.st_size}:{info.st_mtime_ns}".encode())
    for pattern in BUILD_CODE:
        for code in sorted(ROOT.glob(pattern)):
            digest.update(code.name.encode() + code.read_bytes())
    return digest.hexdigest()[:20]


def _private_folder(folder: Path) -> Path:
    """`folder`, made if missing, this account's own and closed to every other (the module cache
    reads only such a folder: its files are machine code run as it is)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    return folder


def kept_builds_folder() -> Path:
    """The folder of the builds kept for this compiler and this build code; older ones removed."""
    current = f"builds-{_build_inputs_digest()}"
    KEPT.mkdir(mode=0o700, exist_ok=True)
    with open(KEPT / "builds.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for stale in KEPT.glob("builds-*"):
            if stale.name != current and stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
        return _private_folder(KEPT / current)


def kept_modules_folder(most_bytes: int = 512 << 20) -> Path:
    """The folder of compiled modules kept between runs, emptied when it outgrows `most_bytes`."""
    folder = _private_folder(KEPT / "modules")
    if sum(entry.stat().st_size for entry in folder.iterdir() if entry.is_file()) > most_bytes:
        for entry in folder.iterdir():
            if entry.is_file():
                entry.unlink(missing_ok=True)
    return folder
