"""The folder every process of a test run shares, and what is made in it once per run.

conftest.py names the run's folder in RUN_VARIABLE for every process of the run (its test
processes inherit it, and so do the commands they start). What costs seconds and is the same for
every process (a copy of the proven cases, a catalog's validation, a migrated database) is made
there by the first process that asks, under a lock, while the others wait and then take it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path
from typing import Callable, TypeVar

RUN_VARIABLE = "TEST_RUN_FOLDER"
T = TypeVar("T")


def run_folder() -> Path | None:
    """The folder every process of this test run shares (None outside a run)."""
    run = os.environ.get(RUN_VARIABLE)
    return Path(run) if run and Path(run).is_dir() else None


def made_once(kept: Path, make: Callable[[Path], None]) -> Path:
    """`kept` (a file or a folder of the run's folder), made by `make(part)` in the first process
    of the run that asks, then moved into place whole: the others wait on `<kept>.lock` and find it
    made. What a failed `make` left is removed by the next process that tries."""
    with open(f"{kept}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process makes it, across the run
        if not kept.exists():
            part = kept.with_name(kept.name + ".part")
            if part.is_dir():
                shutil.rmtree(part)
            part.unlink(missing_ok=True)
            make(part)
            part.rename(kept)
    return kept


def kept_once(kept: Path, make: Callable[[], T], dump: Callable[[T], bytes], load: Callable[[bytes], T]) -> T:
    """What `make()` gives, made once per run (`made_once`): kept in the file `kept` as `dump`
    writes it; the process that made it returns it as made, the others `load` it from there."""
    made: list[T] = []

    def write(part: Path) -> None:
        made.append(make())
        part.write_bytes(dump(made[0]))

    made_once(kept, write)
    return made[0] if made else load(kept.read_bytes())
