"""Staff pages: read-only catalog, "Import case version" from an archive, re-scan, permissions."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User

from catalog.archives import import_archive
from catalog.importer import import_catalog
from catalog.models import CaseVersion
from catalog.tests.conftest import ADDER_V1
from lib.unpack import ArchiveLimits

pytestmark = pytest.mark.django_db
IMPORT_URL = "/admin/catalog/caseversion/import/"


def zip_folder(folder: Path, arcroot: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{arcroot}/{path.relative_to(folder).as_posix()}".lstrip("/"))
    return buffer.getvalue()


def tar_folder(folder: Path, arcroot: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=arcroot)
    return buffer.getvalue()


def upload(client, data: bytes, name: str, version: str = ""):
    file = io.BytesIO(data)
    file.name = name
    return client.post(IMPORT_URL, {"archive": file, "version": version})


@pytest.fixture
def published(catalog):
    assert import_catalog(catalog.root).ok
    return catalog


def new_version_folder(catalog, tmp_path, name: str = "v20") -> Path:
    """A copy of adder v1 with a new changelog: a legitimate new version."""
    folder = tmp_path / "upload" / name
    shutil.copytree(catalog.root / ADDER_V1, folder)
    (folder / "changelog.md").write_text(f"# {name}\n\nUploaded.\n")
    return folder


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
    (bad / "test-case.toml").write_text(manifest.replace("fuel_limit = 1_000_000", "fuel_limit = 0").replace('name = "Adder"', 'name = ""'))
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
    tree = _tree_of(tmp_path, new_version_folder(published, tmp_path, "v20"), new_version_folder(published, tmp_path, "v21"))
    archive = tmp_path / "two.zip"
    archive.write_bytes(zip_folder(tree, ""))
    outcome = import_archive(archive, dry_run=dry_run)
    assert outcome.ok, outcome.errors
    assert sorted(calls) == ["performance/easy/adder/v20", "performance/easy/adder/v21"]
    assert CaseVersion.objects.filter(version__in=["v20", "v21"]).count() == (0 if dry_run else 2)


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


def _zip_with(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def _tar_with(members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            payload = (data or {}).get(member.name)
            if payload is not None:
                member.size = len(payload)
                archive.addfile(member, io.BytesIO(payload))
            else:
                archive.addfile(member)
    return buffer.getvalue()


def _zip_with_duplicates() -> bytes:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate we are making on purpose
        return _zip_with([("v30/a.txt", b"1"), ("v30/a.txt", b"2")])


def _symlink_zip_entry() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo("v30/test-case.toml")
    info.external_attr = (0o120777 << 16)
    return info


def _tar_member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type = kind
    member.linkname = link
    return member


def _tar_with_extended_header(kind: bytes) -> bytes:
    """A tar whose first header says a PAX (or GNU long-name) header of 1 GiB follows: refused
    from the size in the header, before tarfile would read it into memory."""
    header = tarfile.TarInfo("././@LongLink" if kind == tarfile.GNUTYPE_LONGNAME else "pax")
    header.type, header.size = kind, 1 << 30
    import gzip

    return gzip.compress(header.tobuf(format=tarfile.USTAR_FORMAT) + b"path=x\n" * 1000)


def _zip_with_a_lying_directory() -> bytes:
    """60 entries whose directory (120 KB of comments) is more than 50 entries need, with an end
    record that says it holds one entry."""
    entries = []
    for index in range(60):
        info = zipfile.ZipInfo(f"v30/{index}.txt")
        info.comment = b"c" * 2000
        entries.append((info, b""))
    data = bytearray(_zip_with(entries))
    end = data.rindex(b"PK\x05\x06")
    data[end + 8:end + 12] = (1).to_bytes(2, "little") * 2  # entries on this disk, and in all
    return bytes(data)


HOSTILE = [
    ("tar-pax-gigabyte", lambda: _tar_with_extended_header(tarfile.XHDTYPE), "an extended header of 1,073,741,824 bytes"),
    ("tar-longname-gigabyte", lambda: _tar_with_extended_header(tarfile.GNUTYPE_LONGNAME), "an extended header of"),
    ("zip-lying-directory", _zip_with_a_lying_directory, "more than 50 entries need"),
    ("zip-traversal", lambda: _zip_with([("../../escaped.txt", b"x")]), "leaves the archive"),
    ("zip-absolute", lambda: _zip_with([("/tmp/escaped.txt", b"x")]), "absolute paths are not allowed"),
    ("zip-backslash", lambda: _zip_with([("v1\\..\\..\\escaped.txt", b"x")]), "backslashes"),
    ("zip-symlink", lambda: _zip_with([(_symlink_zip_entry(), b"/etc/passwd")]), "links are not allowed"),
    ("zip-bomb", lambda: _zip_with([("v30/bomb.bin", bytes(50_000_000))]), "unpacks to more than"),
    ("zip-too-many", lambda: _zip_with([(f"v30/{index}.txt", b"") for index in range(60)]), "more than 50 entries"),
    ("zip-duplicate", lambda: _zip_with_duplicates(), "appears twice"),
    ("tar-traversal", lambda: _tar_with([_tar_member("../escaped.txt")], {"../escaped.txt": b"x"}), "leaves the archive"),
    ("tar-symlink", lambda: _tar_with([_tar_member("v30/link", tarfile.SYMTYPE, "/etc/passwd")]), "links are not allowed"),
    ("tar-hardlink", lambda: _tar_with([_tar_member("v30/link", tarfile.LNKTYPE, "/etc/passwd")]), "links are not allowed"),
    ("tar-device", lambda: _tar_with([_tar_member("v30/dev", tarfile.CHRTYPE)]), "only files and folders"),
    ("tar-fifo", lambda: _tar_with([_tar_member("v30/fifo", tarfile.FIFOTYPE)]), "only files and folders"),
    ("garbage", lambda: b"this is not an archive at all", "not a .zip or .tar.gz archive"),
    ("truncated-gzip", lambda: _tar_with([_tar_member("v30/a.txt")], {"v30/a.txt": os.urandom(20_000)})[:5_000], "could not be read"),
    ("empty", lambda: b"", "not a .zip or .tar.gz archive"),
]


@pytest.mark.parametrize("name, build, message", HOSTILE, ids=[item[0] for item in HOSTILE])
def test_hostile_archives_are_refused_and_write_nothing_outside(published, tmp_path, monkeypatch, name, build, message):
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    archive = tmp_path / f"{name}.bin"
    archive.write_bytes(build())
    before = CaseVersion.objects.count()
    outcome = import_archive(archive, limits=ArchiveLimits(max_entries=50, max_total_bytes=10_000_000, max_file_bytes=10_000_000))
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


def _with_slug(published, tmp_path, slug_line: str) -> bytes:
    folder = new_version_folder(published, tmp_path, "v40")
    manifest = folder / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('slug = "adder"', slug_line))
    return zip_folder(folder, "v40")


def _with_latin1_member(published, tmp_path) -> bytes:
    """A tar whose member name is Latin-1 bytes (tarfile reads them as lone surrogates)."""
    folder = new_version_folder(published, tmp_path, "v40")
    with tarfile.open(fileobj=io.BytesIO(tar_folder(folder, "v40")), mode="r:gz") as original:
        members = [(info, original.extractfile(info).read() if info.isfile() else None) for info in original]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", encoding="utf-8", errors="surrogateescape") as archive:
        for info, payload in members:
            archive.addfile(info, io.BytesIO(payload) if payload is not None else None)
        member = _tar_member("v40/specs/caf\udce9.md")
        member.size = 3
        archive.addfile(member, io.BytesIO(b"abc"))
    return buffer.getvalue()


def _zip_lying_about_utf8(published, tmp_path) -> bytes:
    data = _zip_with([("v40/abc.txt", b"x")]).replace(b"v40/abc.txt", b"v40/a\xffc.txt")
    return data.replace(b"\x14\x00\x00\x00", b"\x14\x00\x00\x08", 2)  # set the UTF-8 name flag (bit 11)


UNSTORABLE_ARCHIVES = [
    ("slug-nul", lambda p, t: _with_slug(p, t, 'slug = "add\\u0000er"'), "slug: must not contain NUL characters"),
    ("slug-300", lambda p, t: _with_slug(p, t, f'slug = "{"a" * 300}"'), "slug: must be at most 100 characters, not 300"),
    ("slug-traversal", lambda p, t: _with_slug(p, t, 'slug = "../../etc"'), "must match"),
    ("tar-latin1-name", _with_latin1_member, "caf\\xe9.md`: the name is not valid UTF-8"),
    ("zip-false-utf8-flag", _zip_lying_about_utf8, "name is not valid UTF-8"),
]


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
