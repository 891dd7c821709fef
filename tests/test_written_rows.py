"""Rows written again (tests/written_rows.py) are the rows the real work wrote, and are written
only into a database in the state the real work found."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from catalog.importer import import_scan
from catalog.models import CaseVersion, Tag
from scoring.models import Submission
from scoring.tests.helpers import standard_board
from tests.written_rows import ChangedRows, WrittenRows, _image, _tables

pytestmark = pytest.mark.django_db


def _everything() -> dict:
    return {model._meta.db_table: _image(model) for model in _tables()}


def test_an_import_written_again_leaves_the_database_as_the_import_did(_valid_catalog_scan):
    _, scan = _valid_catalog_scan
    with transaction.atomic():
        outcome, written = WrittenRows.of(lambda: import_scan(scan))
        assert outcome.ok and written is not None
        imported = _everything()
        transaction.set_rollback(True)
    assert not CaseVersion.objects.exists()
    assert written.write_again()
    assert _everything() == imported
    # The next version or tag made gets a key of its own, as after the import.
    Tag.objects.create(name="made-after")
    assert not written.write_again()  # its tables are no longer empty: nothing is written twice
    assert CaseVersion.objects.count() == 4


def test_an_import_is_not_written_again_outside_a_transaction_the_test_rolls_back(_valid_catalog_scan):
    _, scan = _valid_catalog_scan
    with transaction.atomic():
        _, written = WrittenRows.of(lambda: import_scan(scan))
        transaction.set_rollback(True)
    assert written is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connection, "in_atomic_block", False)  # as in a test whose transactions commit
        assert not written.write_again()
    assert not CaseVersion.objects.exists()


def test_a_board_written_again_is_the_board_scoring_made(imported, adder_v1, tmp_path, settings):
    with transaction.atomic():
        made, changed = ChangedRows.of(lambda: standard_board(adder_v1, imported, tmp_path))
        scored = _everything()
        transaction.set_rollback(True)
    assert not Submission.objects.exists()
    with transaction.atomic():
        assert changed.write_again()
        assert _everything() == scored
        assert {name: Submission.objects.get(pk=entry.pk).status for name, entry in made.items()} == {
            name: entry.status for name, entry in made.items()}
        assert not changed.write_again()  # the board is there already: it is not written twice
        transaction.set_rollback(True)
    # The same database under other scoring settings gets the real thing, not these rows.
    settings.SCORING_BUILD_LOG_BYTES += 1
    assert not changed.write_again()
    assert not Submission.objects.exists()
