"""Names under UTS #39's mark rules: every stored name gets the skeleton of its key without its
shared accents ("alicé" and "alice" share it). Where it makes two names look alike, both keep
their rows and owners, the first keeps the look, and the group is printed; a stored name the
new rules would refuse for a new one is printed too. Nothing is changed or removed silently."""

from django.db import migrations

from scoring.migrations._names import hold_skeletons, report_refused


def marks(apps, schema_editor):
    hold_skeletons(apps)
    report_refused(apps)


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0017_reference_figures'),
    ]

    operations = [
        migrations.RunPython(marks, migrations.RunPython.noop),
    ]
