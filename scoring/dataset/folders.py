"""Where exports live on disk: written beside their place and moved into it whole, and the latest
of them found for the site to link and serve (DATASET_DIR).

Nothing here loads pyarrow: the site's processes find an export without it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# Every file an export writes, and the only files the site serves from one
# (scoring/dataset/columns.py names the tables; a test holds the two lists together).
CARD, CROISSANT = "README.md", "croissant.json"
TABLE_FILES = ("cases.parquet", "entries.parquet", "results.parquet", "agents.parquet", "agent_cells.parquet",
               "retired_inputs.parquet")
EXPORT_FILES = (CARD, CROISSANT, *TABLE_FILES)


@contextmanager
def staged(dest: Path) -> Iterator[Path]:
    """A new folder beside `dest` (which must not exist, or be an empty folder) to write into; when
    the block ends without an error it becomes `dest`, otherwise it is removed. Raises OSError."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".export-", dir=dest.parent))
    try:
        yield staging
        staging.chmod(0o755)  # public data: readable by whichever account serves it
        if dest.is_dir():
            dest.rmdir()  # empty, or this fails and nothing moves
        os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def latest_export(root: Path | str | None) -> Path | None:
    """The export the site links and serves: of the folders in `root` that hold an export (their
    Croissant file), the one whose name sorts last, as dated names (2026-12-05) do. None when
    `root` is unset, missing or holds none. Hidden folders (a `.export-…` being written) are not
    exports, and neither is a link."""
    if not root:
        return None
    try:
        with os.scandir(root) as entries:
            names = [entry.name for entry in entries
                     if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)]
    except OSError:
        return None
    for name in sorted(names, reverse=True):
        if (Path(root) / name / CROISSANT).is_file():
            return Path(root) / name
    return None
