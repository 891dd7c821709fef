"""JSON Schemas of a case contract: loading them and checking documents against them.

The dialect is the one the schema's `$schema` names (2020-12 when absent); `format` is not
enforced. Messages say where a document fails and which keyword, never the values, because the
documents checked are held-out inputs and answers.
"""

from __future__ import annotations

from typing import Any

from jsonschema import exceptions as schema_exceptions
from jsonschema import validators

from lib.strictjson import JSONDocumentError, loads_strict, pointer_token

DEFAULT_DIALECT = validators.Draft202012Validator


def _dialect_key(uri: str) -> str:
    """Meta-schema URIs are written with and without `https` and a trailing `#`."""
    return uri.split("://", 1)[-1].rstrip("#")


_KNOWN_DIALECTS = {
    _dialect_key(cls.META_SCHEMA.get("$id", cls.META_SCHEMA.get("id", ""))): cls
    for cls in (
        validators.Draft3Validator,
        validators.Draft4Validator,
        validators.Draft6Validator,
        validators.Draft7Validator,
        validators.Draft201909Validator,
        validators.Draft202012Validator,
    )
}


class SchemaError(ValueError):
    pass


def _dialect(schema: Any):
    if not isinstance(schema, dict) or "$schema" not in schema:
        return DEFAULT_DIALECT
    uri = schema["$schema"]
    if not isinstance(uri, str):
        raise SchemaError("is not a valid JSON Schema: `$schema` must be a string")
    cls = _KNOWN_DIALECTS.get(_dialect_key(uri))
    if cls is None:
        raise SchemaError(f"names an unknown JSON Schema dialect in `$schema`: {uri}")
    return cls


def load_validator(source: bytes):
    """A validator for the schema in `source`, or SchemaError saying what is wrong."""
    try:
        schema = loads_strict(source)
    except JSONDocumentError as exc:
        raise SchemaError(f"is {exc}" if str(exc).startswith("not") else str(exc)) from None
    if not isinstance(schema, (dict, bool)):
        raise SchemaError("is not a valid JSON Schema: a schema is an object or a boolean")
    cls = _dialect(schema)
    try:
        cls.check_schema(schema)
    except schema_exceptions.SchemaError as exc:
        where = "/" + "/".join(pointer_token(part) for part in exc.absolute_path) if exc.absolute_path else "the root"
        raise SchemaError(f"is not a valid JSON Schema: at {where}: {exc.message}") from None
    except RecursionError:
        raise SchemaError("is not a valid JSON Schema: nested too deeply") from None
    return cls(schema)


def describe_violation(error: schema_exceptions.ValidationError) -> str:
    where = "/" + "/".join(pointer_token(part) for part in error.absolute_path) if error.absolute_path else "the document root"
    schema_path = "/".join(pointer_token(part) for part in error.absolute_schema_path)
    return f"at {where}: fails `{error.validator}` (schema path /{schema_path})"


def first_schema_violation(validator, document: Any) -> str | None:
    """None when `document` is valid; otherwise where it fails, without quoting any value."""
    try:
        error = schema_exceptions.best_match(validator.iter_errors(document))
    except RecursionError:
        return "the schema could not be applied: nested too deeply"
    except Exception as exc:  # e.g. an unresolvable $ref: there is no network to fetch it from
        return f"the schema could not be applied: {type(exc).__name__}"
    return describe_violation(error) if error is not None else None
