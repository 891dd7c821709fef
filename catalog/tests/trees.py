"""The valid test catalog (catalog/tests/data/valid) and a private copy of it a test may break."""

from __future__ import annotations

import shutil
from pathlib import Path

from catalog.manifest import CatalogScan, scan_catalog

VALID_CATALOG = Path(__file__).parent / "data" / "valid"
ADDER_V1 = "performance/easy/adder/v1"


class CatalogTree:
    """A private copy of the valid test catalog that a test may break.

    Given `copy_of`, the copy is made when the tree is first looked at (`root`): a test that only
    needs the catalog imported never reads its folder, and most tests are such tests."""

    def __init__(self, root: Path, copy_of: Path | None = None):
        self._root = root
        self._copy_of = copy_of

    @property
    def root(self) -> Path:
        if self._copy_of is not None:
            shutil.copytree(self._copy_of, self._root, symlinks=True)
            self._copy_of = None
        return self._root

    def path(self, rel: str, label: str = ADDER_V1) -> Path:
        return self.root / label / rel

    def read(self, rel: str, label: str = ADDER_V1) -> str:
        return self.path(rel, label).read_text()

    def write(self, rel: str, text: str | bytes, label: str = ADDER_V1) -> None:
        target = self.path(rel, label)
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text)

    def edit(self, old: str, new: str, rel: str = "test-case.toml", label: str = ADDER_V1) -> None:
        text = self.read(rel, label)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, 1), label)

    def append(self, text: str, rel: str = "test-case.toml", label: str = ADDER_V1) -> None:
        self.write(rel, self.read(rel, label) + text, label)

    def remove(self, rel: str, label: str = ADDER_V1) -> None:
        target = self.path(rel, label)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()

    def scan(self) -> CatalogScan:
        return scan_catalog(self.root)

    def errors(self) -> list[str]:
        return [str(error) for error in self.scan().errors]
