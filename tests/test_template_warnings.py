"""A catalog written for the harness imports: names the site's template context lacks are warnings."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from catalog.tests.archives import upload, zip_folder
from catalog.tests.trees import ADDER_V1

pytestmark = pytest.mark.django_db
HARNESS_PROMPT = "Dear {{name}},\nyou are {{harness_model}}.\nSolve {{case.name}} ({{variant.slug}}).\n"


@pytest.fixture
def harness_catalog(catalog):
    for version in ("v1", "v2", "v10"):
        catalog.write("prompt.hbs", HARNESS_PROMPT, label=f"performance/easy/adder/{version}")
    return catalog


def test_validate_catalog_prints_the_warnings_and_passes_unless_strict(harness_catalog, capsys):
    call_command("validate_catalog", str(harness_catalog.root))
    out = capsys.readouterr().out
    assert f"warning: {ADDER_V1}/test-case.toml: prompt: `prompt.hbs` line 1: `name` names nothing" in out
    assert "line 2: `harness_model` names nothing in the site's template context and renders as nothing" in out
    assert out.rstrip().endswith("warning(s)") and out.splitlines()[-1].startswith("OK:")
    with pytest.raises(SystemExit) as strict:
        call_command("validate_catalog", str(harness_catalog.root), "--strict")
    assert strict.value.code == 1
    assert "--strict: warnings count as errors" in capsys.readouterr().err


def test_the_version_imports_keeps_its_warnings_and_seeds_them_as_nothing(harness_catalog, tmp_path):
    outcome = import_catalog(harness_catalog.root)
    assert outcome.ok
    result = next(result for result in outcome.results if result.label == ADDER_V1)
    assert any("`harness_model`" in warning for warning in result.warnings)
    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    assert len(version.template_warnings) == 2
    call_command("seed_run", "adder", str(tmp_path / "run"), "--version", "v1", stdout=io.StringIO())
    assert (tmp_path / "run/PROMPT.md").read_text() == "Dear ,\nyou are .\nSolve Adder (base).\n"


def test_staff_see_the_warnings_after_an_admin_import_and_on_the_case_page(admin_client, client, catalog, tmp_path):
    import shutil

    assert import_catalog(catalog.root).ok
    folder = tmp_path / "upload" / "v30"
    shutil.copytree(catalog.root / ADDER_V1, folder)
    (folder / "changelog.md").write_text("# v30\n")
    (folder / "prompt.hbs").write_text(HARNESS_PROMPT)
    response = upload(admin_client, zip_folder(folder, "v30"), "v30.zip")
    assert response.status_code == 302
    messages = [str(message) for message in admin_client.get("/admin/catalog/caseversion/").context["messages"]]
    assert any(message.startswith("Warning for performance/easy/adder/v30:") and "harness_model" in message
               for message in messages)
    assert b"harness_model" in admin_client.get("/cases/adder/v30/").content
    assert b"harness_model" not in client.get("/cases/adder/v30/").content  # staff only
    version = CaseVersion.objects.get(case__slug="adder", version="v30")
    assert b"harness_model" in admin_client.get(f"/admin/catalog/caseversion/{version.pk}/change/").content
