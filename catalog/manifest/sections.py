"""One reader per manifest section: each takes its Table and returns a dataclass, or None with
the errors recorded."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal

from catalog.manifest import remembered
from catalog.manifest.crosschecks import check_dest_clashes
from catalog.manifest.fields import Table, normalize, type_name
from catalog.manifest.shown import name_text_problem, read_name
from catalog.manifest.types import (
    ABI_EXPORTS,
    BUILD_KEYS,
    CASE_KEYS,
    CASE_KINDS,
    CONTRACT_KEYS,
    INT64_MAX,
    MAX_ENTRY_LENGTH,
    MAX_NAME_LENGTH,
    MAX_SLUG_LENGTH,
    MAX_TAG_LENGTH,
    SANDBOX_KEYS,
    SLUG_PATTERN,
    SPEC_KEYS,
    VARIANT_KEYS,
    WASM32_MAX_MEMORY,
    WASM_PAGE,
    Build,
    Contract,
    HeldOutCase,
    Kind,
    ManifestError,
    Sandbox,
    SpecFile,
    Variant,
    default_dest,
    humanize_slug,
)
from engine.kinds import fuel_ceiling
from lib.schemas import SchemaError, first_schema_violation, load_validator
from lib.strictjson import JSONDocumentError, loads_strict
from lib.templates import TemplateError, compile_template


def read_slug(table: Table) -> str | None:
    slug = table.text("slug", required=True, max_length=MAX_SLUG_LENGTH)
    if slug is not None and not SLUG_PATTERN.fullmatch(slug):
        table.error("slug", f"`{slug}` must match {SLUG_PATTERN.pattern} (lower-case letters, digits and hyphens)")
        return None
    return slug


def read_tags(root: Table) -> list[str] | None:
    if "tags" not in root:
        root.error("tags", "required key is missing")
        return None
    tags = root.get("tags")
    if not isinstance(tags, list):
        root.error("tags", f"must be an array of strings, not {type_name(tags)}")
        return None
    if not tags:
        root.error("tags", "must list at least one tag")
        return None
    seen: set[str] = set()
    ok = True
    for index, tag in enumerate(tags):
        key = f"tags[{index}]"
        if not isinstance(tag, str):
            root.error(key, f"must be a string, not {type_name(tag)}")
        elif not tag.strip():
            root.error(key, "must not be empty")
        elif len(tag) > MAX_TAG_LENGTH:
            root.error(key, f"must be at most {MAX_TAG_LENGTH} characters, not {len(tag)}")
        elif problem := name_text_problem(tag):
            root.error(key, problem)
        elif tag in seen:
            root.error(key, f"duplicate tag `{tag}`")
        else:
            seen.add(tag)
            continue
        ok = False
    return tags if ok else None


def read_text_file(root: Table, key: str, rel: str | None) -> None:
    """Markdown that is stored and shown as text: UTF-8, no NUL bytes."""
    if rel is None:
        return
    content = root.folder.read(rel)
    if b"\0" in content:
        root.error(key, f"`{rel}` must not contain NUL bytes")
        return
    try:
        content.decode("utf-8")
    except UnicodeDecodeError as exc:
        root.error(key, f"`{rel}` is not UTF-8 (invalid byte at offset {exc.start})")


def read_template(table: Table, key: str, rel: str, *, require_hbs: bool) -> str | None:
    """A file that is rendered when it ends in `.hbs`: it must parse."""
    if require_hbs and not rel.endswith(".hbs"):
        table.error(key, f"`{rel}` must be a Handlebars template ending in `.hbs`")
        return None
    if not rel.endswith(".hbs"):
        return rel
    try:
        compile_template(table.folder.read(rel))
    except TemplateError as exc:
        table.error(key, f"`{rel}`: {exc}")
        return None
    return rel


def read_build(root: Table) -> Build | None:
    table = root.table("build")
    if table is None:
        return None
    table.unknown_keys(BUILD_KEYS)
    install = table.text("install", required=False)
    command = table.text("build", required=True, non_empty=True)
    module = table.path("module", required=True, kind=None)
    if command is None or module is None:
        return None
    return Build(install=install, build=command, module=module)


def read_contract(root: Table):
    """(Contract, input validator, output validator); any of them None where it is unusable."""
    table = root.table("contract")
    if table is None:
        return None, None, None
    table.unknown_keys(CONTRACT_KEYS)
    entry = table.text("entry", required=True, non_empty=True, max_length=MAX_ENTRY_LENGTH)
    if entry in ABI_EXPORTS:
        table.error("entry", f"`{entry}` is reserved by the solution ABI (it exports `memory` and `alloc`)")
        entry = None
    validators = []
    for key in ("input", "output"):
        rel = table.path(key, required=True)
        validators.append(_load_schema(table, key, rel) if rel else None)
    if entry is None or None in validators:
        return None, *validators
    return Contract(entry=entry, input=table.get("input"), output=table.get("output")), *validators


@dataclass(frozen=True)
class Schema:
    """A contract schema, ready to validate documents, and the digest of its bytes."""

    validator: object
    digest: str


# Keywords that bound a value: in the answer schema, a wrong answer outside the bound is
# `invalid_output` (the schema refused it) rather than `wrong_answer` (the comparison did). An
# array's length bounds are a shape, not a bound, where they fix it (a pair: minItems = maxItems).
VALUE_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
                "pattern")
LENGTH_BOUNDS = ("minItems", "maxItems")


def _load_schema(table: Table, key: str, rel: str) -> Schema | None:
    try:
        source = table.folder.read(rel)
        validator = load_validator(source)
    except SchemaError as exc:
        table.error(key, f"`{rel}` {exc}")
        return None
    if key == "output":
        bounds = sorted(_bounds(loads_strict(source), ""))
        if bounds:
            where = ", ".join(f"`{word}` at {pointer or '/'}" for pointer, word in bounds[:3])
            more = f" and {len(bounds) - 3} more" if len(bounds) > 3 else ""
            table.folder.warnings.append(ManifestError(
                table.file, table.key(key),
                f"`{rel}` bounds values ({where}{more}): a wrong answer outside a bound is invalid_output, not "
                "wrong_answer; say what is right in the expected answers, and keep the answer schema to shapes",
                table.folder.label))
    return Schema(validator, hashlib.sha256(source).hexdigest())


def _bounds(node, pointer: str) -> list[tuple[str, str]]:
    """(JSON pointer, keyword) of every value bound in a schema document."""
    found = []
    if isinstance(node, dict):
        found.extend((pointer, word) for word in VALUE_BOUNDS
                     if word in node and not isinstance(node[word], (dict, list)))
        if node.get("minItems") != node.get("maxItems"):
            found.extend((pointer, word) for word in LENGTH_BOUNDS if word in node)
        for word, child in node.items():
            found.extend(_bounds(child, f"{pointer}/{word}"))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found.extend(_bounds(child, f"{pointer}/{index}"))
    return found


def read_sandbox(root: Table) -> Sandbox | None:
    table = root.table("sandbox")
    if table is None:
        return None
    table.unknown_keys(SANDBOX_KEYS)
    fuel_limit = table.integer("fuel_limit")
    memory = table.integer("max_memory_bytes")
    if memory is not None:
        if memory % WASM_PAGE:
            table.error("max_memory_bytes", f"{memory} must be a multiple of {WASM_PAGE:,} (the wasm page size)")
            memory = None
        elif memory > WASM32_MAX_MEMORY:
            table.error("max_memory_bytes", f"{memory} exceeds the 4 GiB a wasm32 memory can address")
            memory = None
    if fuel_limit is None or memory is None:
        return None
    return Sandbox(fuel_limit=fuel_limit, max_memory_bytes=memory)


def read_cases(root: Table, sandbox: Sandbox | None, input_validator, output_validator) -> list[HeldOutCase] | None:
    tables = root.tables("case", required=True)
    if tables is None:
        return None
    cases: list[HeldOutCase] = []
    ok = True
    for table in tables:
        table.unknown_keys(CASE_KEYS)
        input_rel = table.path("input", required=True)
        expected_rel = table.path("expected", required=True)
        kind = table.get("kind", Kind.STRESS.value)
        if not isinstance(kind, str) or kind not in CASE_KINDS:
            shown = f"`{kind}`" if isinstance(kind, str) else type_name(kind)
            table.error("kind", f"{shown} must be one of: {', '.join(CASE_KINDS)}")
            kind = None
        runway = table.number("fuel_runway", minimum=Decimal(1), inclusive=True, default=Decimal(1))
        if runway is not None and sandbox is not None and fuel_ceiling(sandbox.fuel_limit, runway) > INT64_MAX:
            table.error("fuel_runway", f"fuel_limit × fuel_runway exceeds {INT64_MAX} (a signed 64-bit integer)")
            runway = None
        if input_rel and input_validator is not None:
            _check_document(table, "input", input_rel, input_validator, "input")
        if expected_rel and output_validator is not None:
            _check_document(table, "expected", expected_rel, output_validator, "output")
        if input_rel is None or expected_rel is None or kind is None or runway is None:
            ok = False
            continue
        cases.append(HeldOutCase(input=input_rel, expected=expected_rel, kind=Kind(kind), fuel_runway=runway))
    if ok and not any(case.kind == Kind.STRESS for case in cases):
        root.error("case", "at least one `stress` case is required (kind defaults to \"stress\")")
        ok = False
    return cases if ok else None


def check_samples(root: Table, workspace: str | None, input_validator, output_validator) -> None:
    """The workspace's public samples (`samples/NAME.json`, each with `NAME.out` beside it): an input
    of the contract and its answer, checked as held-out ones are (they are seeded: the privacy
    checks keep them from being or holding a held-out file)."""
    if not workspace or input_validator is None or output_validator is None:
        return
    prefix = ("" if workspace in (".", "") else workspace.rstrip("/") + "/") + "samples/"
    names = sorted(rel for rel in root.folder.files if rel.startswith(prefix) and "/" not in rel[len(prefix):])
    for rel in names:
        if rel.endswith(".json"):
            _check_document(root, "workspace", rel, input_validator, "input")
            answer = rel[:-len(".json")] + ".out"
            if answer in root.folder.files:
                _check_document(root, "workspace", answer, output_validator, "output")
            else:
                root.error("workspace", f"`{rel}` is a sample without its answer: put it in `{answer}`")
        elif not rel.endswith(".out") and rel != prefix + "generate.py":
            root.error("workspace", f"`{rel}`: the samples folder holds NAME.json inputs, NAME.out answers and "
                                    "generate.py, nothing else")
        elif rel.endswith(".out") and rel[:-len(".out")] + ".json" not in root.folder.files:
            root.error("workspace", f"`{rel}` answers no sample: put its input in `{rel[:-len('.out')]}.json`")


def _check_document(table: Table, key: str, rel: str, schema: Schema, which: str) -> None:
    """An input or expected answer must be strict JSON valid against its contract schema.

    Messages name where the document fails and which schema keyword, never the values:
    held-out data stays out of every message. A document found valid before, byte for byte
    against the same schema, is not checked again (catalog.manifest.remembered).
    """
    checked, known = remembered.current(), None
    try:
        data = table.folder.read(rel)
        if checked is not None:
            known = checked.key(schema.digest, data)
            if known in checked:
                return
        document = loads_strict(data)
    except JSONDocumentError as exc:
        table.error(key, f"`{rel}` is {exc}" if str(exc).startswith("not") else f"`{rel}` {exc}")
        return
    except OSError as exc:
        table.error(key, f"`{rel}` cannot be read: {exc.strerror}")
        return
    except MemoryError:  # within the caps, but more than this process may hold
        table.error(key, f"`{rel}` is too large to check within this process's memory")
        return
    violation = first_schema_violation(schema.validator, document)
    if violation:
        table.error(key, f"`{rel}` does not validate against the contract's {which} schema: {violation}")
    elif known is not None:
        checked.add(known)


def read_specs(owner: Table, items: list, *, allow_strings: bool = False) -> list[SpecFile]:
    """The `spec` entries of `owner` (the manifest's `[[spec]]`, or a variant file's `spec`)."""
    specs: list[SpecFile] = []
    for index, item in enumerate(items):
        if allow_strings and isinstance(item, str):
            item = {"source": item}
        if not isinstance(item, dict):
            expected = "a path or a table {source, dest}" if allow_strings else "a table"
            owner.error(f"spec[{index}]", f"must be {expected}, not {type_name(item)}")
            continue
        table = owner.child(f"spec[{index}]", item)
        table.unknown_keys(SPEC_KEYS)
        source = table.path("source", required=True)
        if source is not None:
            source = read_template(table, "source", source, require_hbs=False)
        dest = table.text("dest", required=False, non_empty=True)
        if dest is None and "dest" in table:
            continue  # the error is recorded
        if dest is not None and not table.path_ok("dest", dest, kind=None):
            continue
        if source is None:
            continue
        normalized = normalize(dest if dest is not None else default_dest(source))
        if normalized == ".":
            table.error("dest", "must name a file inside the run root, not the root itself")
            continue
        specs.append(SpecFile(source=source, dest=normalized))
    return specs


def read_variants(root: Table, common_specs: list[SpecFile], reserved: dict[str, str]) -> tuple[Variant, ...] | None:
    if "variants" not in root:
        return (Variant(slug="base", name="Base"),)
    paths = root.get("variants")
    if not isinstance(paths, list):
        root.error("variants", f"must be an array of paths, not {type_name(paths)}")
        return None
    if not paths:
        root.error("variants", "must list at least one variant file (leave it out for the implicit `base` variant)")
        return None
    variants: list[Variant] = []
    slugs: dict[str, int] = {}
    taken = {spec.dest: f"spec[{index}]" for index, spec in enumerate(common_specs)}
    ok = True
    for index, rel in enumerate(paths):
        key = f"variants[{index}]"
        if not isinstance(rel, str):
            root.error(key, f"must be a path string, not {type_name(rel)}")
            ok = False
            continue
        variant = read_variant_file(root, normalize(rel), taken, reserved) if root.path_ok(key, rel,
                                                                                           kind="file") else None
        if variant is None:
            ok = False
            continue
        if variant.slug in slugs:
            root.error(key, f"variant slug `{variant.slug}` is already used by variants[{slugs[variant.slug]}]")
            ok = False
            continue
        slugs[variant.slug] = index
        variants.append(variant)
    return tuple(variants) if ok else None


def read_variant_file(root: Table, rel: str, taken: dict[str, str], reserved: dict[str, str]) -> Variant | None:
    folder = root.folder
    before = len(folder.errors)
    data = folder.parse_toml(rel)
    if data is None:
        return None
    data.no_nul()
    data.unknown_keys(VARIANT_KEYS)
    slug = read_slug(data)
    name = read_name(data, "name", required=False, max_length=MAX_NAME_LENGTH)
    specs: list[SpecFile] = []
    if "spec" in data:
        raw_specs = data.get("spec")
        if isinstance(raw_specs, list):
            specs = read_specs(data, raw_specs, allow_strings=True)
            check_dest_clashes(data, specs, taken, reserved)
        else:
            data.error("spec", f"must be an array of spec paths or tables, not {type_name(raw_specs)}")
    if len(folder.errors) > before or slug is None:
        return None
    return Variant(slug=slug, name=name or humanize_slug(slug), specs=tuple(specs), file=rel)
