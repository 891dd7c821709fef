"""Run records (the format): what ties a score to the run that produced it.

`seed_run --record FILE` writes a record naming the case, version and variant it laid out, the
version's content digest, the rendered prompt's digest and the time. A harness may add a `run`
object (model, harness, times, a transcript URL, notes, and up to MAX_EXTRA more short strings).
`score --run-record FILE` scores against exactly that version and variant, or refuses; the `run`
fields (or `score --meta KEY=VALUE`) are stored with the submission, validated and bounded by
RUN_RECORD_SCHEMA, which is published at /api/v1/schemas/run-record.json.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.utils import timezone
from jsonschema import Draft202012Validator

from catalog.manifest import PROMPT_DEST
from catalog.models import resolve_target
from engine.toolchain import RUST_RELEASE
from lib.errors import DomainError
from lib.files import read_regular
from lib.strictjson import DocumentTooLarge, JSONDocumentError, loads_capped
from lib.text import LINE_REFUSED, TEXT_REFUSED

RECORD_FORMAT = "run-record/1"
MAX_RECORD_BYTES = 64 * 1024
MAX_EXTRA = 16
# What a run cost, as numbers (finite, never negative, bounded; integers where they count).
NUMERIC_RUN_FIELDS = {
    "cost_usd": {"type": "number", "minimum": 0, "maximum": 1_000_000,
                 "description": "what the run cost, in US dollars"},
    "input_tokens": {"type": "integer", "minimum": 0, "maximum": 10 ** 12,
                     "description": "tokens the model read over the run"},
    "output_tokens": {"type": "integer", "minimum": 0, "maximum": 10 ** 12,
                      "description": "tokens the model wrote over the run"},
    "wall_seconds": {"type": "number", "minimum": 0, "maximum": 10_000_000,
                     "description": "how long the run took, in seconds"},
}
RUN_FIELDS = ("model", "harness", "started_at", "finished_at", "url", "notes", *NUMERIC_RUN_FIELDS)
# An extra field's name: lowercase, short, and none of the named fields (whose own rules apply).
EXTRA_KEY = rf"^(?!({'|'.join(RUN_FIELDS)})$)[a-z][a-z0-9_]{{0,31}}$(?!\n)"
# Patterns end in `$(?!\n)`: Python's `$` (what the validator uses) also matches before a final
# newline; the lookahead refuses it, and reads the same in ECMA regex, JSON Schema's dialect.
_END = r"$(?!\n)"
# One line of text; notes may span lines (tabs and newlines allowed): lib.text's rule.
_LINE = rf"^[^{LINE_REFUSED}]*{_END}"
_TEXT = rf"^[^{TEXT_REFUSED}]*{_END}"
_TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})" + _END
_DIGEST = r"^[0-9a-f]{64}" + _END


def _line(length: int, description: str) -> dict:
    return {"type": "string", "minLength": 1, "maxLength": length, "pattern": _LINE, "description": description}


RUN_SCHEMA = {
    "type": "object",
    "description": f"What the harness says about the run: shown with the entry, escaped. Besides the named "
                   f"fields, at most {MAX_EXTRA} extra short strings.",
    "properties": {
        "model": _line(100, "the model (or solver) that produced the submission"),
        "harness": _line(100, "the harness that drove it"),
        "started_at": {"type": "string", "maxLength": 40, "pattern": _TIME, "description": "RFC 3339 time"},
        "finished_at": {"type": "string", "maxLength": 40, "pattern": _TIME, "description": "RFC 3339 time"},
        "url": {"type": "string", "maxLength": 2000, "pattern": rf"^https?://[^\s{LINE_REFUSED}<>\"]+{_END}",
                "description": "the run's transcript or log (http or https only)"},
        "notes": {"type": "string", "maxLength": 2000, "pattern": _TEXT},
        **NUMERIC_RUN_FIELDS,
    },
    "patternProperties": {EXTRA_KEY: _line(200, "a short extra field")},
    "additionalProperties": False,
    "maxProperties": len(RUN_FIELDS) + MAX_EXTRA,
}

RUN_RECORD_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "/api/v1/schemas/run-record.json",
    "title": "Run record",
    "description": "Written by `seed_run --record`; read by `score --run-record` and `score_many`.",
    "type": "object",
    "required": ["format", "case", "version", "variant", "version_digest", "prompt_digest", "seeded_at"],
    "properties": {
        "format": {"const": RECORD_FORMAT},
        "case": {"type": "string", "maxLength": 100},
        "version": {"type": "string", "maxLength": 100},
        "variant": {"type": "string", "maxLength": 100},
        "version_digest": {"type": "string", "pattern": _DIGEST, "description": "the version's content digest"},
        "prompt_digest": {"type": "string", "pattern": _DIGEST, "description": "SHA-256 of the rendered PROMPT.md"},
        "seeded_at": {"type": "string", "maxLength": 40, "pattern": _TIME},
        "compiler": {"type": "string", "maxLength": 100, "pattern": _LINE,
                     "description": "the compiler the site builds submissions with (\"rustc 1.96.0\"): the one a "
                                    "solver's own builds should use for fuel measured at home to match"},
        "run": RUN_SCHEMA,
    },
    "additionalProperties": False,
}

_record_validator = Draft202012Validator(RUN_RECORD_SCHEMA)
_run_validator = Draft202012Validator(RUN_SCHEMA)


class RunRecordError(DomainError):
    """A run record or `--meta` that cannot be used; nothing was stored. Codes: `unreadable`,
    `invalid`, `mismatch`, `stale`, `bad_target`."""

    def __str__(self) -> str:
        return self.message


def _problems(validator: Draft202012Validator, document, prefix: str) -> list[str]:
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda error: list(map(str, error.absolute_path))):
        where = prefix + "".join(f"/{part}" for part in error.absolute_path) or "/"
        if error.validator == "pattern":
            what = "is not in the allowed form" + (" (http or https URL)" if where.endswith("/url") else "")
        elif error.validator == "additionalProperties":
            known = set(error.schema.get("properties", {}))
            patterns = list(error.schema.get("patternProperties", {}))
            unknown = sorted(key for key in error.instance if key not in known
                             and not any(re.search(pattern, key) for pattern in patterns))
            what = "has an unknown field (" + ", ".join(name[:40] for name in unknown[:5]) + ")" + (
                "; extra fields are lowercase names of letters, digits and _, at most 32 long" if patterns else "")
        else:
            what = error.message if len(error.message) <= 200 else error.message[:200] + "…"
        problems.append(f"{where}: {what}")
    return problems


def _check_times(run: dict, prefix: str) -> list[str]:
    problems = []
    for name in ("started_at", "finished_at"):
        if isinstance(run.get(name), str):
            try:
                datetime.fromisoformat(run[name].replace("Z", "+00:00"))
            except ValueError:
                problems.append(f"{prefix}/{name}: is not a real time")
    return problems


def _check_extra(run, prefix: str) -> list[str]:
    extra = [key for key in run if key not in RUN_FIELDS] if isinstance(run, dict) else []
    if len(extra) > MAX_EXTRA:
        return [f"{prefix}: has {len(extra)} extra fields, more than {MAX_EXTRA}"]
    return []


def validate_run(run) -> dict:
    """The `run` object, checked against RUN_SCHEMA (RunRecordError listing every problem)."""
    problems = _problems(_run_validator, run, "/run") + _check_extra(run, "/run")
    if not problems:
        problems = _check_times(run, "/run")
    if problems:
        raise RunRecordError("invalid", "invalid run fields: " + "; ".join(problems))
    return dict(run)


def prompt_digest(variant) -> str:
    """What a run record's prompt digest must be: the SHA-256 of the prompt the variant renders now."""
    return hashlib.sha256(variant.rendered_prompt()).hexdigest()


