"""Operators: API tokens, submitter names and who owns them, idempotent requests, and the permission
to submit entries over the API."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def names_used_before(apps, schema_editor):
    """Every name already on a submission belongs to nobody until staff give it an owner: no
    token may take a name someone used from the shell."""
    Submission = apps.get_model("scoring", "Submission")
    SubmitterName = apps.get_model("scoring", "SubmitterName")
    names = set(Submission.objects.values_list("name", flat=True).distinct())
    SubmitterName.objects.bulk_create([SubmitterName(name=name) for name in sorted(names)], ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0010_board_summary_variant_key'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='submission',
            options={'ordering': ['-submitted_at', '-pk'], 'permissions': [('submit_entry', 'Can submit entries over the API (with a token)')]},
        ),
        migrations.AddField(
            model_name='submission',
            name='operator',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key_id', models.CharField(editable=False, max_length=12, unique=True)),
                ('digest', models.CharField(editable=False, max_length=64)),
                ('label', models.CharField(blank=True, max_length=100)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('last_used_at', models.DateTimeField(blank=True, editable=False, null=True)),
                ('revoked_at', models.DateTimeField(blank=True, editable=False, null=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'API token',
                'ordering': ['-created_at', '-pk'],
            },
        ),
        migrations.CreateModel(
            name='SubmitterName',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100, unique=True)),
                ('claimed_at', models.DateTimeField(auto_now_add=True)),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='submitter_names', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='IdempotentRequest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=200)),
                ('request_digest', models.CharField(max_length=64)),
                ('status', models.PositiveSmallIntegerField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('submission', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='scoring.submission')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('user', 'key'), name='one_answer_per_key')],
            },
        ),
        migrations.RunPython(names_used_before, migrations.RunPython.noop),
    ]
