"""Each version's count of leaderboard entries (the case list shows it), from the summaries kept so far."""

from django.db import migrations


def fill(apps, schema_editor):
    BoardSummary = apps.get_model("scoring", "BoardSummary")
    CaseVersion = apps.get_model("catalog", "CaseVersion")
    for version_id, entries in BoardSummary.objects.filter(variant__isnull=True).values_list("version_id", "entries"):
        CaseVersion.objects.filter(pk=version_id).update(entry_count=entries)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_kits_and_entry_counts"),
        ("scoring", "0006_catalog_standings"),
    ]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
