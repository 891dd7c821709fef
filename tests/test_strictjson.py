"""Strict JSON parsing and answer equality (docs/method.md)."""

from __future__ import annotations

import pytest

from lib.strictjson import JSONDocumentError, first_difference, loads_strict


def differ(expected: str, actual: str) -> str | None:
    return first_difference(loads_strict(expected.encode()), loads_strict(actual.encode()))


@pytest.mark.parametrize(
    "expected, actual",
    [
        ('{"a": 1, "b": 2}', '{"b": 2, "a": 1}'),  # object key order is ignored
        ("1", "1.0"),  # an integer equals a double of the same value
        ("1e2", "100"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ('"caf\\u00e9"', '"café"'),  # escapes are decoded before comparing
        ("null", "null"),
        ("[true, false]", "[true, false]"),
        ("-0", "0"),
        ("0.5", "5e-1"),
    ],
)
def test_equal_answers(expected, actual):
    assert differ(expected, actual) is None


@pytest.mark.parametrize(
    "expected, actual, pointer",
    [
        ("[1, 2]", "[2, 1]", "/0"),  # arrays compare in order
        ("true", "1", ""),  # a boolean never equals a number
        ("false", "0", ""),
        ("1", "true", ""),
        ("null", "0", ""),
        ("null", '""', ""),
        ("9007199254740993", "9007199254740992.0", ""),  # integers compare exactly
        ("123456789012345678901234567890", "123456789012345678901234567891", ""),
        ("0.3", "0.30000000000000004", ""),  # doubles compare as doubles
        ('"A"', '"a"', ""),
        ('"e\\u0301"', '"\\u00e9"', ""),  # strings compare exactly, no normalisation
        ('{"a": 1}', "[1]", ""),
        ('{"a": {"b": [1, 2, 3]}}', '{"a": {"b": [1, 2]}}', "/a/b/2"),
        ('{"a": [1]}', '{"a": [1, 2]}', "/a/1"),
        ('{"a": 1, "b": 2}', '{"a": 1}', "/b"),
        ('{"a": 1}', '{"a": 1, "z": 0}', "/z"),
        ('{"a/b": 1, "m~n": 2}', '{"a/b": 0, "m~n": 2}', "/a~1b"),
        ('{"m~n": 2}', '{"m~n": 3}', "/m~0n"),
    ],
)
def test_differences_name_the_json_pointer(expected, actual, pointer):
    assert differ(expected, actual) == pointer


def test_the_first_difference_follows_the_expected_documents_order():
    # Both /z and /a differ; /z comes first in the expected document.
    assert differ('{"z": 1, "a": 1}', '{"a": 2, "z": 2}') == "/z"
    # Depth first: /a/0 comes before /b.
    assert differ('{"a": [1], "b": 1}', '{"a": [2], "b": 2}') == "/a/0"
    # Keys only in the answer come after every expected key of that object.
    assert differ('{"a": {"x": 1}, "b": 1}', '{"a": {"x": 1, "extra": 1}, "b": 2}') == "/a/extra"
    assert differ('{"a": {"x": 1}, "b": 1}', '{"a": {"x": 1}, "b": 1, "c": 0}') == "/c"


def test_comparison_of_deep_documents_does_not_exhaust_the_stack():
    depth = 10_000  # ten times Python's recursion limit
    nested_expected: list = []
    cursor = nested_expected
    for _ in range(depth):
        inner: list = []
        cursor.append(inner)
        cursor = inner
    assert first_difference(nested_expected, nested_expected) is None


@pytest.mark.parametrize(
    "document, fragment",
    [
        (b"", "empty"),
        (b" \n", "empty"),
        (b"\xef\xbb\xbf{}", "byte-order mark"),
        (b'{"a": "\xc3"}', "not UTF-8 (invalid byte at offset 7)"),
        (b"NaN", "NaN is not JSON"),
        (b"[-Infinity]", "-Infinity is not JSON"),
        (b"{'a': 1}", "not JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
        (b"[" * 100_000, "nested too deeply"),
        (b"1" * 5000, "not accepted"),
        (b'{"sums": [1], "sums": [0, 0, 0]}', "gives the same key twice"),
        (b'[{"a": {"b": 1, "b": 1}}]', "gives the same key twice"),
    ],
)
def test_strict_parsing_refuses(document, fragment):
    with pytest.raises(JSONDocumentError) as refused:
        loads_strict(document)
    assert fragment in str(refused.value)


def test_parse_errors_never_quote_the_document():
    with pytest.raises(JSONDocumentError) as refused:
        loads_strict(b'{"secret-answer": 42,}')
    assert "secret" not in str(refused.value) and "42" not in str(refused.value)
