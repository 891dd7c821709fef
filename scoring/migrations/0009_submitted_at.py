"""One name for when an entry was submitted: `submitted_at` (it was `created_at` in the tables
and `submitted_at` in every document). The columns are renamed; the indexes over them keep
their names and follow the column in both SQLite and PostgreSQL, so only the migration state
of the indexes is rewritten."""

from django.db import migrations, models

SUBMISSION_INDEXES = {
    "board_all": ["version", "board_group", "board_key", "submitted_at", "id"],
    "board_all_variant": ["version", "variant", "board_group", "board_key", "submitted_at", "id"],
    "board_by_name": ["version", "name", "board_group", "board_key", "submitted_at", "id"],
    "board_all_model": ["version", "model", "board_group", "board_key", "submitted_at", "id"],
}
STANDING_INDEXES = {
    "standing_order": ["version", "variant_key", "board_group", "board_key", "submitted_at", "submission"],
    "standing_model_order": ["version", "variant_key", "model", "board_group", "board_key", "submitted_at",
                             "submission"],
}


def _state_of_indexes(model_name: str, indexes: dict) -> list:
    operations = []
    for name, fields in indexes.items():
        operations.append(migrations.RemoveIndex(model_name=model_name, name=name))
        operations.append(migrations.AddIndex(model_name=model_name, index=models.Index(fields=fields, name=name)))
    return operations


class Migration(migrations.Migration):
    dependencies = [("scoring", "0008_provenance_records_annotations")]

    operations = [
        migrations.RenameField(model_name="submission", old_name="created_at", new_name="submitted_at"),
        migrations.RenameField(model_name="standing", old_name="created_at", new_name="submitted_at"),
        migrations.AlterModelOptions(name="submission", options={"ordering": ["-submitted_at", "-pk"]}),
        migrations.SeparateDatabaseAndState(
            state_operations=_state_of_indexes("submission", SUBMISSION_INDEXES)
            + _state_of_indexes("standing", STANDING_INDEXES),
        ),
    ]
