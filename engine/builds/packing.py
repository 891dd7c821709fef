"""Packing a submitted folder into the tar.gz it is stored and built from."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

# Build products and version-control data are not part of a submission's source.
EXCLUDED_DIRECTORIES = {".git", "target"}


class SourceTooLarge(ValueError):
    pass


def _unpacked_size(folder: Path) -> int:
    """What the folder's files add up to (links not followed; build products left out)."""
    total = 0
    for directory, dirnames, filenames in os.walk(folder):
        dirnames[:] = [name for name in dirnames if name not in EXCLUDED_DIRECTORIES]
        for name in filenames:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                pass
    return total


def pack_folder(folder: Path, *, max_bytes: int, max_unpacked_bytes: int | None = None) -> bytes:
    """The folder as a tar.gz (symlinks kept as links), without build products or `.git`.

    With `max_unpacked_bytes`, a folder whose files add up to more is refused before anything
    is compressed (a sparse file of gigabytes packs small, and slowly).
    """
    folder = Path(folder)
    if max_unpacked_bytes is not None and (size := _unpacked_size(folder)) > max_unpacked_bytes:
        raise SourceTooLarge(f"the submission's files add up to {size:,} bytes, more than {max_unpacked_bytes:,}")
    buffer = io.BytesIO()

    def exclude(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        if any(part in EXCLUDED_DIRECTORIES for part in parts[1:]):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0  # the same folder packs to the same bytes
        return info

    # gzip.GzipFile with mtime=0: tarfile's own "w:gz" stamps the current time into the header.
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0) as compressed:
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive:
            archive.add(folder, arcname="source", filter=exclude, recursive=True)
            if buffer.tell() > max_bytes:
                raise SourceTooLarge(f"the submission is larger than {max_bytes:,} bytes packed")
    data = buffer.getvalue()
    if len(data) > max_bytes:
        raise SourceTooLarge(f"the submission is {len(data):,} bytes packed, more than {max_bytes:,}")
    return data
