"""Names held apart by their confusable skeletons.

The names already here are given their skeletons, the owned ones first, then the oldest: where two
of them can be taken for each other, both keep their rows and owners and the first keeps the
skeleton, and the migration prints each such group for staff to settle (nothing is changed or
removed silently)."""

import django.db.models.deletion
from django.db import migrations, models

from scoring.migrations._names import hold_skeletons


def skeletons(apps, schema_editor):
    hold_skeletons(apps)


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
