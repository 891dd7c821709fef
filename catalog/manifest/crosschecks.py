"""Rules across sections or versions: destinations that clash, held-out files kept private,
templates that render, and what versions of a catalog must agree on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from catalog.manifest.context import context_names, manifest_template_context
from catalog.manifest.fields import Folder, Table, suggest
from catalog.manifest.files import content_relation
from catalog.manifest.types import (
    MANIFEST_NAME,
    PROMPT_DEST,
    HeldOutCase,
    Manifest,
    ManifestError,
    SpecFile,
    VersionSource,
    version_sort_key,
)
from lib.templates import TemplateError, render_template


def check_dest_clashes(owner: Table, specs: list[SpecFile], taken: dict[str, str], reserved: dict[str, str]) -> None:
    """No two specs seeded into one run, nor a spec and a contract schema or the prompt, share a destination."""
    reserved = {**reserved, PROMPT_DEST: "the rendered prompt"}  # paths come normalised (Table.path)
    seen = dict(taken)
    for index, spec in enumerate(specs):
        key = f"spec[{index}]"
        if spec.dest in reserved:
            owner.error(f"{key}.dest", f"`{spec.dest}` is already used by {reserved[spec.dest]}")
        elif spec.dest in seen:
            owner.error(f"{key}.dest", f"`{spec.dest}` is already used by {seen[spec.dest]}")
        else:
            seen[spec.dest] = key if owner.in_manifest else f"{key} of this variant"


def check_rendering(folder: Folder, manifest: Manifest) -> None:
    """Render every template for every variant, as seeding a run would. A template that
    does not parse, or that this renderer cannot render as Handlebars.js would, is an
    error. A name the site's context lacks renders as nothing, as in Handlebars, and is a
    warning naming the template, the line and the closest name the context has: the
    harness may offer names this site does not (`{{harness_model}}`), and a typo
    (`{{case.nmae}}`) stays visible."""
    reported: set[tuple[str, str]] = set()
    warned: set[tuple] = set()
    # What a template renders is seeded and downloadable: it may no more equal or contain a
    # held-out file than a plain file may (a comment splitting the bytes hides them from the
    # file checks).
    held = [(rel, identity) for rel in dict.fromkeys(path for case in manifest.cases
                                                      for path in (case.input, case.expected))
            if (identity := folder.identity(rel)) is not None]
    for variant in manifest.variants:
        context = manifest_template_context(manifest, variant, folder.version)
        templates = [("prompt", manifest.prompt, folder.manifest_file)]
        templates += [(f"spec[{index}].source", spec.source, folder.manifest_file) for index,
                      spec in enumerate(manifest.specs)]
        templates += [(f"spec[{index}].source", spec.source, folder.file(variant.file)) for index,
                      spec in enumerate(variant.specs)]
        for key, rel, file in templates:
            if not rel.endswith(".hbs") or (file, key) in reported:
                continue
            missing: list[tuple[str, int]] = []
            try:
                rendered = render_template(folder.read(rel), context, missing=missing).encode("utf-8")
            except TemplateError as exc:
                reported.add((file, key))
                folder.error(file, key, f"`{rel}` {exc} (variant `{variant.slug}`)")
                continue
            for held_rel, identity in held:
                relation = content_relation(rendered, identity)
                if relation:
                    reported.add((file, key))
                    folder.error(file, key, f"`{held_rel}` is held out, but `{rel}` rendered for variant "
                                            f"`{variant.slug}` {relation}")
                    break
            for name, line in missing:
                if (file, key, name, line) in warned:
                    continue
                warned.add((file, key, name, line))
                folder.warnings.append(ManifestError(file, key, (
                    f"`{rel}` line {line}: `{name}` names nothing in the site's template context "
                    f"and renders as nothing{suggest(name, context_names(context))}"), folder.label))


PublishedDigests = list[tuple[str, str, str, frozenset[str]]]


def check_held_out_stays_private(folder: Folder, cases: list[HeldOutCase], published: dict[str, str | None],
                                 workspace: str | None) -> tuple[frozenset[str], PublishedDigests]:
    """A held-out file may not also be seeded into a run or shown on the site.

    Compared by path, by what a path resolves to (a symlink), by inode (a hard link) and by
    content: the same bytes, the same JSON document, or its bytes inside a shown file. Returns
    the digests of the held-out files, and of each shown one as (path, key, what, digests), for
    the checks across versions.
    """
    def error(key: str, message: str) -> None:
        folder.error(folder.manifest_file, key, message)

    by_path = {path: key for key, path in published.items() if path}  # normalised by Table.path
    workspace_dir = workspace
    held_out: list[tuple[str, str]] = []  # (key path, rel)
    for index, case in enumerate(cases):
        for key in ("input", "expected"):
            rel = getattr(case, key)
            if rel in by_path:
                error(f"case[{index}].{key}", f"`{rel}` is held out, so it cannot also be {by_path[rel]}")
            elif workspace_dir and (workspace_dir == "." or rel.startswith(workspace_dir + "/")):
                error(f"case[{index}].{key}",
                      f"`{rel}` is held out, so it cannot lie inside the seeded workspace `{workspace}`")
            else:
                held_out.append((f"case[{index}].{key}", rel))
    shown = [(rel, key, key) for rel, key in by_path.items()]
    if workspace_dir:
        shown += [(rel, "workspace", f"in the seeded workspace `{workspace}`") for rel in _files_under(folder.path,
                                                                                                       workspace_dir)]
    held = [(key, rel, folder.identity(rel)) for key, rel in held_out]
    held_out_digests = frozenset(digest for _, _, identity in held if identity for digest in identity.digests)
    published_digests: PublishedDigests = []
    reported: set[tuple[str, str]] = set()
    for shown_rel, shown_key, what in shown:
        identity = folder.identity(shown_rel)
        if identity is None:
            continue
        published_digests.append((shown_rel, shown_key, what, identity.digests))
        for key, held_rel, held_identity in held:
            if held_identity is None or (key, shown_rel) in reported or shown_rel == held_rel:
                continue
            relation = identity.relation_to(held_identity)
            if relation:
                reported.add((key, shown_rel))
                error(key, f"`{held_rel}` is held out, but `{shown_rel}` ({what}) {relation}")
    return held_out_digests, published_digests


def _files_under(root: Path, folder: str) -> list[str]:
    """Relative paths of the files below `folder` (symlinked folders are not entered)."""
    found = []
    for directory, dirnames, filenames in os.walk(root / folder, followlinks=False):
        dirnames.sort()
        base = Path(directory)
        found += [(base / name).relative_to(root).as_posix() for name in sorted(filenames)]
    return found


def held_out_of_other_versions(versions: list[VersionSource], elsewhere: dict[str,
                                                                              str]) -> Iterator[tuple[VersionSource,
                                                                                                      ManifestError]]:
    """(version, error) for each file a version shows or seeds whose content another version holds out."""
    holders = dict(elsewhere)
    for source in versions:
        for digest in source.held_out_digests:
            holders.setdefault(digest, source.label)
    for source in versions:
        for rel, key, what, digests in source.published_digests:
            other = next((holders[digest] for digest in sorted(digests) if holders.get(digest,
                                                                                       source.label) != source.label),
                                                                                       None)
            if other is not None:
                yield source, ManifestError(
                    f"{source.label}/{MANIFEST_NAME}", key,
                    f"`{rel}` ({what}) has the content of a held-out file of `{other}`", source.label,
                )
                break


def slug_unstable(folder_versions: list[VersionSource]) -> list[VersionSource]:
    """Versions whose slug differs from the folder's first (lowest) version."""
    if not folder_versions:
        return []
    ordered = sorted(folder_versions, key=lambda source: version_sort_key(source.version))
    return [source for source in ordered[1:] if source.manifest.slug != ordered[0].manifest.slug]
