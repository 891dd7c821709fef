"""Checking one version folder: its manifest, section by section, then the rules across sections."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from catalog.manifest.crosschecks import check_dest_clashes, check_held_out_stays_private, check_rendering
from catalog.manifest.fields import Folder, Table, json_safe, suggest, type_name
from catalog.manifest.files import digest_files
from catalog.manifest.sections import (
    check_samples,
    read_build,
    read_cases,
    read_contract,
    read_sandbox,
    read_slug,
    read_specs,
    read_tags,
    read_template,
    read_text_file,
    read_variants,
)
from catalog.manifest.shown import name_text_problem, read_line, read_name
from catalog.manifest.types import (
    ARRAY_TABLE_KEYS,
    DIFFICULTIES,
    FORBIDDEN_TABLES,
    IMPORTABLE_TYPES,
    MANIFEST_NAME,
    MAX_NAME_LENGTH,
    ROOT_KEYS,
    TABLE_KEYS,
    Manifest,
    ManifestError,
    VersionSource,
)


def read_manifest(folder: Folder, root: Table, type_folder: str, difficulty_folder: str):
    """(Manifest or None, held-out digests, published digests) for a parsed `test-case.toml`."""
    nothing = (None, frozenset(), [])
    before = len(folder.errors)
    root.no_nul()
    type_ = root.text("type", required=True)
    if type_ is not None:
        if type_ != type_folder:
            root.error("type", f"`{type_}` does not match the type folder `{type_folder}`")
        if type_ not in IMPORTABLE_TYPES:
            # Another type's rules are not ours to check: refuse it by name and stop.
            root.error("type", f"test type `{type_}` is not importable: only `performance` cases can be imported")
            return nothing
    elif type_folder not in IMPORTABLE_TYPES:
        root.error("type",
                   f"test type folder `{type_folder}` is not importable: only `performance` cases can be imported")
        return nothing

    known = ROOT_KEYS + TABLE_KEYS + ARRAY_TABLE_KEYS
    for key in root.data:
        if key in FORBIDDEN_TABLES:
            root.error(key, f"{FORBIDDEN_TABLES[key]} is not allowed in a performance case")
        elif key not in known:
            root.error(key, f"unknown key{suggest(key, known)}")

    slug = read_slug(root)
    name = read_name(root, "name", required=True, max_length=MAX_NAME_LENGTH)
    difficulty = root.text("difficulty", required=True)
    if difficulty is not None:
        if difficulty not in DIFFICULTIES:
            root.error("difficulty", f"`{difficulty}` must be one of: {', '.join(DIFFICULTIES)}")
            difficulty = None
        elif difficulty != difficulty_folder:
            root.error("difficulty", f"`{difficulty}` does not match the difficulty folder `{difficulty_folder}`")
    experimental = root.get("experimental", False)
    if not isinstance(experimental, bool):
        root.error("experimental", f"must be a boolean, not {type_name(experimental)}")
    tags = read_tags(root)
    summary = read_line(root, "summary", required=False) or ""
    description = root.path("description", required=False)
    changelog = root.path("changelog", required=True)
    read_text_file(root, "description", description)
    read_text_file(root, "changelog", changelog)
    prompt = root.path("prompt", required=True)
    if prompt is not None:
        prompt = read_template(root, "prompt", prompt, require_hbs=True)
    max_runtime_hours = root.number("max_runtime_hours", minimum=Decimal(0), inclusive=False, default=Decimal(1))
    workspace = root.path("workspace", required=False, kind="dir")
    init = root.text("init", required=False)

    build = read_build(root)
    contract, input_validator, output_validator = read_contract(root)
    sandbox = read_sandbox(root)
    cases = read_cases(root, sandbox, input_validator, output_validator)
    check_samples(root, workspace, input_validator, output_validator)
    specs = read_specs(root, [table.data for table in root.tables("spec", required=False) or []])
    reserved_dests = {contract.input: "contract.input", contract.output: "contract.output"} if contract else {}
    check_dest_clashes(root, specs, {}, reserved_dests)
    variants = read_variants(root, specs, reserved_dests)
    held_out_digests, published_digests = frozenset(), []
    if cases:
        published = {
            "prompt": prompt, "description": description, "changelog": changelog,
            "contract.input": contract.input if contract else None,
            "contract.output": contract.output if contract else None,
        }
        published.update({f"spec[{index}].source": spec.source for index, spec in enumerate(specs)})
        for variant_index, variant in enumerate(variants or ()):
            published.update({
                f"spec[{index}].source of variants[{variant_index}]": spec.source
                for index, spec in enumerate(variant.specs)
            })
        held_out_digests, published_digests = check_held_out_stays_private(folder, cases, published, workspace)

    domains = root.tables("domain", required=False) or []
    review_items = root.tables("review_item", required=False) or []
    for table in (*domains, *review_items):
        if "variants" in table:
            table.error("variants", "`variants` must precede the first table header (it is a root key)")
    for table in domains:  # stored as given, and its name shown: written as a name
        name_of_domain = table.get("name")
        if isinstance(name_of_domain, str) and (problem := name_text_problem(name_of_domain)):
            table.error("name", problem)
    check_review_items(review_items)

    required = (slug, name, difficulty, tags, changelog, prompt, max_runtime_hours, build,
                contract, sandbox, cases, variants)
    if len(folder.errors) > before or any(value is None for value in required):
        if len(folder.errors) == before:  # a rule that refused without saying why: never silent
            root.error("", "manifest could not be read")
        return nothing
    manifest = Manifest(
        slug=slug, name=name, type=type_ or type_folder, difficulty=difficulty,
        experimental=experimental, tags=tuple(tags), summary=summary, description=description,
        changelog=changelog, prompt=prompt, max_runtime_hours=max_runtime_hours,
        workspace=workspace, init=init, variants=variants, build=build,
        contract=contract, cases=tuple(cases), sandbox=sandbox, specs=tuple(specs),
        domains=tuple(json_safe(table.data) for table in domains),
        review_items=tuple(json_safe(table.data) for table in review_items),
    )
    check_rendering(folder, manifest)
    if len(folder.errors) > before:
        return nothing
    return manifest, held_out_digests, published_digests


REVIEW_SCALE_MAX, REVIEW_VERDICT_MAX, REVIEW_QUESTION_MAX = 12, 40, 500


def check_review_items(tables) -> None:
    """A review item that can be read has a `slug` (unique in the version) and a `question`, and
    may list its verdicts as `scale`; any other key is kept as given. An item with neither slug
    nor question is kept as given, and cannot be read."""
    seen = set()
    for table in tables:
        if "slug" not in table and "question" not in table:
            continue
        slug = read_slug(table)
        question = read_line(table, "question", required=True, non_empty=True, max_length=REVIEW_QUESTION_MAX)
        if slug is not None and slug in seen:
            table.error("slug", f"`{slug}` names another review item of this version already")
        seen.add(slug)
        if question is None:
            continue
        scale = table.get("scale")
        if scale is None:
            continue
        if (not isinstance(scale, list) or not 0 < len(scale) <= REVIEW_SCALE_MAX
                or not all(isinstance(verdict, str) and 0 < len(verdict) <= REVIEW_VERDICT_MAX and verdict.strip()
                           == verdict for verdict in scale) or len(set(scale)) != len(scale)):
            table.error("scale", f"must list 1 to {REVIEW_SCALE_MAX} different verdicts, each a word or a few (at "
                                 f"most {REVIEW_VERDICT_MAX} characters)")
            continue
        for index, verdict in enumerate(scale):
            if problem := name_text_problem(verdict):
                table.error(f"scale[{index}]", problem)


def check_version_folder(version_dir: Path, rel_dir: str, type_folder: str, difficulty_folder: str,
                         folder: str, version: str, files: list[tuple[str, bytes]],
                         problems: list[tuple[str, str]]) -> tuple[VersionSource | None, list[ManifestError],
                                                                   list[ManifestError]]:
    """Validate one version folder in place, given its files as `read_version_files` found them.

    Returns the source (if valid), its errors and its warnings.
    """
    checked = Folder(version_dir, rel_dir, dict(files))
    for rel, problem in problems:
        checked.error(checked.file(rel), "", problem)
    root = checked.parse_toml(MANIFEST_NAME)
    manifest = None
    if root is not None:
        manifest, held_out_digests, published_digests = read_manifest(checked, root, type_folder, difficulty_folder)
    if manifest is None or checked.errors:
        return None, checked.errors, checked.warnings
    return (
        VersionSource(
            path=version_dir, folder=folder, version=version, manifest=manifest,
            manifest_text=dict(files)[MANIFEST_NAME].decode("utf-8"), digest=digest_files(files), files=tuple(files),
            held_out_digests=held_out_digests, published_digests=tuple(published_digests),
            warnings=tuple(checked.warnings),
        ),
        [],
        checked.warnings,
    )
