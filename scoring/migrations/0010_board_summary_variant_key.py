"""The all-variants board is `variant_key` 0 in every table: BoardSummary named it `variant`
NULL, Standing and RecordStep `variant_key` 0. Then the boards are filled again from the
submissions (the fill 0008 once did, with the names the code now writes)."""

from types import SimpleNamespace

from django.db import migrations, models


def copy_keys(apps, schema_editor):
    BoardSummary = apps.get_model("scoring", "BoardSummary")
    for summary in BoardSummary.objects.exclude(variant__isnull=True):
        BoardSummary.objects.filter(pk=summary.pk).update(variant_key=summary.variant_id)


def fill_boards(apps, schema_editor):
    """Standings (with their models), summaries and record progressions for the submissions scored so far."""
    from scoring.boards.rebuilding import rebuild

    rebuild(models_module=SimpleNamespace(
        Submission=apps.get_model("scoring", "Submission"), Standing=apps.get_model("scoring", "Standing"),
        BoardSummary=apps.get_model("scoring", "BoardSummary"), CaseVersion=apps.get_model("catalog", "CaseVersion"),
        RecordStep=apps.get_model("scoring", "RecordStep"),
    ))


class Migration(migrations.Migration):
    dependencies = [("scoring", "0009_submitted_at"), ("catalog", "0007_kits_and_entry_counts")]

    operations = [
        migrations.AddField(model_name="boardsummary", name="variant_key", field=models.BigIntegerField(default=0)),
        migrations.RunPython(copy_keys, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="boardsummary", name="one_summary_per_variant"),
        migrations.RemoveConstraint(model_name="boardsummary", name="one_summary_overall"),
        migrations.RemoveField(model_name="boardsummary", name="variant"),
        migrations.AddConstraint(model_name="boardsummary",
                                 constraint=models.UniqueConstraint(fields=["version", "variant_key"], name="one_summary")),
        migrations.RunPython(fill_boards, migrations.RunPython.noop),
    ]