def new_record(version, variant, files: dict[str, bytes]) -> dict:
    """The record of a run root laid out from `files` (catalog.seeding.run_root_files)."""
    return {
        "format": RECORD_FORMAT, "case": version.case.slug, "version": version.version, "variant": variant.slug,
        "version_digest": version.digest, "prompt_digest": hashlib.sha256(files[PROMPT_DEST]).hexdigest(),
        "seeded_at": timezone.now().replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "compiler": f"rustc {RUST_RELEASE}",
    }


def write_record(record: dict, path: Path) -> None:
    Path(path).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class RunRecord:
    case: str
    version: str
    variant: str
    version_digest: str
    prompt_digest: str
    run: dict


def parse_record(document, where: str = "run record") -> RunRecord:
    problems = _problems(_record_validator, document, "")
    if isinstance(document, dict) and isinstance(document.get("run"), dict):
        problems += _check_extra(document["run"], "/run")
        if not problems:
            problems = _check_times(document["run"], "/run")
    if problems:
        raise RunRecordError("invalid", f"{where} is not valid: " + "; ".join(problems))
    return RunRecord(document["case"], document["version"], document["variant"], document["version_digest"],
                     document["prompt_digest"], dict(document.get("run") or {}))


def read_record(path: Path) -> RunRecord:
    """A run record file, read (bounded) and validated."""
    path = Path(path)
    try:
        data = read_regular(path, MAX_RECORD_BYTES)
    except OSError as error:
        raise RunRecordError("unreadable", f"run record {path} could not be read: {error.strerror}") from None
    return parse_record(read_record_bytes(data, f"run record {path}"), f"run record {path}")


