"""JavaScript values as Handlebars sees them: truthiness, ToString, ToNumber, ==, property lookup."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from lib.templates.tree import JS_SPACE_CHARS

# --- JavaScript values --------------------------------------------------------------------------


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


def js_number(value: float | int) -> str:
    """ECMAScript's Number::toString, for what JSON.parse makes of a JSON number (an integer
    beyond 2**53 becomes the nearest double, as there)."""
    try:
        number = float(value)
    except OverflowError:
        return "Infinity" if value > 0 else "-Infinity"
    if number == 0:
        return "0"
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    sign = "-" if number < 0 else ""
    # repr gives the shortest digits that read back as the same double, as ECMAScript asks.
    digits_tuple, exponent = Decimal(repr(abs(number))).normalize().as_tuple()[1:]
    digits = "".join(map(str, digits_tuple))
    k, n = len(digits), len(digits) + exponent  # ECMAScript's k and n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    power = f"{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return f"{sign}{digits}e{power}" if k == 1 else f"{sign}{digits[0]}.{digits[1:]}e{power}"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def to_string(value: Any) -> str:
    """JavaScript's String(value) for JSON values."""
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # Array.prototype.join: null and undefined become ""
        return ",".join("" if item is None or item is UNDEFINED else to_string(item) for item in value)
    return "[object Object]"


def js_keys(value: dict) -> list[str]:
    """Object.keys order: integer keys (array indexes) ascending, then the rest as written."""
    indexes = [key for key in value if key.isascii() and key.isdigit() and (key == "0" or key[0] != "0")
               and int(key) < 2**32 - 1]
    rest = [key for key in value if key not in set(indexes)]
    return sorted(indexes, key=int) + rest


_JS_NUMBER_TEXT = re.compile(r"^[+-]?(Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$")
_JS_RADIX_TEXT = re.compile(r"^0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)$")


def _to_number(value: Any) -> float:
    """JavaScript's ToNumber for JSON values (and what an object or array becomes)."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if value is UNDEFINED:
        return math.nan
    if is_number(value):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, (dict, list)):
        return _to_number(to_string(value))
    text = value.strip(JS_SPACE_CHARS)
    if not text:
        return 0.0
    if _JS_RADIX_TEXT.fullmatch(text):
        return float(int(text, 0))
    if _JS_NUMBER_TEXT.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    return math.nan


def loosely_equal(left: Any, right: Any) -> bool:
    """JavaScript's == for JSON values (Handlebars compares contexts with it)."""
    if (left is None or left is UNDEFINED) or (right is None or right is UNDEFINED):
        return (left is None or left is UNDEFINED) and (right is None or right is UNDEFINED)
    if isinstance(left, (dict, list)) and isinstance(right, (dict, list)):
        return left is right
    if isinstance(left, (dict, list)):
        left = to_string(left)
    if isinstance(right, (dict, list)):
        right = to_string(right)
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return _to_number(left) == _to_number(right)


def is_empty(value: Any) -> bool:
    """Handlebars' Utils.isEmpty: falsy but not 0, or an empty array."""
    if isinstance(value, list):
        return not value
    return not truthy(value) and not (is_number(value) and value == 0)


def truthy(value: Any) -> bool:
    if value is None or value is UNDEFINED or value is False:
        return False
    if is_number(value):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True  # true, arrays, objects


_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "`": "&#x60;", "=": "&#x3D;"}
_ESCAPE = re.compile("[&<>\"'`=]")


def escape(value: Any) -> str:
    """Handlebars' escapeExpression."""
    if value is None or value is UNDEFINED:
        return ""
    return _ESCAPE.sub(lambda match: _ESCAPES[match.group(0)], to_string(value))


def js_property(parent: Any, name: str) -> Any:
    """Handlebars' lookupProperty: own properties only (of JSON objects, arrays and strings)."""
    if isinstance(parent, dict):
        return parent[name] if name in parent else UNDEFINED
    if isinstance(parent, (list, str)):
        if name == "length":
            return len(parent) if isinstance(parent, list) else len(parent.encode("utf-16-le")) // 2
        if name.isascii() and name.isdigit() and (name == "0" or name[0] != "0") and int(name) < len(parent):
            return parent[int(name)] if isinstance(parent, list) else _utf16_unit(parent, int(name))
    return UNDEFINED


def _utf16_unit(text: str, index: int) -> str:
    units = text.encode("utf-16-le")
    return units[2 * index:2 * index + 2].decode("utf-16-le", errors="surrogatepass")


