"""Documents already found valid against a schema, remembered by content: an author's checks read
the same inputs run after run, and parsing and validating them again (hundreds of megabytes at a
judge's usual sizes) is most of what a check would cost. A document is looked up by the digests
of its bytes and of its schema's, with the schema library's release (a new one may judge
otherwise): change either and it is checked again. Only a document that passed is remembered; a
failing one is checked (and its error said) every time.

`remembering(path)` keeps them in a file for the block (`check_case` and `validate_catalog` use
one beside the site's state); elsewhere nothing is remembered."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

SCHEMA_LIBRARY = importlib.metadata.version("jsonschema")
MAX_REMEMBERED = 200_000  # keys kept in the file (the newest)
_KEY_BYTES = 64 + 1 + 64


class CheckedDocuments:
    def __init__(self, path: Path | None = None):
        self.path = path
        self.known: dict[str, None] = {}  # insertion-ordered: the oldest go first
        self.added = False
        if path is not None:
            try:
                with open(path, "rb") as handle:
                    data = handle.read(MAX_REMEMBERED * (_KEY_BYTES + 1) + 1)
            except OSError:
                data = b""
            for line in data.decode("ascii", "replace").splitlines():
                if len(line) == _KEY_BYTES:
                    self.known[line] = None

    @staticmethod
    def key(schema_digest: str, document: bytes) -> str:
        schema = hashlib.sha256(f"{schema_digest}:{SCHEMA_LIBRARY}".encode()).hexdigest()
        return f"{schema}:{hashlib.sha256(document).hexdigest()}"

    def __contains__(self, key: str) -> bool:
        return key in self.known

    def add(self, key: str) -> None:
        if key not in self.known:
            self.known[key] = None
            self.added = True

    def save(self) -> None:
        """Write the newest keys to the file, whole or not at all (a check stopped halfway loses
        nothing it had)."""
        if self.path is None or not self.added:
            return
        keys = list(self.known)[-MAX_REMEMBERED:]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, draft = tempfile.mkstemp(prefix=".checked-", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="ascii") as out:
                out.write("".join(f"{key}\n" for key in keys))
            os.replace(draft, self.path)
        except OSError:
            Path(draft).unlink(missing_ok=True)


_current: ContextVar[CheckedDocuments | None] = ContextVar("checked_documents", default=None)


def current() -> CheckedDocuments | None:
    return _current.get()


@contextmanager
def remembering(path: Path | None) -> Iterator[CheckedDocuments]:
    """Within the block, documents that pass are remembered (in `path`, kept when it ends)."""
    checked = CheckedDocuments(path)
    token = _current.set(checked)
    try:
        yield checked
    finally:
        _current.reset(token)
        checked.save()
