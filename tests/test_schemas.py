"""Checking documents against a case's schemas: the quick path for long arrays (lib/schemas.py)
against jsonschema's own validator, on random schemas and documents made to sit on the edges
(bounds, 1.0 as an integer, booleans as numbers, short and long tuples, keywords it does not know)."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import validators

from lib.schemas import first_violation, load_validator

BOUND = st.one_of(st.integers(-3, 3), st.sampled_from([-1.5, 0.5, 2.0, 2**53, 1e308]))
# What a predicate could take wrongly (inf: strict JSON reads 1e400 so).
ODD = [True, False, None, 1.0, 0.0, -2.5, 2**64, float("inf"), "1", "", [], {}]


UNKNOWN = [{"type": "integer", "multipleOf": 2}, {"enum": [1, 2]}, {"type": ["integer", "null"]},
           {"type": "integer", "enum": [1]}, {"type": "number", "const": 1}, {"type": "array", "contains": {}},
           {"type": "array", "items": {"type": "integer"}, "unevaluatedItems": False},
           {"type": "string", "minLength": 1}, {"type": "array", "uniqueItems": True}, {"const": 1}, True, False,
           {"type": "integer", "title": "a note", "minimum": 0}, {"type": "object"}, {"minimum": 0}]
BOUND_KEYS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]


def scalar_schemas():
    bounds = st.dictionaries(st.sampled_from(BOUND_KEYS), BOUND, max_size=2)
    numbers = st.builds(lambda kind, found: {"type": kind, **found}, st.sampled_from(["integer", "number"]), bounds)
    others = st.builds(lambda kind: {"type": kind}, st.sampled_from(["string", "boolean", "null"]))
    return st.one_of(numbers, numbers, numbers, others, st.sampled_from(UNKNOWN))


def array_schemas(items):
    return st.builds(
        lambda each, prefix, low, high: {"type": "array", **({"items": each} if each is not None else {}),
                                         **({"prefixItems": prefix} if prefix else {}),
                                         **({"minItems": low} if low is not None else {}),
                                         **({"maxItems": high} if high is not None else {})},
        st.one_of(st.none(), items), st.lists(items, max_size=2), st.one_of(st.none(), st.integers(0, 3)),
        st.one_of(st.none(), st.integers(0, 3)))


SCHEMAS = st.recursive(scalar_schemas(), array_schemas, max_leaves=6)


def near(schema) -> st.SearchStrategy:
    """Documents on the edges of `schema`: mostly what it accepts, some just outside."""
    if isinstance(schema, dict) and schema.get("type") == "array":
        prefix = [near(item) for item in schema.get("prefixItems", [])]
        each = near(schema["items"]) if "items" in schema else st.sampled_from(ODD)
        edges = {schema.get("minItems", 0), schema.get("maxItems", 3), len(prefix)}
        lengths = st.one_of(st.sampled_from(sorted({max(0, edge + step) for edge in edges for step in (-1, 0, 1)})),
                            st.integers(0, 4))
        return st.one_of(lengths.flatmap(
            lambda length: st.tuples(*[prefix[index] if index < len(prefix) else each for index in range(length)])
            .map(list)), st.sampled_from(ODD))
    return st.sampled_from(values_near(schema))


def values_near(schema) -> list:
    edges = [value for key, value in (schema.items() if isinstance(schema, dict) else ()) if "imum" in key]
    close = sorted({edge + step for edge in edges or [0, 1] for step in (-1, -0.5, 0, 0.5, 1)}, key=str)
    return [*close, *map(float, close), *ODD]


def errors(validator, document) -> list[tuple]:
    return [(error.message, list(error.absolute_path), list(error.absolute_schema_path))
            for error in validator.iter_errors(document)]


def assert_alike(items, documents) -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "items": items}
    quick = load_validator(json.dumps(schema).encode())
    generic = validators.Draft202012Validator(schema)
    assert type(quick) is not validators.Draft202012Validator  # the quick path is what is tested
    for document in documents:
        assert errors(quick, document) == errors(generic, document)
        assert first_violation(quick, document) == first_violation(generic, document)


def test_the_quick_path_finds_exactly_what_jsonschema_finds_for_every_plain_value():
    """Every kind of plain value against every kind of plain schema: each bound alone and each
    pair of them, and the schemas the quick path leaves to the generic one."""
    bounded = [{"type": kind, **dict(zip(keys, values))} for kind in ("integer", "number")
               for keys in [(), *itertools.combinations(BOUND_KEYS, 1), *itertools.combinations(BOUND_KEYS, 2)]
               for values in itertools.product([-1, 0.5, 2, 2**53], repeat=len(keys))]
    others = [{"type": kind} for kind in ("string", "boolean", "null")]
    for items in [*bounded, *others, *UNKNOWN]:
        assert_alike(items, [[value] for value in values_near(items)] + [values_near(items)])


@settings(max_examples=600, deadline=None)
@given(SCHEMAS, st.data())
def test_the_quick_path_finds_exactly_what_jsonschema_finds_for_arrays_in_arrays(items, data):
    assert_alike(items, data.draw(st.lists(st.lists(near(items), max_size=4), min_size=1, max_size=4)))


def test_a_long_array_with_one_bad_item_deep_inside_is_reported_where_it_is():
    schema = {"type": "object", "properties": {"edges": {"type": "array", "items": {
        "type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0, "maximum": 9}}}}}
    validator = load_validator(json.dumps(schema).encode())
    edges = [[index % 10, (index + 1) % 10] for index in range(100_000)]
    assert first_violation(validator, {"edges": edges}) is None
    edges[71_234][1] = 10
    assert first_violation(validator, {"edges": edges}).describe() == (
        "at /edges/71234/1: fails `maximum` (schema path /properties/edges/items/items/maximum)")
    edges[71_234] = [1, 2, 3]
    assert first_violation(validator, {"edges": edges}).describe() == (
        "at /edges/71234: fails `maxItems` (schema path /properties/edges/items/maxItems)")


def test_a_document_nested_deep_is_followed_as_far_as_jsonschema_follows_it():
    """The quick path adds no stack of its own per level: at every depth, around the point where
    the generic check runs out of stack, both reach the same verdict."""
    schema = {"type": "array", "items": {"$ref": "#"}}
    quick, generic = load_validator(json.dumps(schema).encode()), validators.Draft202012Validator(schema)
    verdicts = set()
    for depth in range(100, 420, 4):
        document: list = []
        for _ in range(depth):
            document = [document]
        verdicts.add(first_violation(generic, document))
        assert first_violation(quick, document) == first_violation(generic, document), depth
    assert len(verdicts) == 2  # both sides of the generic check's limit were tried
