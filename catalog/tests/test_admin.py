"""Staff pages: read-only catalog, "Import case version" from an archive, re-scan, permissions."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User

from catalog.archives import import_archive
from catalog.importer import import_catalog
from catalog.models import CaseVersion
from catalog.tests.archives import (
    HOSTILE,
    IMPORT_URL,
    UNSTORABLE_ARCHIVES,
    _zip_with,
    new_version_folder,
    tar_folder,
    upload,
    zip_folder,
)
from catalog.tests.trees import ADDER_V1
from lib.unpack import ArchiveLimits

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(imported):
    """The valid test catalog imported (the tree it came from, for tests that change it)."""
    return imported


# --- permissions and immutability ----------------------------------------------------------------


def test_admin_pages_require_staff(client, published):
    for url in ("/admin/", "/admin/catalog/caseversion/", IMPORT_URL):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    User.objects.create_user("visitor", password="pw")
    client.login(username="visitor", password="pw")
    assert client.get(IMPORT_URL).status_code == 302


def test_staff_without_the_import_permission_cannot_import(client, published, tmp_path):
    User.objects.create_user("helper", password="pw", is_staff=True)
    client.login(username="helper", password="pw")
    assert client.get(IMPORT_URL).status_code == 403
    assert client.post("/admin/catalog/caseversion/rescan/").status_code == 403
    user = User.objects.get(username="helper")
    user.user_permissions.add(Permission.objects.get(codename="import_caseversion"))
    assert client.get(IMPORT_URL).status_code == 200


def test_imported_versions_are_read_only_in_the_admin(admin_client, published):
    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    page = admin_client.get(f"/admin/catalog/caseversion/{version.pk}/change/")
    assert page.status_code == 200
    assert b'name="name"' not in page.content  # shown, not editable
    assert admin_client.post(f"/admin/catalog/caseversion/{version.pk}/change/", {"name": "Hacked"}).status_code == 403
    assert admin_client.post(f"/admin/catalog/caseversion/{version.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.get("/admin/catalog/caseversion/add/").status_code == 403
    version.refresh_from_db()
    assert version.name == "Adder"


def test_the_change_list_filters_and_offers_import_and_rescan(admin_client, published):
    html = admin_client.get("/admin/catalog/caseversion/", {"difficulty__exact": "medium"}).content.decode()
    assert "Import case version" in html and "Re-scan catalog folder" in html
    assert "counter" in html and ">adder<" not in html


# --- importing archives ---------------------------------------------------------------------------


@pytest.mark.parametrize("packer, name", [(zip_folder, "v20.zip"), (tar_folder, "v20.tar.gz")])
def test_a_version_folder_archive_is_validated_and_imported(admin_client, published, tmp_path, packer, name):
    folder = new_version_folder(published, tmp_path)
    response = upload(admin_client, packer(folder, "v20"), name)
    assert response.status_code == 302, response.content.decode()
    version = CaseVersion.objects.get(case__slug="adder", version="v20")
    assert version.case.folder == "performance/easy/adder"
    assert version.changelog == "# v20\n\nUploaded.\n"
    assert version.held_out_inputs.count() == 3
    messages = [str(message) for message in admin_client.get("/admin/catalog/caseversion/").context["messages"]]
    assert any("Imported performance/easy/adder/v20" in message for message in messages)


def test_files_at_the_top_of_an_archive_need_a_version_name(admin_client, published, tmp_path):
    folder = new_version_folder(published, tmp_path)
    data = zip_folder(folder, "")
    response = upload(admin_client, data, "flat.zip")
    assert response.status_code == 400
    assert b"name the version" in response.content
    assert upload(admin_client, data, "flat.zip", version="v21").status_code == 302
    assert CaseVersion.objects.filter(case__slug="adder", version="v21").exists()


def test_a_catalog_tree_archive_imports_every_version(admin_client, db, catalog, tmp_path):
    response = upload(admin_client, tar_folder(catalog.root, "test-cases"), "catalog.tar.gz")
    assert response.status_code == 302
    assert CaseVersion.objects.count() == 4


def test_every_error_is_shown_and_nothing_is_imported(admin_client, published, tmp_path):
    good = new_version_folder(published, tmp_path, "v20")
    bad = new_version_folder(published, tmp_path, "v21")
    manifest = (bad / "test-case.toml").read_text()
    (bad / "test-case.toml").write_text(manifest.replace("fuel_limit = 1_000_000",
                                                         "fuel_limit = 0").replace('name = "Adder"', 'name = ""'))
    tree = tmp_path / "tree" / "performance" / "easy" / "adder"
    tree.mkdir(parents=True)
    shutil.move(str(good), tree / "v20")
    shutil.move(str(bad), tree / "v21")
    before = CaseVersion.objects.count()
    response = upload(admin_client, zip_folder(tmp_path / "tree", ""), "two.zip")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was imported. 2 problems" in html
    assert "performance/easy/adder/v21/test-case.toml: sandbox.fuel_limit: must be greater than 0, not 0" in html
    assert "performance/easy/adder/v21/test-case.toml: name: must not be empty" in html
    assert CaseVersion.objects.count() == before  # not even the valid v20


def _tree_of(tmp_path, *folders: Path) -> Path:
    tree = tmp_path / "tree" / "performance" / "easy" / "adder"
    tree.mkdir(parents=True)
    for folder in folders:
        shutil.move(str(folder), tree / folder.name)
    return tmp_path / "tree"


@pytest.mark.parametrize("dry_run", [False, True])
def test_an_archive_validates_each_version_once(published, tmp_path, monkeypatch, dry_run):
    from catalog.manifest import scan as scan_module

    calls: list[str] = []
    check = scan_module.check_version_folder

    def counting(version_dir, rel_dir, *args, **kwargs):
        calls.append(rel_dir)
        return check(version_dir, rel_dir, *args, **kwargs)

    monkeypatch.setattr(scan_module, "check_version_folder", counting)
    tree = _tree_of(tmp_path, new_version_folder(published, tmp_path, "v20"), new_version_folder(published, tmp_path,
                                                                                                 "v21"))
    archive = tmp_path / "two.zip"
    archive.write_bytes(zip_folder(tree, ""))
    outcome = import_archive(archive, dry_run=dry_run)
    assert outcome.ok, outcome.errors
    assert sorted(calls) == ["performance/easy/adder/v20", "performance/easy/adder/v21"]
    assert CaseVersion.objects.filter(version__in=["v20", "v21"]).count() == (0 if dry_run else 2)


def test_an_archive_locks_its_cases_first_and_bumps_the_pages_last(published, tmp_path):
    """One transaction writes every version of an archive: its cases are locked before anything is
    written and the page generation moves once, after every version (the house's lock order), so a
    command-line import of one of those cases waits for it rather than deadlocking with it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    tree = _tree_of(tmp_path, new_version_folder(published, tmp_path, "v20"), new_version_folder(published, tmp_path,
                                                                                                 "v21"))
    archive = tmp_path / "two.zip"
    archive.write_bytes(zip_folder(tree, ""))
    with CaptureQueriesContext(connection) as queries:
        assert import_archive(archive).ok
    statements = [query["sql"] for query in queries.captured_queries]
    written = [n for n, sql in enumerate(statements) if sql.startswith('INSERT INTO "catalog_caseversion"')]
    bumps = [n for n, sql in enumerate(statements) if sql.startswith('UPDATE "sitecache_generation"')]
    assert len(written) == 2 and len(bumps) == 1 and bumps[0] > written[-1]
    if connection.vendor == "postgresql":
        locks = [n for n, sql in enumerate(statements) if 'FROM "catalog_case"' in sql and "FOR NO KEY UPDATE" in sql]
        assert locks and locks[0] < written[0]


def test_a_refusal_by_what_is_published_undoes_the_whole_archive(published, tmp_path):
    changed = new_version_folder(published, tmp_path, "v1")  # v1 is published with other bytes
    tree = _tree_of(tmp_path, new_version_folder(published, tmp_path, "v0"), changed)
    archive = tmp_path / "two.zip"
    archive.write_bytes(zip_folder(tree, ""))
    before = CaseVersion.objects.count()
    outcome = import_archive(archive)
    assert not outcome.ok
    assert any("published versions are immutable" in error for error in outcome.errors)
    assert CaseVersion.objects.count() == before  # v0, valid and imported first, is rolled back


def test_a_changed_published_version_is_refused(admin_client, published, tmp_path):
    folder = new_version_folder(published, tmp_path, "v1")  # same name as a published version
    response = upload(admin_client, zip_folder(folder, "v1"), "v1.zip")
    assert response.status_code == 400
    assert b"published versions are immutable: add a new version folder" in response.content


def test_an_oversized_upload_is_refused_before_reading_it(admin_client, published, settings):
    settings.CATALOG_MAX_UPLOAD_BYTES = 1024
    response = upload(admin_client, b"x" * 4096, "big.zip")
    assert response.status_code == 200
    assert b"The archive is larger than 1,024 bytes." in response.content


@pytest.mark.parametrize("name, build, message", HOSTILE, ids=[item[0] for item in HOSTILE])
def test_hostile_archives_are_refused_and_write_nothing_outside(published, tmp_path, monkeypatch, name, build, message):
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    archive = tmp_path / f"{name}.bin"
    archive.write_bytes(build())
    before = CaseVersion.objects.count()
    outcome = import_archive(archive, limits=ArchiveLimits(max_entries=50, max_total_bytes=10_000_000,
                                                           max_file_bytes=10_000_000))
    assert not outcome.ok
    assert any(message in error for error in outcome.errors), outcome.errors
    assert CaseVersion.objects.count() == before
    assert not (tmp_path / "escaped.txt").exists() and not Path("/tmp/escaped.txt").exists()
    assert list(workdir.iterdir()) == []


def test_hostile_archives_show_their_reason_on_the_form(admin_client, published):
    response = upload(admin_client, _zip_with([("../../escaped.txt", b"x")]), "evil.zip")
    assert response.status_code == 400
    assert b"leaves the archive" in response.content


# --- re-scanning the catalog folder -------------------------------------------------------------


def test_rescan_imports_new_versions_from_the_catalog_folder(admin_client, published, settings):
    settings.CATALOG_DIR = published.root
    shutil.copytree(published.root / ADDER_V1, published.root / "performance/easy/adder/v30")
    published.write("changelog.md", "# v30\n", label="performance/easy/adder/v30")
    response = admin_client.post("/admin/catalog/caseversion/rescan/", follow=True)
    messages = [str(message) for message in response.context["messages"]]
    assert any("1 imported, 4 unchanged, 0 refused" in message for message in messages)
    assert CaseVersion.objects.filter(case__slug="adder", version="v30").exists()
    assert admin_client.get("/admin/catalog/caseversion/rescan/").status_code == 405  # POST only


def test_rescan_reports_refusals(admin_client, published, settings):
    settings.CATALOG_DIR = published.root
    published.write("changelog.md", "# rewritten\n")
    response = admin_client.post("/admin/catalog/caseversion/rescan/", follow=True)
    messages = [str(message) for message in response.context["messages"]]
    assert any(message.startswith(f"Refused {ADDER_V1}") and "immutable" in message for message in messages)


# --- names that cannot be stored: a validation error with the file and reason, never a 500 ---------


@pytest.mark.parametrize("name, build, message", UNSTORABLE_ARCHIVES, ids=[item[0] for item in UNSTORABLE_ARCHIVES])
def test_an_archive_with_names_that_cannot_be_stored_is_refused_with_the_reason(admin_client, published, tmp_path,
                                                                                name, build, message):
    response = upload(admin_client, build(published, tmp_path), f"{name}.bin")
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not CaseVersion.objects.filter(version="v40").exists()


def test_a_catalog_folder_with_an_unstorable_file_name_is_refused_at_import_not_a_traceback(catalog, db):
    with open(os.fsencode(catalog.path("specs")) + b"/caf\xe9.md", "wb") as stream:
        stream.write(b"x")
    outcome = import_catalog(catalog.root)
    refused = next(result for result in outcome.results if result.label == ADDER_V1)
    assert refused.action == "refused"
    assert any("file name is not valid UTF-8" in reason for reason in refused.reasons)