def read_record_bytes(data: bytes, what: str):
    """A run record's JSON document, read with MAX_RECORD_BYTES + 1 bytes at most. Raises
    RunRecordError (`too_large`, `unreadable`)."""
    try:
        return loads_capped(data, MAX_RECORD_BYTES)
    except DocumentTooLarge:
        raise RunRecordError("too_large", f"{what} is larger than {MAX_RECORD_BYTES:,} bytes") from None
    except JSONDocumentError as error:
        raise RunRecordError("unreadable", f"{what} is not strict JSON: {error}") from None


_DECIMAL = re.compile(r"[0-9]{1,15}(\.[0-9]{1,9})?")
_COUNT = re.compile(r"[0-9]{1,15}")


def typed_value(key: str, value, where: str = "--meta"):
    """A run field's value as stored: a numeric field's text (`--meta cost_usd=0.42`, or a string
    in score_many's `meta`) read as its number, in plain decimal digits only (no exponent, no
    `nan` or `inf`); anything else as given (the schema judges it)."""
    schema = NUMERIC_RUN_FIELDS.get(key)
    if schema is None or not isinstance(value, str):
        return value
    pattern = _COUNT if schema["type"] == "integer" else _DECIMAL
    if not pattern.fullmatch(value):
        kind = "a whole number" if schema["type"] == "integer" else "a number (digits, and a decimal point)"
        raise RunRecordError("invalid", f"{where} {key} must be {kind}, not {value[:40]!r}")
    return int(value) if schema["type"] == "integer" else float(value)


def parse_meta(pairs: list[str]) -> dict:
    """`--meta KEY=VALUE` options as a run object (validated when merged)."""
    run: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RunRecordError("invalid", f"--meta {pair!r} is not KEY=VALUE")
        if key in run:
            raise RunRecordError("invalid", f"--meta {key} is given twice")
        run[key] = typed_value(key, value)
    return run


def check_target(record: RunRecord, version, variant) -> None:
    """Refuse a record that does not describe this imported version and variant."""
    if record.version_digest != version.digest:
        raise RunRecordError("stale", f"the run record's version digest does not match {version.case.slug} "
                                      f"{version.version} as imported: the run was seeded from other content")
    if record.prompt_digest != prompt_digest(variant):
        raise RunRecordError("stale", f"the run record's prompt digest does not match the prompt of "
                                      f"{version.case.slug} {version.version} (variant {variant.slug})")


def refuse_disagreement(record: RunRecord, *, case: str | None, version: str | None, variant: str | None,
                        names: tuple[str, str, str] = ("case", "version", "variant")) -> None:
    """The one rule of a target named beside a run record: the record names it, and whatever else
    is named must agree (`names`: how the asker calls the three, `--version` on the command
    line). Raises RunRecordError (`mismatch`)."""
    for name, given, recorded in zip(names, (case, version, variant), (record.case, record.version, record.variant)):
        if given is not None and given != recorded:
            raise RunRecordError("mismatch", f"{name} {given} disagrees with the run record, which names {recorded}")


def resolve_record(record: RunRecord, *, slug: str | None, version: str | None, variant: str | None):
    """The (version, variant) a record names, refusing explicit arguments that disagree with it."""
    refuse_disagreement(record, case=slug, version=version, variant=variant, names=("case", "--version", "--variant"))
    target = resolve_target(record.case, record.version, record.variant)
    check_target(record, *target)
    return target


def merged_run(record: RunRecord | None, meta: dict) -> dict:
    """The run fields to store: the record's, with `--meta` on top, validated together."""
    return validate_run({**(record.run if record else {}), **meta}) if (record and record.run) or meta else {}


def target_and_run(slug, version, variant, record_path, meta: dict):
    """The version and variant to score against, and the provenance to store, from the
    arguments, the `meta` run fields and the run record (which wins the target, and refuses
    arguments against it)."""
    record = read_record(Path(record_path)) if record_path else None
    if record is not None:
        case_version, chosen = resolve_record(record, slug=slug, version=version, variant=variant)
    else:
        if not slug:
            raise RunRecordError("bad_target", "name the case (SLUG), or give --run-record")

        case_version, chosen = resolve_target(slug, version, variant)
    return case_version, chosen, merged_run(record, meta)
