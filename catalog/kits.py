"""Take-part kits: a zip of what `seed_run` lays out for a variant, with a README of the rules.

`README.md` at the top of the zip says how to build, what the module must export, and every
limit; the run root sits beside it in `run/`, exactly as `seed_run` writes it (so the README can
never clash with a file of the workspace), and the fuel meter in `meter/` (catalog/metering.py). Held-out inputs and
answers are not among a
version's files, so they cannot be in a kit; a test compares every member with every one.

The bytes are fixed: members in sorted order, one fixed timestamp, fixed permissions, built
once and stored (`Kit`), so every download of a version's kit is byte-identical and its ETag
strong. The README holds the site's limits too: a change of settings builds a new kit (its
digest names what it was built from).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string

from catalog.metering import METER_FOLDER, contract_of, meter_files
from catalog.models import CaseVersion, Kit, Variant
from catalog.samples import GENERATOR, publishes_generator, version_samples
from catalog.seeding import run_root_files
from engine.meter.contract import Contract
from engine.toolchain import RUST_RELEASE

RUN_FOLDER = "run"
README = "README.md"
FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # every member's timestamp: the zip's bytes do not depend on when


@dataclass(frozen=True)
class Limits:
    """What a submission may use, from the manifest and the site's settings."""

    fuel_limit: int
    max_memory_bytes: int
    wall_seconds: float
    build_seconds: float
    module_bytes: int
    source_bytes: int


def limits_of(version: CaseVersion) -> Limits:
    return Limits(
        fuel_limit=version.fuel_limit, max_memory_bytes=version.max_memory_bytes,
        wall_seconds=settings.SCORING_WALL_SECONDS,
        build_seconds=min(settings.SCORING_BUILD_TIMEOUT, version.max_runtime_seconds),
        module_bytes=settings.SCORING_MAX_MODULE_BYTES, source_bytes=settings.SCORING_MAX_SOURCE_BYTES,
    )


def readme(version: CaseVersion, variant: Variant, contract: Contract) -> str:
    return render_to_string("catalog/kit_readme.md", {
        "version": version, "case": version.case, "variant": variant, "limits": limits_of(version),
        "inputs": list(version.held_out_inputs.order_by("position").values("kind", "input_path", "fuel_runway",
                                                                          "ceiling", "input_size")),
        "run_folder": RUN_FOLDER, "site_url": settings.SITE_URL, "meter_folder": METER_FOLDER,
        "contract": {"wasmtime": contract.wasmtime, "config_digest": contract.config_digest,
                     "runways": [{"name": PurePosixPath(runway.input).stem, "runway": runway.runway}
                                 for runway in contract.runways if runway.kind == "stress"]},
        "samples": [{"input": sample.name, "expected": sample.name[:-len(".json")] + ".out" if sample.expected else ""}
                    for sample in version_samples(version)],
        "compiler": f"rustc {RUST_RELEASE}", "rust_release": RUST_RELEASE,
        "generator": GENERATOR if publishes_generator(version) else "",
    })


class HeldOutInKit(Exception):
    """A member of a kit would be a held-out file: validation prevents it; this is the last guard."""


class UnsafeKitMember(Exception):
    """A member's name would be read as another path by some extractor (a backslash, a `..`, an
    absolute path): validation refuses such names; this is the last guard, for versions
    imported before it did."""


def build_zip(version: CaseVersion, variant: Variant, text: str, meter: dict[str, bytes]) -> bytes:
    members = {f"{RUN_FOLDER}/{path}": content for path, content in run_root_files(version, variant).items()}
    members.update({f"{METER_FOLDER}/{path}": content for path, content in meter.items()})
    members[README] = text.encode("utf-8")
    held_out = {bytes(content) for pair in version.held_out_inputs.values_list("input_bytes", "expected_bytes")
                for content in pair}
    unsafe = sorted(name for name in members if "\\" in name or name.startswith("/") or ".." in name.split("/"))
    if unsafe:
        raise UnsafeKitMember(f"{version} {variant.slug}: {', '.join(unsafe)} is not a safe name in a zip")
    leaked = sorted(name for name, content in members.items() if content in held_out)
    if leaked:
        raise HeldOutInKit(f"{version} {variant.slug}: {', '.join(leaked)} would be a held-out file")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3  # unix, whatever machine builds it
            archive.writestr(info, members[name])
    return buffer.getvalue()


def kit_for(version: CaseVersion, variant: Variant, engine: tuple[str, str] | None = None) -> Kit:
    """The stored kit of this variant (built now if none matches what it would be built from), its
    meter pinned to `engine` (the one its board counts with; this process's by default)."""
    contract = contract_of(version, variant, engine)
    text = readme(version, variant, contract)
    meter = meter_files(contract)
    source = hashlib.sha256(f"{version.digest}\0{variant.slug}\0{text}".encode())
    for path in sorted(meter):  # the engine's code and the contract: a kit built by other code is another kit
        source.update(f"\0{path}\0".encode() + hashlib.sha256(meter[path]).digest())
    source = source.hexdigest()
    found = Kit.objects.filter(variant=variant, source_digest=source).first()
    if found is not None:
        return found
    content = build_zip(version, variant, text, meter)
    try:
        with transaction.atomic():
            Kit.objects.filter(variant=variant).delete()
            return Kit.objects.create(variant=variant, source_digest=source, content=content, size=len(content),
                                      digest=hashlib.sha256(content).hexdigest())
    except IntegrityError:  # a concurrent request stored the same kit first
        return Kit.objects.get(variant=variant, source_digest=source)
