"""Read and check a catalog tree: TOML manifests in, frozen dataclasses and every error out.

The catalog layout is `<root>/<type>/<difficulty>/<folder>/<version>/test-case.toml`. Nothing
here touches Django or a database: `scan_catalog()` walks a tree and returns the versions that
validated together with a list of `ManifestError`s, one per broken rule, all at once. Bad input
of any kind becomes an error value; it never raises.

Key paths in errors are dotted, with 0-based indexes for arrays of tables: `case[2].fuel_runway`,
`variants[0]`, `build.module`, `spec[1].dest`.

The modules, from the bottom up: `types` (the rules' constants and the dataclasses a check
produces), `files` (reading a folder within limits, digests), `fields` (a `Table` reader that
records an error for every unusable value), `sections` (one reader per manifest section),
`crosschecks` (rules across sections and versions), `check` (one version folder) and `scan`
(a catalog tree). `context` is what templates see.
"""

from catalog.manifest.check import check_version_folder
from catalog.manifest.context import context_names, manifest_template_context, template_context
from catalog.manifest.files import content_digests, digest_files, name_problem, read_version_files, shown_path
from catalog.manifest.scan import catalog_root, scan_catalog
from catalog.manifest.types import (
    ABI_EXPORTS,
    CASE_KINDS,
    DIFFICULTIES,
    FORBIDDEN_TABLES,
    IMPORTABLE_TYPES,
    INT64_MAX,
    MANIFEST_NAME,
    MAX_FILE_PATH_LENGTH,
    MAX_FOLDER_LENGTH,
    MAX_NAME_LENGTH,
    MAX_PATH_LENGTH,
    MAX_SLUG_LENGTH,
    MAX_TAG_LENGTH,
    MAX_VERSION_LENGTH,
    PROMPT_DEST,
    RESERVED_VERSIONS,
    SLUG_PATTERN,
    VERSION_PATTERN,
    WASM32_MAX_MEMORY,
    WASM_PAGE,
    Build,
    CatalogScan,
    Contract,
    FileLimits,
    HeldOutCase,
    Kind,
    Manifest,
    ManifestError,
    Sandbox,
    SpecFile,
    Variant,
    VersionSource,
    default_dest,
    humanize_slug,
    version_sort_key,
)
from engine.kinds import fuel_ceiling  # the evaluation computes it too (the fuel meter)

__all__ = [
    "ABI_EXPORTS", "CASE_KINDS", "DIFFICULTIES", "FORBIDDEN_TABLES", "IMPORTABLE_TYPES", "INT64_MAX", "MANIFEST_NAME",
    "MAX_FILE_PATH_LENGTH", "MAX_FOLDER_LENGTH", "MAX_NAME_LENGTH", "MAX_PATH_LENGTH", "MAX_SLUG_LENGTH",
    "MAX_TAG_LENGTH", "MAX_VERSION_LENGTH", "PROMPT_DEST", "RESERVED_VERSIONS", "SLUG_PATTERN", "VERSION_PATTERN",
    "WASM32_MAX_MEMORY", "WASM_PAGE", "Build", "CatalogScan", "Contract", "FileLimits", "HeldOutCase", "Kind",
    "Manifest", "ManifestError", "Sandbox", "SpecFile", "Variant", "VersionSource", "check_version_folder",
    "content_digests", "context_names", "default_dest", "digest_files", "fuel_ceiling", "humanize_slug",
    "catalog_root", "manifest_template_context", "name_problem", "read_version_files", "scan_catalog", "shown_path",
    "template_context", "version_sort_key",
]
