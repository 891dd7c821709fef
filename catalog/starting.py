"""`manage.py startcase`: a new case whose v1 validates and passes `check_case` as it is — the
manifest with every required key, its description, changelog, prompt, rules, schemas, a seeded
generator (run once: it writes the inputs, the workspace's public samples and, from its plain
reference, their answers) with the checksum list of what it wrote, an input validator, a starter
workspace with the ABI, the site's compiler pinned and a generator of larger inputs — and its
reference solution (`accepted/reference`), under the solutions folder beside
the catalog. The files are templates in `catalog/startcase/`; a failure leaves nothing behind."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from catalog.manifest import DIFFICULTIES, MANIFEST_NAME, SLUG_PATTERN, humanize_slug
from engine.toolchain import RUST_RELEASE
from lib.errors import DomainError

TEMPLATES = Path(__file__).resolve().parent / "startcase"
# What the reference (a sum over the values, its JSON read byte by byte) uses on the skeleton's
# large input, 5,983,766 fuel with wasmtime 50.0.1 and 51.0.0 alike, × 4: headroom, and a limit that still bites.
FUEL_LIMIT = "24_000_000"
CASE_TYPE = "performance"


class StartRefused(DomainError):
    """Nothing was written; the message says why."""


@dataclass(frozen=True)
class Started:
    version_folder: Path
    reference: Path


def _render(source: Path, target: Path, values: dict[str, str]) -> None:
    """Copy the template tree, filling in `@KEY@` in every file."""
    for item in sorted(source.rglob("*")):
        destination = target / item.relative_to(source)
        if item.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            continue
        text = item.read_text("utf-8")
        for key, value in values.items():
            text = text.replace(f"@{key}@", value)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(text, "utf-8")


def write_checksums(version_folder: Path, before: set[Path]) -> None:
    """generator/checksums.sha256: the digest of every file the generator wrote (`sha256sum`'s
    lines, by path), which check_case holds it to."""
    written = sorted(path.relative_to(version_folder).as_posix() for path in version_folder.rglob("*")
                     if path.is_file() and path not in before)
    lines = [f"{hashlib.sha256((version_folder / rel).read_bytes()).hexdigest()}  {rel}\n" for rel in written]
    (version_folder / "generator" / "checksums.sha256").write_text("".join(lines))


def slug_taken(catalog: Path, slug: str) -> str | None:
    """Where `slug` is used in the catalog already (a case folder, or a manifest's slug), or None."""
    for manifest in catalog.glob(f"*/*/*/*/{MANIFEST_NAME}"):
        folder = manifest.parent.parent
        if folder.name == slug:
            return str(folder)
        for line in manifest.read_text("utf-8", "replace").splitlines():
            if line.replace(" ", "").startswith("slug=") and line.split("=", 1)[1].strip().strip('"') == slug:
                return str(manifest)
    return None


def start_case(slug: str, difficulty: str, catalog: Path, solutions: Path, name: str | None = None) -> Started:
    """Write the new case's v1 and its reference solution. Raises StartRefused."""
    if not SLUG_PATTERN.fullmatch(slug) or len(slug) > 100:
        raise StartRefused("bad_slug", f"{slug!r} is not a slug: lowercase letters, digits and hyphens, starting "
                                       "with a letter or a digit")
    if difficulty not in DIFFICULTIES:
        raise StartRefused("bad_difficulty", f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    if not catalog.is_dir():
        raise StartRefused("no_catalog", f"{catalog} is not a folder: name the catalog with --catalog")
    taken = slug_taken(catalog, slug)
    if taken is not None:
        raise StartRefused("slug_taken", f"the slug {slug} is taken: {taken}")
    case_folder = catalog / CASE_TYPE / difficulty / slug
    reference = solutions / slug / "accepted" / "reference"
    for existing in (case_folder, solutions / slug):
        if existing.exists() or existing.is_symlink():
            raise StartRefused("exists", f"{existing} exists already: nothing was written")
    values = {"SLUG": slug, "NAME": name or humanize_slug(slug), "DIFFICULTY": difficulty, "FUEL_LIMIT": FUEL_LIMIT,
              "RUST_RELEASE": RUST_RELEASE}
    version_folder = case_folder / "v1"
    try:
        _render(TEMPLATES / "case", version_folder, values)
        before = {path for path in version_folder.rglob("*") if path.is_file()}
        done = subprocess.run([sys.executable, "generator/generate.py"], cwd=version_folder, capture_output=True,
                              text=True, timeout=300)
        if done.returncode != 0:
            raise StartRefused("generator_failed", f"the generator failed: {done.stderr.strip()[-2000:]}")
        write_checksums(version_folder, before)
        _render(TEMPLATES / "reference", reference, values)
    except BaseException:
        shutil.rmtree(case_folder, ignore_errors=True)
        shutil.rmtree(solutions / slug, ignore_errors=True)
        raise
    return Started(version_folder, reference)
