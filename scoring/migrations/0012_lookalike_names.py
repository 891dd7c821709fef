"""Names that look alike are one name: a unique key for each submitter name (case, spacing and
letter forms folded), and a count of each token's writes in its current hour."""

from django.db import migrations, models

from lib.text import name_key


def keys(apps, schema_editor):
    """Key every name; where names already on the site share a key, the first (an owned one
    first) stands for all of them."""
    SubmitterName = apps.get_model("scoring", "SubmitterName")
    seen = set()
    rows = sorted(SubmitterName.objects.all(), key=lambda row: (row.owner_id is None, row.pk))
    for row in rows:
        key = name_key(row.name)
        if key in seen:
            row.delete()
            continue
        seen.add(key)
        row.key = key
        row.save(update_fields=["key"])


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0011_operators'),
    ]

    operations = [
        migrations.AddField(
            model_name='submittername',
            name='key',
            field=models.CharField(editable=False, max_length=400, null=True),
        ),
        migrations.RunPython(keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='submittername',
            name='key',
            field=models.CharField(editable=False, max_length=400, unique=True),
        ),
        migrations.AddField(
            model_name='apitoken',
            name='window_started_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='apitoken',
            name='window_requests',
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
    ]
