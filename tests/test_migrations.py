"""The models and the migrations agree: a model change without its migration fails here."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db
def test_the_template_context_migration_fills_what_the_importer_stores(catalog):
    """Versions imported before variants kept their template context get the same one."""
    import importlib

    from django.apps import apps

    from catalog.importer import import_catalog
    from catalog.models import Variant

    assert import_catalog(catalog.root).ok
    stored = {variant.pk: variant.template_context for variant in Variant.objects.all()}
    assert stored and all(stored.values())
    Variant.objects.update(template_context={})
    importlib.import_module("catalog.migrations.0006_variant_template_context").fill(apps, None)
    assert {variant.pk: variant.template_context for variant in Variant.objects.all()} == stored
