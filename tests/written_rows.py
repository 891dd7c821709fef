"""What one real write wrote (an import of the valid test catalog, a board scored), written again
into later tests' databases.

Hundreds of tests start from the valid test catalog imported, and the importer spends about a
hundred and fifty queries on its four versions (a tenth of the in-process tests' time on
PostgreSQL); eighty more score the same board. Each test process does it for real once and keeps
what that wrote, row for row; a later test whose database is in the state the first one found gets
the same rows in a few inserts. Only inside the test's own transaction: a test whose transactions
commit does it for real, so whatever listens to a commit hears it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.core.management.color import no_style
from django.db import connection, models


def _tables() -> list[type[models.Model]]:
    return [model for model in apps.get_models(include_auto_created=True)
            if model._meta.managed and not model._meta.proxy]


def _fields(model: type[models.Model]) -> list[str]:
    return [field.attname for field in model._meta.concrete_fields]


def _rows(model: type[models.Model]) -> list[tuple]:
    return [tuple(bytes(value) if isinstance(value, memoryview) else value for value in row)
            for row in model._base_manager.order_by("pk").values_list(*_fields(model))]


def _insert(model: type[models.Model], rows: list[tuple]) -> None:
    """The rows inserted as they are, their timestamps too (a plain bulk_create would stamp
    `auto_now` fields anew)."""
    names = _fields(model)
    for start in range(0, len(rows), 100):
        objects = [model(**dict(zip(names, row))) for row in rows[start:start + 100]]
        model._base_manager._insert(objects, fields=model._meta.concrete_fields, raw=True)


def _parents_first(written: list[type[models.Model]]) -> list[type[models.Model]]:
    ordered: list[type[models.Model]] = []
    pending = list(written)
    while pending:
        for model in pending:
            parents = {field.related_model for field in model._meta.concrete_fields
                       if field.is_relation and field.related_model is not model}
            if not parents & set(pending):
                ordered.append(model)
                pending.remove(model)
                break
        else:
            raise AssertionError(f"no insert order for {pending}")
    return ordered


def _image(model: type[models.Model]) -> dict[Any, tuple]:
    at = _fields(model).index(model._meta.pk.attname)
    return {row[at]: row for row in _rows(model)}


def _fingerprint() -> tuple:
    """How many rows each table holds and its highest key, in one query."""
    quote = connection.ops.quote_name
    parts = []
    for model in _tables():
        table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
        if model._meta.pk.get_internal_type() not in ("AutoField", "BigAutoField", "IntegerField", "BigIntegerField"):
            pk = f"CAST({pk} AS TEXT)"  # a uuid, say: PostgreSQL has no MAX of it
        parts.append(f"(SELECT COUNT(*) FROM {table}), (SELECT MAX({pk}) FROM {table})")
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts))
        return tuple(cursor.fetchone())


def _scoring_settings() -> tuple:
    from django.conf import settings

    return tuple((name, repr(getattr(settings, name))) for name in sorted(dir(settings))
                 if name.startswith(("SCORING_", "CATALOG_", "ENGINE_")))


class ChangedRows:
    """What a write did to a database it found in a given state: rows added, changed or taken
    away. Done again only on a database found in the same state (every table as many rows with
    the same highest key, the tables it changed row for row the same, the same scoring and
    catalog settings), inside a transaction the test rolls back."""

    def __init__(self, fingerprint: tuple, settings_seen: tuple, tables: list):
        self.fingerprint = fingerprint
        self.settings_seen = settings_seen
        self.tables = tables  # (model, before, after), parents first

    @classmethod
    def of(cls, write: Callable[[], Any]) -> tuple[Any, ChangedRows | None]:
        """What `write()` returned, and what it did to the database."""
        fingerprint, settings_seen = _fingerprint(), _scoring_settings()
        before = {model: _image(model) for model in _tables()}
        result = write()
        changed = {}
        for model, image in before.items():
            now = _image(model)
            if now != image:
                changed[model] = (image, now)
        tables = [(model, *changed[model]) for model in _parents_first(list(changed))]
        return result, cls(fingerprint, settings_seen, tables)

    def found_as_before(self) -> bool:
        return (_scoring_settings() == self.settings_seen and _fingerprint() == self.fingerprint
                and all(_image(model) == before for model, before, _ in self.tables if before))

    def write_again(self) -> bool:
        """Do it again, if the database is found as the write found it and this runs inside a
        transaction the test rolls back; False (and nothing written) otherwise."""
        if not connection.in_atomic_block or not self.found_as_before():
            return False
        for model, before, after in reversed(self.tables):
            gone = [pk for pk in before if pk not in after]
            if gone:
                model._base_manager.filter(pk__in=gone).delete()
        for model, before, after in self.tables:
            fields = _fields(model)
            _insert(model, [row for pk, row in after.items() if pk not in before])
            moved = [model(**dict(zip(fields, row))) for pk, row in after.items() if pk in before and before[pk] != row]
            if moved:
                model._base_manager.bulk_update(moved, [field for field in fields if field != model._meta.pk.attname])
        # The next row made in these tables gets the next key, as after the write (PostgreSQL's
        # sequences do not move for keys given; SQLite's AUTOINCREMENT does by itself).
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), [model for model, *_ in self.tables]):
                cursor.execute(statement)
        return True


class WrittenRows(ChangedRows):
    """A write that only added rows, to tables empty before it (an import into an empty
    catalog). Done again wherever those tables are empty, whatever else the database holds."""

    @classmethod
    def of(cls, write: Callable[[], Any]) -> tuple[Any, WrittenRows | None]:
        """What `write()` returned, and the rows it wrote: None where it changed a table that
        held rows before."""
        result, changed = ChangedRows.of(write)
        if any(before for _, before, _ in changed.tables):
            return result, None
        return result, cls(changed.fingerprint, changed.settings_seen, changed.tables)

    def found_as_before(self) -> bool:
        quote = connection.ops.quote_name
        occupied = " OR ".join(f"EXISTS (SELECT 1 FROM {quote(model._meta.db_table)})" for model, *_ in self.tables)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {occupied}")
            return not cursor.fetchone()[0]


# What the first real write of each kind wrote, in this test process: the rows, and what a test
# gets back from them.
_kept: dict[str, tuple[ChangedRows, Any]] = {}


def done_once(key: str, write: Callable[[], Any], *, rows: type[ChangedRows] = ChangedRows,
              keep: Callable[[Any], Any] = lambda result: result,
              again: Callable[[Any], Any] = lambda kept: kept) -> Any:
    """What `write()` returns: done for real the first time this test process asks for `key` (and
    what it wrote kept, with `keep(result)`, unless that is None), and after that the kept rows
    written again (`again(kept)` is then returned) wherever the database allows it, or done for
    real again where it does not."""
    if key in _kept:
        written, kept = _kept[key]
        return again(kept) if written.write_again() else write()
    result, written = rows.of(write)
    if written is not None and keep(result) is not None:
        _kept[key] = (written, keep(result))
    return result


def entries_once(key: str, score: Callable[[], dict]) -> dict:
    """The entries `score()` makes (names to submissions), done once (done_once)."""
    from scoring.models import Submission

    return done_once(key, score, keep=lambda made: {name: entry.pk for name, entry in made.items()},
                     again=lambda pks: {name: Submission.objects.get(pk=pk) for name, pk in pks.items()})
