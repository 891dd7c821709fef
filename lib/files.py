"""Reading a file someone else named: only a regular file, never blocking, never more than a cap.

A path in a sweep file or on the command line may name a FIFO (opening it for reading waits for
a writer, forever), a device, or a file far larger than anything expected. `open_regular()`
opens without blocking, checks what was opened (not what the path named a moment before), and
only then reads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotRegularFile(OSError):
    """The path names something other than a regular file (a FIFO, a device, a folder)."""


def open_regular(path: Path | str) -> BinaryIO:
    """`path` opened for reading, if it is a regular file. Raises OSError (NotRegularFile)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise NotRegularFile(0, "not a regular file", str(path))
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_regular(path: Path | str, max_bytes: int) -> bytes:
    """At most `max_bytes + 1` bytes of a regular file (one more than the cap: the caller can
    tell an oversized file from one exactly at the cap). Raises OSError (NotRegularFile)."""
    with open_regular(path) as handle:
        return handle.read(max_bytes + 1)
