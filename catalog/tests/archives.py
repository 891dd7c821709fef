"""Archives for the admin's import in tests: packing a folder as a harness or a browser would, and
every hostile archive the import must refuse, with the reason it must give."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

from catalog.tests.trees import ADDER_V1

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


def new_version_folder(catalog, tmp_path, name: str = "v20") -> Path:
    """A copy of adder v1 with a new changelog: a legitimate new version."""
    folder = tmp_path / "upload" / name
    shutil.copytree(catalog.root / ADDER_V1, folder)
    (folder / "changelog.md").write_text(f"# {name}\n\nUploaded.\n")
    return folder


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
    ("tar-pax-gigabyte", lambda: _tar_with_extended_header(tarfile.XHDTYPE),
     "an extended header of 1,073,741,824 bytes"),
    ("tar-longname-gigabyte", lambda: _tar_with_extended_header(tarfile.GNUTYPE_LONGNAME), "an extended header of"),
    ("zip-lying-directory", _zip_with_a_lying_directory, "more than 50 entries need"),
    ("zip-traversal", lambda: _zip_with([("../../escaped.txt", b"x")]), "leaves the archive"),
    ("zip-absolute", lambda: _zip_with([("/tmp/escaped.txt", b"x")]), "absolute paths are not allowed"),
    ("zip-backslash", lambda: _zip_with([("v1\\..\\..\\escaped.txt", b"x")]), "backslashes"),
    ("zip-symlink", lambda: _zip_with([(_symlink_zip_entry(), b"/etc/passwd")]), "links are not allowed"),
    ("zip-bomb", lambda: _zip_with([("v30/bomb.bin", bytes(50_000_000))]), "unpacks to more than"),
    ("zip-too-many", lambda: _zip_with([(f"v30/{index}.txt", b"") for index in range(60)]), "more than 50 entries"),
    ("zip-duplicate", lambda: _zip_with_duplicates(), "appears twice"),
    ("tar-traversal", lambda: _tar_with([_tar_member("../escaped.txt")], {"../escaped.txt": b"x"}),
     "leaves the archive"),
    ("tar-symlink", lambda: _tar_with([_tar_member("v30/link", tarfile.SYMTYPE, "/etc/passwd")]),
     "links are not allowed"),
    ("tar-hardlink", lambda: _tar_with([_tar_member("v30/link", tarfile.LNKTYPE, "/etc/passwd")]),
     "links are not allowed"),
    ("tar-device", lambda: _tar_with([_tar_member("v30/dev", tarfile.CHRTYPE)]), "only files and folders"),
    ("tar-fifo", lambda: _tar_with([_tar_member("v30/fifo", tarfile.FIFOTYPE)]), "only files and folders"),
    ("garbage", lambda: b"this is not an archive at all", "not a .zip or .tar.gz archive"),
    ("truncated-gzip", lambda: _tar_with([_tar_member("v30/a.txt")], {"v30/a.txt": os.urandom(20_000)})[:5_000],
     "could not be read"),
    ("empty", lambda: b"", "not a .zip or .tar.gz archive"),
]


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
    ("slug-300", lambda p, t: _with_slug(p, t, f'slug = "{"a" * 300}"'),
     "slug: must be at most 100 characters, not 300"),
    ("slug-traversal", lambda p, t: _with_slug(p, t, 'slug = "../../etc"'), "must match"),
    ("tar-latin1-name", _with_latin1_member, "caf\\xe9.md`: the name is not valid UTF-8"),
    ("zip-false-utf8-flag", _zip_lying_about_utf8, "name is not valid UTF-8"),
]
