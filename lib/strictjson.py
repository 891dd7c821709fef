"""Strict JSON documents: parsing as docs/method.md defines it, and answer comparison.

Used by the catalog validator (inputs and expected answers must be JSON) and by the scorer
(a solution's output must be JSON, and equal to the expected answer). No Django here.
"""

from __future__ import annotations

import json
from typing import Any

BYTE_ORDER_MARK = b"\xef\xbb\xbf"


class JSONDocumentError(ValueError):
    """The bytes are not a strict JSON document. The message never quotes the document."""


class DocumentTooLarge(JSONDocumentError):
    """The bytes are more than the document may hold (read with one byte past the cap)."""

    def __init__(self, limit: int):
        super().__init__(f"larger than {limit:,} bytes")
        self.limit = limit


def loads_capped(data: bytes, limit: int) -> Any:
    """`loads_strict` of a document that may be at most `limit` bytes: the one reader of a bounded
    document someone sent (a run record, run fields, a sweep's line). `data` is read with one byte
    past the cap, so that an oversized document is told from one exactly at it. Raises
    DocumentTooLarge before parsing anything, else JSONDocumentError."""
    if len(data) > limit:
        raise DocumentTooLarge(limit)
    return loads_strict(data)


def _reject_constant(name: str) -> Any:
    raise JSONDocumentError(f"{name} is not JSON")


def _keys_once(pairs: list[tuple[str, Any]]) -> dict:
    """An object whose keys are each given once. `{"sums": [0], "sums": [42]}` is one answer to a
    reader that keeps the last and another to one that keeps the first: it is no answer."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise JSONDocumentError("not accepted: an object gives the same key twice")
    return found


def loads_strict(data: bytes) -> Any:
    """Parse UTF-8 JSON with no byte-order mark, no NaN/Infinity, no key twice in one object, and
    something in it."""
    if data.startswith(BYTE_ORDER_MARK):
        raise JSONDocumentError("starts with a byte-order mark (UTF-8 without BOM is required)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONDocumentError(f"not UTF-8 (invalid byte at offset {exc.start})") from None
    if not text.strip():
        raise JSONDocumentError("empty: an empty document is not JSON")
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_keys_once)
    except JSONDocumentError:
        raise
    except json.JSONDecodeError as exc:
        # exc.msg is the grammar complaint; the position, not the text around it.
        raise JSONDocumentError(f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise JSONDocumentError("not accepted: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        raise JSONDocumentError(f"not accepted: {exc}") from None


def pointer_token(key: str | int) -> str:
    """One RFC 6901 reference token."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _scalars_equal(expected: Any, actual: Any) -> bool:
    # bool is a subclass of int in Python; JSON's true is never equal to 1.
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if expected is None or actual is None:
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        # int == int is exact at any size; int == float compares exact values (1 == 1.0,
        # 2**53 + 1 != 2.0**53); float == float is IEEE-754 equality.
        return expected == actual
    if isinstance(expected, str) and isinstance(actual, str):
        return expected == actual
    return False


# Work items on the comparison stack that are not "compare these two values".
_CHECK_EXTRA_KEYS = object()  # after an object's expected keys: keys only in the answer
_CHECK_LENGTH = object()  # after an array's common elements: a length mismatch
_MISSING = object()  # an expected key the answer lacks


def pointer(tokens: list | tuple) -> str:
    """The RFC 6901 pointer of a path of keys and indexes ("" for the root)."""
    return "".join(f"/{pointer_token(token)}" for token in tokens)


def first_difference(expected: Any, actual: Any) -> str | None:
    """The JSON pointer of the first place `actual` differs from `expected`, or None if equal."""
    tokens = first_difference_path(expected, actual)
    return None if tokens is None else pointer(tokens)


def first_difference_path(expected: Any, actual: Any) -> tuple | None:
    """The path (keys and indexes) of the first place `actual` differs from `expected`, or None.

    "First" is in the expected document's order (a pre-order walk); keys present only in the
    actual object come after all of that object's expected keys. Iterative, so a deeply nested
    answer cannot exhaust the interpreter's stack.
    """
    stack: list[tuple[Any, Any, Any, tuple]] = [(None, expected, actual, ())]
    while stack:
        marker, left, right, path = stack.pop()
        if marker is _MISSING:
            return path
        if marker is _CHECK_EXTRA_KEYS:
            for key in right:
                if key not in left:
                    return (*path, key)
            continue
        if marker is _CHECK_LENGTH:
            if len(left) != len(right):
                return (*path, min(len(left), len(right)))
            continue
        if isinstance(left, dict):
            if not isinstance(right, dict):
                return path
            children = []
            for key, value in left.items():
                child = (*path, key)
                if key not in right:
                    children.append((_MISSING, None, None, child))
                    break
                children.append((None, value, right[key], child))
            else:
                children.append((_CHECK_EXTRA_KEYS, left, right, path))
            stack.extend(reversed(children))
        elif isinstance(left, list):
            if not isinstance(right, list):
                return path
            children = [
                (None, left[index], right[index], (*path, index))
                for index in range(min(len(left), len(right)))
            ]
            children.append((_CHECK_LENGTH, left, right, path))
            stack.extend(reversed(children))
        elif isinstance(right, (dict, list)) or not _scalars_equal(left, right):
            return path
    return None
