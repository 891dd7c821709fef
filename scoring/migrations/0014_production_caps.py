"""Builds held by a launcher (how each was held is stored) and a fair queue (when a job was
handed to the queue, how often it waited for a sandbox)."""

from django.db import migrations, models


def queued(apps, schema_editor):
    """Entries already handed to the queue count as queued."""
    Submission = apps.get_model("scoring", "Submission")
    Submission.objects.filter(status="pending").exclude(job_id="").update(queued_at=models.F("submitted_at"))


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0013_agents_and_verifications'),
    ]

    operations = [
        migrations.AddField(
            model_name='submission',
            name='build_confinement',
            field=models.CharField(blank=True, db_default='', default='', editable=False, max_length=12),
        ),
        migrations.AddField(
            model_name='submission',
            name='queued_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='submission',
            name='sandbox_waits',
            field=models.PositiveIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.AddIndex(
            model_name='submission',
            index=models.Index(fields=['operator', 'status', 'queued_at'], name='operator_in_flight'),
        ),
        migrations.AddIndex(
            model_name='submission',
            index=models.Index(fields=['status', 'queued_at'], name='queue_order'),
        ),
        migrations.RunPython(queued, migrations.RunPython.noop),
    ]
