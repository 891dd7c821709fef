"""A successful build kept for the whole test run, shared by its processes.

The bundled examples and the fixture crates are built by many tests, in the test processes and
in the commands the tests start (the served site's preparation). The first build of a source is
a real one, in the real sandbox; the others wait for it (a lock per build) and take its result,
kept by the source's digest and everything the build reads (its commands, the log it keeps, the
sandbox it ran in). A failed build is never kept; the build tests call the builder itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import pickle
from pathlib import Path

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
