"""What a retired version publishes of what it held out (docs/retiring.md): its held-out inputs and
expected answers, as one zip with a `manifest.json` that lists them in the manifest's order.

The zip's bytes are fixed (members in order, one timestamp, fixed permissions): the same
version gives the same file. It is built once, when the version is retired (or on the first
request, if it is missing), and kept under HELD_OUT_DIR (VAR_DIR/held-out) by the version's slug, name, digest and the
instant it was retired (a database made again and retired again later is a new file, never an old
one with another date in its manifest).
Nothing here is served for a current version: the caller checks `retired_at`, and
`held_out_members` refuses too.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings

from catalog.kits import FIXED_TIME
from catalog.manifest.files import content_digests, embeds
from catalog.models import CaseVersion, HeldOutInput

MANIFEST = "manifest.json"
FORMAT = 1


class NotRetired(Exception):
    """The version is current: what it holds out stays held out."""


def held_out_files(version_ids) -> dict[int, list[bytes]]:
    """Each version's held-out inputs and answers, as stored."""
    found: dict[int, list[bytes]] = {}
    for version_id, given, expected in (HeldOutInput.objects.filter(version_id__in=list(version_ids))
                                        .values_list("version_id", "input_bytes", "expected_bytes")):
        found.setdefault(version_id, []).extend((bytes(given), bytes(expected)))
    return found


def shares_content(published: list[bytes], held: list[bytes]) -> bool:
    """Whether publishing `published` would show any of `held`: the same bytes or JSON document,
    or one inside the other (as the catalog's own check for shown files: catalog/manifest/files.py)."""
    digests = {digest for content in published for digest in content_digests(content)}
    if any(digests & content_digests(content) for content in held):
        return True
    return any(embeds(content, other) or embeds(other, content) for content in published for other in held)


def held_out_members(version: CaseVersion) -> dict[str, bytes]:
    """manifest.json, then each input and its expected answer under its path in the version folder."""
    if version.retired_at is None:
        raise NotRetired(f"{version} is current")
    listed, members = [], {}
    for item in version.held_out_inputs.order_by("position"):
        given, expected = bytes(item.input_bytes), bytes(item.expected_bytes)
        listed.append({"kind": item.kind, "input": item.input_path, "expected": item.expected_path,
                       "fuel_runway": item.fuel_runway, "ceiling": item.ceiling,
                       "input_sha256": hashlib.sha256(given).hexdigest(),
                       "expected_sha256": hashlib.sha256(expected).hexdigest()})
        members[item.input_path], members[item.expected_path] = given, expected
    manifest = {"format": FORMAT, "case": version.case.slug, "version": version.version,
                "fuel_limit": version.fuel_limit, "retired_at": version.retired_at.isoformat(), "inputs": listed}
    return {MANIFEST: json.dumps(manifest, indent=2).encode("utf-8") + b"\n", **members}


def held_out_archive(version: CaseVersion) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in held_out_members(version).items():
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, content)
    return buffer.getvalue()


def held_out_file(version: CaseVersion) -> Path:
    """The version's published zip on disk (written now if it is not yet). Raises NotRetired."""
    if version.retired_at is None:
        raise NotRetired(f"{version} is current")
    folder = Path(settings.HELD_OUT_DIR)
    # A version is retired once, for good: its zip never changes. Two versions may have the same
    # digest (the same folder contents), never the same slug and version; the instant tells a
    # database made afresh (retired again: another date in the manifest) from the one before.
    instant = version.retired_at.strftime("%Y%m%dT%H%M%S%f")
    path = folder / f"{version.case.slug}-{version.version}-{version.digest}-{instant}.zip"
    if not path.is_file():
        folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        content = held_out_archive(version)
        handle, draft = tempfile.mkstemp(prefix=".held-out-", dir=folder)
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.chmod(draft, 0o644)
        os.replace(draft, path)  # whole or not at all; two requests at once write the same bytes
    return path
