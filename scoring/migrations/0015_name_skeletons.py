"""Names held apart by their confusable skeletons.

The names already here are given their skeletons, the owned ones first, then the oldest: where two
of them can be taken for each other, both keep their rows and owners and the first keeps the
skeleton, and the migration prints each such group for staff to settle (nothing is changed or
removed silently)."""

import sys

import django.db.models.deletion
from django.db import migrations, models


def skeletons(apps, schema_editor):
    from lib.text import name_skeletons

    SubmitterName = apps.get_model("scoring", "SubmitterName")
    NameSkeleton = apps.get_model("scoring", "NameSkeleton")
    held: dict[str, object] = {}
    clashes: dict[int, list] = {}
    for row in sorted(SubmitterName.objects.select_related("owner"), key=lambda row: (row.owner_id is None, row.pk)):
        for skeleton in sorted(name_skeletons(row.name)):
            first = held.get(skeleton)
            if first is None:
                held[skeleton] = row
                NameSkeleton.objects.create(skeleton=skeleton, name=row)
            elif first.pk != row.pk:
                clashes.setdefault(first.pk, [first])
                if row not in clashes[first.pk]:
                    clashes[first.pk].append(row)
    for group in clashes.values():
        said = ", ".join(f"{row.name!r} ({row.owner.username if row.owner else 'no owner'})" for row in group)
        sys.stdout.write(f"\n  submitter names that can be taken for each other (each kept as it is; the first keeps "
                         f"the look, so no new name can take it): {said}")


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0014_production_caps'),
    ]

    operations = [
        migrations.CreateModel(
            name='NameSkeleton',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('skeleton', models.CharField(max_length=1000, unique=True)),
                ('name', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='skeletons',
                                           to='scoring.submittername')),
            ],
        ),
        migrations.RunPython(skeletons, migrations.RunPython.noop),
    ]
