"""The catalog tables as the migrations 0001 to 0012 leave them, made in one step.

A new database is migrated with this one (its state is made once, not replayed
through every earlier change); a database that has applied some of the migrations it
replaces goes on through them. Their data steps have nothing to change in a new database.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [('catalog', '0001_initial'), ('catalog', '0002_import_permission'), ('catalog', '0003_content_generation'), ('catalog', '0004_latest_versions_and_best_fuel'), ('catalog', '0005_template_warnings'), ('catalog', '0006_variant_template_context'), ('catalog', '0007_kits_and_entry_counts'), ('catalog', '0008_normalised_paths'), ('catalog', '0009_reference_fuel'), ('catalog', '0010_sample_count'), ('catalog', '0011_retired_versions'), ('catalog', '0012_given_digests')]

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Case',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=100, unique=True)),
                ('folder', models.CharField(max_length=300, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['slug'],
            },
        ),
        migrations.CreateModel(
            name='Tag',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100, unique=True)),
                ('latest_any_count', models.PositiveIntegerField(default=0)),
                ('latest_public_count', models.PositiveIntegerField(default=0)),
            ],
            options={
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='CaseVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('version', models.CharField(max_length=100)),
                ('ordinal', models.PositiveIntegerField(default=0)),
                ('digest', models.CharField(max_length=64)),
                ('imported_at', models.DateTimeField(auto_now_add=True)),
                ('latest_any', models.BooleanField(default=False)),
                ('latest_public', models.BooleanField(default=False)),
                ('best_fuel', models.BigIntegerField(blank=True, null=True)),
                ('reference_fuel', models.BigIntegerField(blank=True, null=True)),
                ('entry_count', models.PositiveIntegerField(default=0)),
                ('held_out_digests', models.JSONField(default=list)),
                ('given_digests', models.JSONField(db_default=[], default=list)),
                ('template_warnings', models.JSONField(default=list)),
                ('manifest_text', models.TextField()),
                ('name', models.CharField(max_length=200)),
                ('type', models.CharField(max_length=50)),
                ('difficulty', models.CharField(max_length=10)),
                ('experimental', models.BooleanField(default=False)),
                ('tag_names', models.JSONField(default=list)),
                ('summary', models.TextField(blank=True)),
                ('description_path', models.CharField(blank=True, max_length=300)),
                ('description', models.TextField(blank=True)),
                ('changelog_path', models.CharField(max_length=300)),
                ('changelog', models.TextField()),
                ('prompt_path', models.CharField(max_length=300)),
                ('max_runtime_hours', models.CharField(max_length=50)),
                ('workspace', models.CharField(blank=True, max_length=300)),
                ('init', models.TextField(blank=True)),
                ('build_install', models.TextField(blank=True)),
                ('build_command', models.TextField()),
                ('build_module', models.CharField(max_length=300)),
                ('contract_entry', models.CharField(max_length=200)),
                ('contract_input', models.CharField(max_length=300)),
                ('contract_output', models.CharField(max_length=300)),
                ('fuel_limit', models.BigIntegerField()),
                ('max_memory_bytes', models.BigIntegerField()),
                ('specs', models.JSONField(default=list)),
                ('domains', models.JSONField(default=list)),
                ('review_items', models.JSONField(default=list)),
                ('smoke_count', models.PositiveIntegerField(default=0)),
                ('stress_count', models.PositiveIntegerField(default=0)),
                ('sample_count', models.PositiveIntegerField(db_default=0, default=0)),
                ('retired_at', models.DateTimeField(blank=True, editable=False, null=True)),
                ('case', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='versions', to='catalog.case')),
                ('tags', models.ManyToManyField(related_name='versions', to='catalog.tag')),
            ],
            options={
                'ordering': ['case__slug', '-ordinal'],
                'permissions': [('import_caseversion', 'Can import case versions (archive upload, catalog re-scan)'), ('retire_caseversion', 'Can retire case versions (publishes their held-out inputs)')],
                'indexes': [models.Index(condition=models.Q(('latest_public', True)), fields=['name', 'id'], name='list_public'), models.Index(condition=models.Q(('latest_any', True)), fields=['name', 'id'], name='list_any'), models.Index(condition=models.Q(('latest_public', True)), fields=['difficulty', 'name', 'id'], name='list_public_difficulty'), models.Index(condition=models.Q(('latest_any', True)), fields=['difficulty', 'name', 'id'], name='list_any_difficulty')],
                'constraints': [models.UniqueConstraint(fields=('case', 'version'), name='unique_case_version')],
            },
        ),
        migrations.CreateModel(
            name='Variant',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveIntegerField()),
                ('slug', models.SlugField(max_length=100)),
                ('name', models.CharField(max_length=200)),
                ('file', models.CharField(blank=True, max_length=300)),
                ('specs', models.JSONField(default=list)),
                ('template_context', models.JSONField(default=dict)),
                ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='variants', to='catalog.caseversion')),
            ],
            options={
                'ordering': ['version', 'position'],
                'constraints': [models.UniqueConstraint(fields=('version', 'slug'), name='unique_variant_slug'), models.UniqueConstraint(fields=('version', 'position'), name='unique_variant_position')],
            },
        ),
        migrations.CreateModel(
            name='Kit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source_digest', models.CharField(max_length=64)),
                ('content', models.BinaryField()),
                ('size', models.PositiveBigIntegerField()),
                ('digest', models.CharField(max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('variant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='kits', to='catalog.variant')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('variant', 'source_digest'), name='one_kit_per_source')],
            },
        ),
        migrations.CreateModel(
            name='VersionFile',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('path', models.CharField(max_length=500)),
                ('content', models.BinaryField()),
                ('size', models.PositiveBigIntegerField()),
                ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='files', to='catalog.caseversion')),
            ],
            options={
                'ordering': ['version', 'path'],
                'constraints': [models.UniqueConstraint(fields=('version', 'path'), name='unique_version_file')],
            },
        ),
        migrations.CreateModel(
            name='HeldOutInput',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveIntegerField()),
                ('kind', models.CharField(choices=[('smoke', 'Smoke'), ('stress', 'Stress')], max_length=10)),
                ('input_path', models.CharField(max_length=300)),
                ('expected_path', models.CharField(max_length=300)),
                ('fuel_runway', models.CharField(max_length=50)),
                ('ceiling', models.BigIntegerField()),
                ('input_bytes', models.BinaryField()),
                ('expected_bytes', models.BinaryField()),
                ('input_size', models.PositiveBigIntegerField()),
                ('expected_size', models.PositiveBigIntegerField()),
                ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='held_out_inputs', to='catalog.caseversion')),
            ],
            options={
                'ordering': ['version', 'position'],
                'constraints': [models.UniqueConstraint(fields=('version', 'position'), name='unique_input_position')],
            },
        ),
    ]
