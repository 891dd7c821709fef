"""Every manifest path in its one spelling (`./a/../b` is `b`): the manifest reader normalises
them now, once, so nothing after it does; versions imported before stored some as written."""

import posixpath

from django.db import migrations


def _spec(spec: dict) -> dict:
    return {**spec, **{key: posixpath.normpath(spec[key]) for key in ("source", "dest") if spec.get(key)}}


def normalise(apps, schema_editor):
    CaseVersion = apps.get_model("catalog", "CaseVersion")
    Variant = apps.get_model("catalog", "Variant")
    HeldOutInput = apps.get_model("catalog", "HeldOutInput")
    fields = ("description_path", "changelog_path", "prompt_path", "workspace", "build_module", "contract_input",
              "contract_output")
    for version in CaseVersion.objects.only("pk", "specs", *fields):
        changed = {name: posixpath.normpath(getattr(version, name)) for name in fields if getattr(version, name)}
        changed["specs"] = [_spec(spec) for spec in version.specs]
        CaseVersion.objects.filter(pk=version.pk).update(**changed)
    for variant in Variant.objects.only("pk", "specs"):
        Variant.objects.filter(pk=variant.pk).update(specs=[_spec(spec) for spec in variant.specs])
    for held in HeldOutInput.objects.only("pk", "input_path", "expected_path"):
        HeldOutInput.objects.filter(pk=held.pk).update(input_path=posixpath.normpath(held.input_path),
                                                       expected_path=posixpath.normpath(held.expected_path))


class Migration(migrations.Migration):
    dependencies = [("catalog", "0007_kits_and_entry_counts")]

    operations = [migrations.RunPython(normalise, migrations.RunPython.noop)]
