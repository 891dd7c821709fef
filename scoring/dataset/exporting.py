"""Writing an export (`manage.py export_dataset DIR`): every table as a Parquet file, then the
dataset card and the Croissant file, into a folder beside DIR that becomes DIR once all of it is
written (nothing half-written is ever at DIR).

The same database gives the same bytes: rows come in a fixed order (scoring/dataset/rows.py),
the Parquet writer's options are fixed here, and the one time in the files that is not the
data's is the export's own (`exported_at`, in the card and the Croissant file; `--at` may fix it).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings

from lib.errors import DomainError
from scoring.agents import snapshot
from scoring.dataset import rows
from scoring.dataset.columns import AGENT_CELLS, AGENTS, CASES, ENTRIES, RESULTS, RETIRED_INPUTS, Table
from scoring.dataset.folders import CARD, CROISSANT, staged
from scoring.dataset.metadata import About, WrittenTable, card, croissant

ROWS_PER_GROUP = 50_000
# Fixed, so the bytes depend on the rows alone (pyarrow's version is pinned in requirements.txt).
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 9, "use_dictionary": True, "write_statistics": True,
                   "version": "2.6", "data_page_version": "1.0", "store_schema": True}
READERS: tuple[tuple[Table, Callable[[], Iterable[list[dict]]]], ...] = (
    (CASES, rows.case_rows), (ENTRIES, rows.entry_rows), (RESULTS, rows.result_rows), (AGENTS, rows.agent_rows),
    (AGENT_CELLS, rows.agent_cell_rows), (RETIRED_INPUTS, rows.retired_input_rows),
)


class ExportRefused(DomainError):
    """An export that cannot be written. Codes: `destination_exists`, `unwritable`."""


@dataclass(frozen=True)
class Export:
    folder: Path
    tables: list[WrittenTable]
    about: About


def export_dataset(dest: Path, *, exported_at: datetime, progress: Callable[[str], None] = lambda line: None) -> Export:
    """Write the dataset to `dest` (which must not exist, or be an empty folder), all or nothing.
    Raises ExportRefused."""
    dest = Path(dest)
    refuse_destination(dest)
    try:
        with staged(dest) as folder, rows.one_snapshot():
            written = []
            for table, reader in READERS:
                batches = reader()
                if table.optional:  # left out when it has no row: the Hub cannot load an empty table
                    batches = [batch for batch in batches if batch]
                    if not batches:
                        continue
                written.append(write_table(folder / table.file, table, batches))
                progress(f"{table.file}: {written[-1].rows:,} rows")
            matrix = snapshot()
            about = About(exported_at, settings.DATASET_LICENSE, matrix.computed_at if matrix else None)
            (folder / CARD).write_text(card(written, about), encoding="utf-8")
            (folder / CROISSANT).write_text(json.dumps(croissant(written, about), indent=2, ensure_ascii=False)
                                            + "\n", encoding="utf-8")
    except OSError as error:
        where = f" ({error.filename})" if error.filename and Path(error.filename) != dest else ""
        raise ExportRefused("unwritable", f"cannot write {dest}: {error.strerror or error}{where}") from None
    return Export(dest, written, about)


def refuse_destination(dest: Path) -> None:
    """Raise ExportRefused unless `dest` is free (missing, or an empty folder) in a folder that can
    be written (the nearest one that exists, where the missing ones will be made)."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ExportRefused("destination_exists", f"{dest} already exists and is not an empty folder")
    above = next(folder for folder in dest.absolute().parents if folder.exists())
    if not above.is_dir():
        raise ExportRefused("unwritable", f"cannot write {dest}: {above} is not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise ExportRefused("unwritable", f"cannot write {dest}: {above} is not writable")


def write_table(path: Path, table: Table, batches: Iterable[list[dict]]) -> WrittenTable:
    """The rows as one Parquet file, in row groups of ROWS_PER_GROUP whatever batches they came in."""
    schema, count, arrow_bytes = table.schema(), 0, 0
    with pq.ParquetWriter(path, schema, **PARQUET_OPTIONS) as writer:
        for group in regrouped(batches, ROWS_PER_GROUP):
            checked(table, group)
            arrow = pa.Table.from_pylist(group, schema=schema)
            writer.write_table(arrow, row_group_size=ROWS_PER_GROUP)
            count, arrow_bytes = count + arrow.num_rows, arrow_bytes + arrow.nbytes
    with path.open("rb") as written:
        digest = hashlib.file_digest(written, "sha256").hexdigest()
    return WrittenTable(table, count, arrow_bytes, path.stat().st_size, digest)


def regrouped(batches: Iterable[list[dict]], size: int) -> Iterator[list[dict]]:
    pending: list[dict] = []
    for batch in batches:
        pending += batch
        while len(pending) >= size:
            yield pending[:size]
            pending = pending[size:]
    if pending:
        yield pending


def checked(table: Table, group: list[dict]) -> None:
    """Each row has exactly the table's columns, and a null only where a column may have one:
    pyarrow would quietly fill a missing key with null, and keep a null in a column declared not to have one."""
    names = {column.name for column in table.columns}
    required = [column.name for column in table.columns if not column.nullable]
    for row in group:
        if row.keys() != names:
            raise ValueError(f"{table.name}: a row's columns are not the table's: {sorted(row.keys() ^ names)}")
        missing = [name for name in required if row[name] is None]
        if missing:
            raise ValueError(f"{table.name}: null in {', '.join(missing)}")
