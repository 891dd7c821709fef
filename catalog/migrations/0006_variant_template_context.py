"""Each variant keeps the template context its templates were validated with; filled here for
versions imported before, from the columns that context was built from."""

from django.db import migrations, models


def fill(apps, schema_editor):
    Variant = apps.get_model("catalog", "Variant")
    for variant in Variant.objects.select_related("version__case").iterator():
        version = variant.version
        specs = [*version.specs, *variant.specs]
        variant.template_context = {
            "case": {"slug": version.case.slug, "name": version.name, "version": version.version,
                     "difficulty": version.difficulty, "tags": list(version.tag_names), "summary": version.summary},
            "variant": {"slug": variant.slug, "name": variant.name},
            "build": {"install": version.build_install, "build": version.build_command, "module": version.build_module},
            "contract": {"entry": version.contract_entry, "input": version.contract_input,
                         "output": version.contract_output},
            "sandbox": {"fuel_limit": version.fuel_limit, "max_memory_bytes": version.max_memory_bytes},
            "specs": [{"source": spec["source"], "dest": spec["dest"]} for spec in specs],
        }
        variant.save(update_fields=["template_context"])


class Migration(migrations.Migration):
    dependencies = [("catalog", "0005_template_warnings")]

    operations = [
        migrations.AddField("variant", "template_context", models.JSONField(default=dict)),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
