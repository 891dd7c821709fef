"""JSON Schemas of a case contract: loading them and checking documents against them.

The dialect is the one the schema's `$schema` names (2020-12 when absent); `format` is not
enforced. Messages say where a document fails and which keyword, never the values, because the
documents checked are held-out inputs and answers.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from typing import Any, Callable

from jsonschema import exceptions as schema_exceptions
from jsonschema import validators

from lib.strictjson import JSONDocumentError, loads_strict, pointer, pointer_token

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
    return _QUICK.get(cls, cls)(schema)


# --- long arrays of plain values, checked quickly ------------------------------------------------
# Held-out inputs and answers are mostly long arrays of numbers, or of small arrays of numbers.
# The generic validator takes each item through each of its keywords with all its bookkeeping:
# 400,000 pairs of integers take seconds. So an `items` schema made only of the keywords below is
# turned into a plain predicate, and the items are checked with it first; only when an item fails
# it does the generic check run, and then it finds and reports exactly what it always would. A
# predicate accepts only what its schema accepts (it may refuse more: 1.0 as an integer), so this
# can make a document quicker to accept, never change a verdict or a message. (One edge: a document
# nested so deep, through a recursive `$ref`, that the generic check runs out of stack and calls the
# schema unusable may be followed to the end, and accepted, when its inner arrays are checked here.)

_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "deprecated", "readOnly",
                          "writeOnly"})
_BOUNDS = {"minimum": operator.ge, "maximum": operator.le, "exclusiveMinimum": operator.gt,
           "exclusiveMaximum": operator.lt}
_KINDS = {"integer": lambda value: type(value) is int,
          "number": lambda value: type(value) is int or type(value) is float,
          "string": lambda value: type(value) is str, "boolean": lambda value: type(value) is bool,
          "null": lambda value: value is None}


def _anything(value: Any) -> bool:
    return True


def _number(kind: str, schema: dict, keys: set) -> Callable[[Any], bool] | None:
    if not keys <= _BOUNDS.keys() or any(type(schema[key]) not in (int, float) for key in keys):
        return None
    low, high = schema.get("minimum"), schema.get("maximum")
    if kind == "integer" and keys <= {"minimum", "maximum"} and low is not None and high is not None:
        return lambda value: type(value) is int and low <= value <= high  # the usual case, unrolled
    is_kind, bounds = _KINDS[kind], [(_BOUNDS[key], schema[key]) for key in keys]
    return lambda value: is_kind(value) and all(holds(value, bound) for holds, bound in bounds)


def _array(schema: dict, keys: set) -> Callable[[Any], bool] | None:
    if not keys <= {"items", "prefixItems", "minItems", "maxItems"}:
        return None
    each = _predicate(schema["items"]) if "items" in schema else _anything
    prefix = [_predicate(item) for item in schema.get("prefixItems", ())]
    if each is None or None in prefix:
        return None
    low, high = schema.get("minItems", 0), schema.get("maxItems", float("inf"))

    def check(value) -> bool:
        return (type(value) is list and low <= len(value) <= high
                and all(holds(item) for holds, item in zip(prefix, value))
                and (each is _anything or all(map(each, itertools.islice(value, len(prefix), None)))))
    return check


def _predicate(schema: Any) -> Callable[[Any], bool] | None:
    """A plain check that accepts only what `schema` accepts, or None for a schema outside the
    few keywords it knows."""
    if schema is True:
        return _anything
    if not isinstance(schema, dict) or not isinstance(schema.get("type"), str):
        return None
    kind, keys = schema["type"], set(schema) - _ANNOTATIONS - {"type"}
    if kind in ("integer", "number"):
        return _number(kind, schema, keys)
    if kind == "array":
        return _array(schema, keys)
    return _KINDS[kind] if kind in _KINDS and not keys else None


# Predicates by schema object, each kept with its schema: while an entry holds it, its id names
# no other object. An array of small arrays builds the inner arrays' predicate once, not per item.
_COMPILED: dict[int, tuple[Any, Callable[[Any], bool] | None]] = {}


def _compiled(items: Any) -> Callable[[Any], bool] | None:
    found = _COMPILED.get(id(items))
    if found is None:
        if len(_COMPILED) >= 1024:
            _COMPILED.clear()
        found = _COMPILED[id(items)] = (items, _predicate(items))
    return found[1]


def _quick_items(validator, items, instance, schema):
    """No errors when the predicate takes every item; otherwise the generic keyword's own errors.
    A plain function that hands back the generic generator: a document nested as deep as the
    generic validator can follow stays within reach (no frame of ours per level)."""
    check = _compiled(items) if type(instance) is list else None
    if check is not None and all(map(check, itertools.islice(instance, len(schema.get("prefixItems", ())), None))):
        return None
    return _GENERIC_ITEMS(validator, items, instance, schema)


# 2020-12 only: there `items` is always one schema for the items after `prefixItems`.
_GENERIC_ITEMS = validators.Draft202012Validator.VALIDATORS["items"]
_QUICK = {validators.Draft202012Validator: validators.extend(validators.Draft202012Validator,
                                                             {"items": _quick_items})}


@dataclass(frozen=True)
class Violation:
    """Where a document fails its schema, and which keyword: never the values.

    `unusable` is set instead when the schema could not be applied to the document at all.
    """

    path: tuple = ()  # keys and indexes into the document
    keyword: str = ""
    schema_path: str = ""
    unusable: str = ""

    def describe(self, where: str | None = None) -> str:
        """`where` replaces the document pointer (for a pointer cut down for the public)."""
        if self.unusable:
            return f"the schema could not be applied: {self.unusable}"
        if where is None:
            where = pointer(self.path) if self.path else "the document root"
        return f"at {where}: fails `{self.keyword}` (schema path /{self.schema_path})"


def first_violation(validator, document: Any, *, exhaustive: bool = True) -> Violation | None:
    """None when `document` is valid; otherwise the most relevant violation.

    `exhaustive=False` looks no further than the first error the validator finds (and the most
    relevant one inside it): a hostile document with an error in every one of its items costs
    the time to find one, not all of them.
    """
    errors = validator.iter_errors(document)
    try:
        error = schema_exceptions.best_match(errors if exhaustive else itertools.islice(errors, 1))
    except RecursionError:
        return Violation(unusable="nested too deeply")
    except Exception as exc:  # e.g. an unresolvable $ref: there is no network to fetch it from
        return Violation(unusable=type(exc).__name__)
    if error is None:
        return None
    schema_path = "/".join(pointer_token(part) for part in error.absolute_schema_path)
    return Violation(tuple(error.absolute_path), str(error.validator), schema_path)


def first_schema_violation(validator, document: Any) -> str | None:
    """None when `document` is valid; otherwise where it fails, without quoting any value."""
    violation = first_violation(validator, document)
    return None if violation is None else violation.describe()
