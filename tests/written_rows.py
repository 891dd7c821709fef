"""The rows one real import of the valid test catalog wrote, written again into later tests'
databases.

Hundreds of tests start from the valid test catalog imported, and the importer spends about a
hundred and fifty queries on its four versions (a tenth of the in-process tests' time on
PostgreSQL). Each test process imports it for real once and keeps what that import wrote, row for
row; a later test whose database is as empty as the first one was gets the same rows in a few bulk
inserts. Only inside the test's own transaction: a test whose transactions commit imports for real,
so whatever listens to a commit hears it."""

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
    fields = model._meta.concrete_fields
    names = [field.attname for field in fields]
    for start in range(0, len(rows), 100):
        objects = [model(**dict(zip(names, row))) for row in rows[start:start + 100]]
        model._base_manager._insert(objects, fields=fields, raw=True)


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


class WrittenRows:
    def __init__(self, tables: list[tuple[type[models.Model], list[tuple]]]):
        self.tables = tables

    @classmethod
    def of(cls, write: Callable[[], Any]) -> tuple[Any, WrittenRows | None]:
        """What `write()` returned, and the rows it wrote: None where it changed a table that
        held rows before (only new rows in empty tables are kept)."""
        before = {model: _rows(model) for model in _tables()}
        result = write()
        written = []
        for model, rows in before.items():
            now = _rows(model)
            if now == rows:
                continue
            if rows:
                return result, None
            written.append(model)
        return result, cls([(model, _rows(model)) for model in _parents_first(written)])

    def write_again(self) -> bool:
        """Write the same rows again, if every table they go to is empty and this runs inside a
        transaction the test rolls back; False (and nothing written) otherwise."""
        if not connection.in_atomic_block:
            return False
        quote = connection.ops.quote_name
        occupied = " OR ".join(f"EXISTS (SELECT 1 FROM {quote(model._meta.db_table)})" for model, _ in self.tables)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {occupied}")
            if cursor.fetchone()[0]:
                return False
        for model, rows in self.tables:
            _insert(model, rows)
        # The next row made in these tables gets the next key, as after the import (PostgreSQL's
        # sequences do not move for keys given; SQLite's AUTOINCREMENT does by itself).
        statements = connection.ops.sequence_reset_sql(no_style(), [model for model, _ in self.tables])
        if statements:
            with connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
        return True


def _image(model: type[models.Model]) -> dict[Any, tuple]:
    pk = model._meta.pk.attname
    fields = _fields(model)
    at = fields.index(pk)
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
    def of(cls, write: Callable[[], Any]) -> tuple[Any, ChangedRows]:
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

    def write_again(self) -> bool:
        if not connection.in_atomic_block or _scoring_settings() != self.settings_seen:
            return False
        if _fingerprint() != self.fingerprint:
            return False
        if any(_image(model) != before for model, before, _ in self.tables if before):
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
        statements = connection.ops.sequence_reset_sql(no_style(), [model for model, *_ in self.tables])
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
        return True


_entries: dict[str, tuple[ChangedRows, dict[str, Any]]] = {}


def entries_once(key: str, score: Callable[[], dict]) -> dict:
    """The entries `score()` makes (names to submissions): scored for real the first time this
    test process asks for `key`, and later the rows that scoring wrote written again wherever the
    database is in the state it found (ChangedRows)."""
    from scoring.models import Submission

    kept = _entries.get(key)
    if kept and kept[0].write_again():
        return {name: Submission.objects.get(pk=pk) for name, pk in kept[1].items()}
    made, changed = ChangedRows.of(score)
    _entries.setdefault(key, (changed, {name: submission.pk for name, submission in made.items()}))
    return made
