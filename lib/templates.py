"""Handlebars templates (`.hbs`): the prompt and any templated spec, rendered as Handlebars.js 4.7.

What a harness renders with Handlebars.js must be what this site shows and seeds, byte for
byte, so this is a port of the parts of Handlebars that prompts use, held to Handlebars.js
itself by a differential test (tests/test_handlebars.py):

- `{{path}}` (HTML-escaped as Handlebars escapes), `{{{path}}}` and `{{& path}}` (raw); paths
  `a.b`, `a/b`, `this`, `this.a`, `.`, `./a`, `..`, `../a`, `@root`, `@root.a`, and the data
  variables `@index`, `@key`, `@first`, `@last`; `length` of an array or a string;
- blocks `{{#if}}`, `{{#unless}}`, `{{#each}}`, `{{#with}}` with one path, sections
  `{{#path}}` and inverted sections `{{^path}}`, each with an optional `{{else}}` (`{{^}}`);
- comments `{{! … }}` and `{{!-- … --}}`, `~` whitespace control, and Handlebars' standalone
  rule (its WhitespaceControl pass, ported line for line).

Values render as JavaScript would: numbers as JavaScript writes them (`1e+21`, `0.1`), arrays
joined with commas, objects as `[object Object]`, object keys in JavaScript's order (integer
keys first). Anything outside this subset (partials, other helpers, literals, `else if`,
`\\{{` escapes, segment literals, decorators, raw blocks) is a `TemplateError` naming the line:
it is refused rather than rendered differently.

A name the context lacks renders as nothing, as in Handlebars; `render_template(..., missing=list)`
collects each such lookup (its path and line) for the validator's warnings.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal
from dataclasses import dataclass, field
from typing import Any

BLOCK_HELPERS = ("if", "unless", "each", "with")
# Names Handlebars resolves to its own helpers: as a plain `{{name}}` they would run the helper.
BUILTIN_HELPERS = ("if", "unless", "each", "with", "log", "lookup", "helperMissing", "blockHelperMissing")
DATA_NAMES = ("index", "key", "first", "last", "root")

# JavaScript's \s, for the regular expressions Handlebars' whitespace handling uses.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_S = f"[{_JS_SPACE}]"
_JS_SPACE_CHARS = "\t\n\v\f\r \u00a0\u1680" + "".join(chr(code) for code in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
# (JavaScript's `$` is the end of the text; Python's `$` also matches before a final newline.)
_PREV_WHITESPACE = re.compile(rf"\r?\n{_S}*?\Z")
_PREV_WHITESPACE_ROOT = re.compile(rf"(^|\r?\n){_S}*?\Z")
_NEXT_WHITESPACE = re.compile(rf"^{_S}*?\r?\n")
_NEXT_WHITESPACE_ROOT = re.compile(rf"^{_S}*?(\r?\n|\Z)")
_STRIP_RIGHT_ALL = re.compile(rf"^{_S}+")
_STRIP_RIGHT_LINE = re.compile(r"^[ \t]*\r?\n?")
_STRIP_LEFT_ALL = re.compile(rf"{_S}+\Z")
_STRIP_LEFT_LINE = re.compile(r"[ \t]+\Z")

# Inside a mustache: white space between the parts, an identifier, a path.
_SPACE = "[ \t\r\n]"
_IDENTIFIER = r"[A-Za-z_$][A-Za-z0-9_$-]*"
_SEGMENT = re.compile(rf"^{_IDENTIFIER}$")
_LITERALS = ("true", "false", "null", "undefined")


class TemplateError(ValueError):
    pass


RAW_SCALAR_MESSAGE = ("could not be rendered faithfully: line {line}: `{{{{{{{path}}}}}}}` is a number or a boolean, "
                      "which Handlebars may add to its neighbour instead of writing; use `{{{{{path}}}}}`")


def _error(line: int, message: str) -> TemplateError:
    return TemplateError(f"is not a valid Handlebars template: line {line}: {message}")


# --- the tree -----------------------------------------------------------------------------------


@dataclass
class _Content:
    original: str
    value: str
    right_stripped: bool = False
    left_stripped: bool = False


@dataclass(frozen=True)
class _Path:
    original: str
    data: bool  # @name
    depth: int  # how many `../`
    parts: tuple[str, ...]  # after `this`, `.` and the data name's own first part are taken out
    this: bool = False  # starts with this, `.` or `./`


@dataclass
class _Mustache:
    path: _Path
    escaped: bool
    line: int
    strip: dict = field(default_factory=dict)


@dataclass
class _Comment:
    strip: dict


@dataclass
class _Program:
    body: list


@dataclass
class _Block:
    helper: str  # if, unless, each, with, or "" for a section (blockHelperMissing)
    path: _Path
    program: _Program | None
    inverse: _Program | None
    line: int
    open_strip: dict
    close_strip: dict
    inverse_strip: dict | None = None
    name: str = ""  # as written, for matching the closing tag
    inverted: bool = False  # {{^…}}
    first: _Program | None = None  # while parsing: the part before {{else}}


# --- reading ------------------------------------------------------------------------------------


def _path(text: str, line: int) -> _Path:
    """A path in the subset; TemplateError for anything else."""
    original = text
    if not text:
        raise _error(line, "a mustache needs a name")
    if text.startswith("@"):
        rest = text[1:]
        parts = tuple(rest.split("."))
        if (not all(_SEGMENT.match(part) for part in parts) or parts[0] not in DATA_NAMES
                or (parts[0] != "root" and len(parts) > 1) or parts[-1] in _LITERALS):
            raise _error(line, f"`{original}` is not a data variable this renderer supports (@index, @key, @first, @last, @root)")
        return _Path(original, True, 0, parts)
    depth = 0
    while text.startswith("../"):
        depth += 1
        text = text[3:]
    if text == "..":
        return _Path(original, False, depth + 1, (), this=True)
    this = False
    if text in (".", "this"):
        return _Path(original, False, depth, (), this=True)
    if text.startswith("./") or text.startswith("this.") or text.startswith("this/"):
        this = True
        text = text[2:] if text.startswith("./") else text[5:]
    parts = tuple(re.split(r"[./]", text))
    # An all-digit segment is a name (`specs.1.dest`) except at the end, where Handlebars reads a
    # number and refuses the path.
    named = [bool(_SEGMENT.match(part)) or (part.isascii() and part.isdigit() and index < len(parts) - 1)
             for index, part in enumerate(parts)]
    if not all(named) or any(part == "this" for part in parts):
        raise _error(line, f"`{original}` is not a path this renderer supports (names of letters, digits, `_`, `$` "
                           "and `-`, joined by `.` or `/`)")
    if parts[-1] in _LITERALS:  # Handlebars reads a literal there (`true}}`), not a name
        raise _error(line, f"`{original}` ends in a literal, not a name")
    return _Path(original, False, depth, parts, this)


_MUSTACHE = re.compile(r"\{\{(~?)")
_TRIPLE_CLOSE = re.compile(r"\}(~?)\}\}")


def _read_until_close(text: str, start: int, line: int) -> tuple[str, bool, int]:
    """The inside of a mustache from `start`, whether it ends with `~`, and the index after."""
    end = text.find("}}", start)
    if end < 0:
        raise _error(line, "a mustache is never closed")
    inside = text[start:end]
    strip = inside.endswith("~")
    return (inside[:-1] if strip else inside), strip, end + 2


def _words(inside: str, line: int) -> list[str]:
    """The parts of a mustache, split at spaces, tabs and line breaks (any other white space,
    which Handlebars would also skip, is refused rather than guessed at)."""
    trimmed = inside.strip(" \t\r\n")
    words = re.split(f"{_SPACE}+", trimmed) if trimmed else []
    if any(re.search(_S, word) for word in words):
        raise _error(line, "white space other than spaces, tabs and line breaks inside a mustache")
    return words


def _tokens(text: str) -> list:
    """Content strings and mustache tuples (kind, detail, line, strip_open, strip_close)."""
    tokens: list = []
    position = 0
    while True:
        match = _MUSTACHE.search(text, position)
        if match is None:
            if position < len(text):
                tokens.append(text[position:])
            return tokens
        start = match.start()
        line = text.count("\n", 0, start) + 1
        if start > 0 and text[start - 1] == "\\":
            raise _error(line, "escaped mustaches (`\\{{`) are not supported")
        if start > position:
            tokens.append(text[position:start])
        strip_open = bool(match.group(1))
        after = match.end()
        if text.startswith("!--", after):
            # Handlebars ends it at the first `--` followed by `}}` (or `~}}`), counting the
            # `--` of `{{!--` itself: `{{!--}}` is a whole comment.
            end = text.find("--", after + 1)
            while end >= 0 and not (text.startswith("}}", end + 2) or text.startswith("~}}", end + 2)):
                end = text.find("--", end + 1)
            if end < 0:
                raise _error(line, "a comment `{{!--` is never closed with `--}}`")
            strip_close = text.startswith("~}}", end + 2)
            tokens.append(("comment", "", line, strip_open, strip_close))
            position = end + (5 if strip_close else 4)
            continue
        if text.startswith("!", after):
            end = text.find("}}", after)
            if end < 0:
                raise _error(line, "a comment is never closed")
            tokens.append(("comment", "", line, strip_open, text[end - 1] == "~" and end - 1 > after))
            position = end + 2
            continue
        if text.startswith("{", after):  # {{{raw}}}, closed by }}} or }~}}
            close = _TRIPLE_CLOSE.search(text, after + 1)
            if close is None:
                raise _error(line, "a `{{{` mustache is never closed with `}}}`")
            inside, strip_close, position = text[after + 1:close.start()], bool(close.group(1)), close.end()
            if not strip_close and text.startswith("}", position):  # `}}}}` ends a raw block there
                raise _error(line, "`}}}}` after a `{{{` mustache (Handlebars reads it as the end of a raw block)")
            words = _words(inside, line)
            if len(words) != 1:
                raise _error(line, "`{{{…}}}` takes exactly one name (helpers are not supported)")
            tokens.append(("raw", _path(words[0], line), line, strip_open, strip_close))
            continue
        inside, strip_close, position = _read_until_close(text, after, line)
        if "{{" in inside:
            raise _error(line, "a mustache is never closed")
        token = _classify(inside, line, strip_open, strip_close)
        if token[0] != "else" and not strip_close and text.startswith("}", position):
            # Handlebars reads `}}}` there as the end of a `{{{`, and refuses the template
            # (`{{else}}` and `{{^}}` are read as one token, so a `}` after them is text).
            raise _error(line, "`}}}` closes a mustache opened with `{{` (write `}} }` or `~}}}`)")
        tokens.append(token)


def _classify(inside: str, line: int, strip_open: bool, strip_close: bool) -> tuple:
    head = inside[:1]
    if head in ("#", "^", "/", "&", ">"):
        words = _words(inside[1:], line)
    else:
        words = _words(inside, line)
    if head == ">":
        raise _error(line, "partials (`{{> …}}`) are not supported")
    if head == "#" and (inside.startswith("#>") or inside.startswith("#*")):
        raise _error(line, "partial blocks and decorators are not supported")
    if head == "^" and not words:
        return ("else", None, line, strip_open, strip_close)
    if head in ("#", "^"):  # a block, or an inverted one: {{^name}}, {{^if value}} and its kin
        return _opening(words, line, strip_open, strip_close, inverted=head == "^")
    if head == "/":
        if len(words) != 1:
            raise _error(line, "a closing tag names one block")
        return ("close", words[0], line, strip_open, strip_close)
    if head == "&":
        if len(words) != 1:
            raise _error(line, "`{{&…}}` takes exactly one name")
        return ("raw", _path(words[0], line), line, strip_open, strip_close)
    if words == ["else"]:
        return ("else", None, line, strip_open, strip_close)
    if words and words[0] == "else":
        raise _error(line, "`{{else …}}` chains are not supported")
    if len(words) != 1:
        raise _error(line, f"unknown helper `{words[0] if words else ''}`")
    if head in ("*", "=", '"', "'") or words[0][:1].isdigit() or words[0][:1] == "-":
        raise _error(line, f"`{words[0]}` is not a name")
    if words[0] in BUILTIN_HELPERS:
        raise _error(line, f"`{words[0]}` is a Handlebars helper, not a name")
    return ("var", _path(words[0], line), line, strip_open, strip_close)


def _opening(words: list[str], line: int, strip_open: bool, strip_close: bool, *, inverted: bool) -> tuple:
    if not words:
        raise _error(line, "a block tag needs a name")
    name, rest = words[0], words[1:]
    if name in BLOCK_HELPERS:
        if len(rest) != 1:
            raise _error(line, f"`{{{{#{name}}}}}` takes exactly one value")
        return ("open", (name, _path(rest[0], line), name, inverted), line, strip_open, strip_close)
    if rest:
        raise _error(line, f"unknown block helper `{name}`")
    if name in BUILTIN_HELPERS:
        raise _error(line, f"`{name}` is a Handlebars helper, not a section name")
    return ("open", ("", _path(name, line), name, inverted), line, strip_open, strip_close)


def _parse(text: str) -> _Program:
    root = _Program([])
    # A stack of (block, program being filled, whether the else part is being filled).
    stack: list[list] = []
    body = root.body
    for token in _tokens(text):
        if isinstance(token, str):
            body.append(_Content(token, token))
            continue
        kind, detail, line, strip_open, strip_close = token
        strip = {"open": strip_open, "close": strip_close}
        if kind == "comment":
            body.append(_Comment(strip))
        elif kind in ("var", "raw"):
            body.append(_Mustache(detail, kind == "var", line, strip))
        elif kind == "open":
            helper, path, name, inverted = detail
            block = _Block(helper, path, None, None, line, strip, {}, name=name, inverted=inverted)
            body.append(block)
            program = _Program([])
            stack.append([block, program, False])
            body = program.body
        elif kind == "else":
            if not stack or stack[-1][2]:
                raise _error(line, "`{{else}}` outside a block")
            entry = stack[-1]
            entry[0].first = entry[1]
            entry[0].inverse_strip = strip
            entry[1] = _Program([])
            entry[2] = True
            body = entry[1].body
        else:  # close
            if not stack:
                raise _error(line, f"`{{{{/{detail}}}}}` closes no block")
            block, program, in_else = stack.pop()
            if detail != block.name:
                raise _error(line, f"`{{{{/{detail}}}}}` closes `{{{{#{block.name}}}}}` (opened on line {block.line})")
            block.close_strip = strip
            first = block.first
            parts = (first, program) if in_else else (program, None)
            if block.inverted:  # an inverted block: its first part is the inverse (prepareBlock)
                block.inverse, block.program = parts
            else:
                block.program, block.inverse = parts
            body = stack[-1][1].body if stack else root.body
    if stack:
        block = stack[-1][0]
        raise _error(block.line, f"`{{{{#{block.name}}}}}` is never closed")
    _WhitespaceControl().program(root)
    return root


# --- Handlebars' WhitespaceControl (compiler/whitespace-control.js), ported ---------------------


def _is_prev_whitespace(body: list, i: int | None = None, is_root: bool = False):
    if i is None:
        i = len(body)
    prev = body[i - 1] if i - 1 >= 0 else None
    sibling = body[i - 2] if i - 2 >= 0 else None
    if prev is None:
        return is_root
    if isinstance(prev, _Content):
        pattern = _PREV_WHITESPACE if (sibling is not None or not is_root) else _PREV_WHITESPACE_ROOT
        return bool(pattern.search(prev.original))
    return None


def _is_next_whitespace(body: list, i: int | None = None, is_root: bool = False):
    if i is None:
        i = -1
    next_ = body[i + 1] if i + 1 < len(body) else None
    sibling = body[i + 2] if i + 2 < len(body) else None
    if next_ is None:
        return is_root
    if isinstance(next_, _Content):
        pattern = _NEXT_WHITESPACE if (sibling is not None or not is_root) else _NEXT_WHITESPACE_ROOT
        return bool(pattern.search(next_.original))
    return None


def _omit_right(body: list, i: int | None = None, multiple: bool = False) -> None:
    index = 0 if i is None else i + 1
    current = body[index] if 0 <= index < len(body) else None
    if not isinstance(current, _Content) or (not multiple and current.right_stripped):
        return
    original = current.value
    current.value = (_STRIP_RIGHT_ALL if multiple else _STRIP_RIGHT_LINE).sub("", current.value, count=1)
    current.right_stripped = current.value != original


def _omit_left(body: list, i: int | None = None, multiple: bool = False):
    index = len(body) - 1 if i is None else i - 1
    current = body[index] if 0 <= index < len(body) else None
    if not isinstance(current, _Content) or (not multiple and current.left_stripped):
        return None
    original = current.value
    current.value = (_STRIP_LEFT_ALL if multiple else _STRIP_LEFT_LINE).sub("", current.value, count=1)
    current.left_stripped = current.value != original
    return current.left_stripped


class _WhitespaceControl:
    def __init__(self):
        self.root_seen = False

    def accept(self, node):
        if isinstance(node, _Program):
            return self.program(node)
        if isinstance(node, _Block):
            return self.block(node)
        if isinstance(node, _Mustache):
            return node.strip
        if isinstance(node, _Comment):
            return {"inlineStandalone": True, "open": node.strip.get("open"), "close": node.strip.get("close")}
        return None

    def program(self, program: _Program):
        is_root = not self.root_seen
        self.root_seen = True
        body = program.body
        for i, current in enumerate(body):
            strip = self.accept(current)
            if not strip:
                continue
            prev_whitespace = _is_prev_whitespace(body, i, is_root)
            next_whitespace = _is_next_whitespace(body, i, is_root)
            open_standalone = strip.get("openStandalone") and prev_whitespace
            close_standalone = strip.get("closeStandalone") and next_whitespace
            inline_standalone = strip.get("inlineStandalone") and prev_whitespace and next_whitespace
            if strip.get("close"):
                _omit_right(body, i, True)
            if strip.get("open"):
                _omit_left(body, i, True)
            if inline_standalone:
                _omit_right(body, i)
                _omit_left(body, i)
            if open_standalone:
                _omit_right((current.program or current.inverse).body)
                _omit_left(body, i)
            if close_standalone:
                _omit_right(body, i)
                _omit_left((current.inverse or current.program).body)
        return None  # a Program is not stripped by its parent

    def block(self, block: _Block):
        if block.program is not None:
            self.accept(block.program)
        if block.inverse is not None:
            self.accept(block.inverse)
        program = block.program or block.inverse
        inverse = block.inverse if block.program else None
        strip = {
            "open": block.open_strip.get("open"),
            "close": block.close_strip.get("close"),
            "openStandalone": _is_next_whitespace(program.body),
            "closeStandalone": _is_prev_whitespace((inverse or program).body),
        }
        if block.open_strip.get("close"):
            _omit_right(program.body, None, True)
        if inverse is not None:
            inverse_strip = block.inverse_strip or {}
            if inverse_strip.get("open"):
                _omit_left(program.body, None, True)
            if inverse_strip.get("close"):
                _omit_right(inverse.body, None, True)
            if block.close_strip.get("open"):
                _omit_left(inverse.body, None, True)
            if _is_prev_whitespace(program.body) and _is_next_whitespace(inverse.body):
                _omit_left(program.body)
                _omit_right(inverse.body)
        elif block.close_strip.get("open"):
            _omit_left(program.body, None, True)
        return strip


@functools.lru_cache(maxsize=512)
def compile_template(source: bytes) -> _Program:
    """Parse into a tree (cached by content; a catalog repeats its templates)."""
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"is not UTF-8 (invalid byte at offset {exc.start})") from None
    if "\0" in text:
        raise TemplateError("contains a NUL character")
    return _parse(text)


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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _to_string(value: Any) -> str:
    """JavaScript's String(value) for JSON values."""
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if _is_number(value):
        return js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # Array.prototype.join: null and undefined become ""
        return ",".join("" if item is None or item is UNDEFINED else _to_string(item) for item in value)
    return "[object Object]"


def _js_keys(value: dict) -> list[str]:
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
    if _is_number(value):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, (dict, list)):
        return _to_number(_to_string(value))
    text = value.strip(_JS_SPACE_CHARS)
    if not text:
        return 0.0
    if _JS_RADIX_TEXT.match(text):
        return float(int(text, 0))
    if _JS_NUMBER_TEXT.match(text):
        return float(text.replace("Infinity", "inf"))
    return math.nan


def _loosely_equal(left: Any, right: Any) -> bool:
    """JavaScript's == for JSON values (Handlebars compares contexts with it)."""
    if (left is None or left is UNDEFINED) or (right is None or right is UNDEFINED):
        return (left is None or left is UNDEFINED) and (right is None or right is UNDEFINED)
    if isinstance(left, (dict, list)) and isinstance(right, (dict, list)):
        return left is right
    if isinstance(left, (dict, list)):
        left = _to_string(left)
    if isinstance(right, (dict, list)):
        right = _to_string(right)
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return _to_number(left) == _to_number(right)


def _is_empty(value: Any) -> bool:
    """Handlebars' Utils.isEmpty: falsy but not 0, or an empty array."""
    if isinstance(value, list):
        return not value
    return not _truthy(value) and not (_is_number(value) and value == 0)


def _truthy(value: Any) -> bool:
    if value is None or value is UNDEFINED or value is False:
        return False
    if _is_number(value):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True  # true, arrays, objects


_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "`": "&#x60;", "=": "&#x3D;"}
_ESCAPE = re.compile("[&<>\"'`=]")


def _escape(value: Any) -> str:
    """Handlebars' escapeExpression."""
    if value is None or value is UNDEFINED:
        return ""
    return _ESCAPE.sub(lambda match: _ESCAPES[match.group(0)], _to_string(value))


def _property(parent: Any, name: str) -> Any:
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


# --- rendering ----------------------------------------------------------------------------------


@dataclass
class _State:
    root: Any
    missing: list | None


def _lookup(path: _Path, depths: list, data: dict, state: _State, line: int) -> Any:
    if path.data:
        value = data.get(path.parts[0], UNDEFINED) if path.parts[0] != "root" else state.root
        for part in path.parts[1:]:  # Handlebars chains data lookups with `&&`: a falsy value stays
            if _truthy(value):
                value = _property(value, part)
        return value
    context = depths[path.depth] if path.depth < len(depths) else UNDEFINED
    value = context
    for part in path.parts:
        if value is None or value is UNDEFINED:
            break
        value = _property(value, part)
    if value is UNDEFINED and state.missing is not None and path.parts:
        state.missing.append((path.original, line))
    return value


def _run(program: _Program | None, context: Any, depths: list, data: dict, state: _State, out: list[str]) -> None:
    if program is None:
        return
    if depths and not _loosely_equal(context, depths[0]):
        depths = [context, *depths]
    elif not depths:
        depths = [context]
    for node in program.body:
        if isinstance(node, _Content):
            out.append(node.value)
        elif isinstance(node, _Comment):
            continue
        elif isinstance(node, _Mustache):
            value = _lookup(node.path, depths, data, state, node.line)
            if node.escaped:
                out.append(_escape(value))
            elif value is None or value is UNDEFINED:
                continue
            elif isinstance(value, bool) or _is_number(value):
                # Handlebars.js joins its output with `+`: an unescaped number or boolean beside
                # another adds up (`{{{a}}}{{{a}}}` with a false is "0"), depending on how its
                # compiler grouped the code. Not reproduced: refused.
                raise TemplateError(RAW_SCALAR_MESSAGE.format(line=node.line, path=node.path.original))
            else:
                out.append(_to_string(value))
        else:
            _block(node, depths, data, state, out)


def _each(block: _Block, value: Any, depths: list, data: dict, state: _State, out: list[str], program: _Program | None) -> None:
    context = depths[0]
    if isinstance(value, list):
        items = [(index, index, item) for index, item in enumerate(value)]
    elif isinstance(value, dict):
        items = [(key, index, value[key]) for index, key in enumerate(_js_keys(value))]
    else:
        items = []
    if not items:
        _run(block.inverse, context, depths, data, state, out)
        return
    for key, index, item in items:
        frame = {**data, "key": key, "index": index, "first": index == 0, "last": index == len(items) - 1}
        _run(program, item, depths, frame, state, out)


def _block(block: _Block, depths: list, data: dict, state: _State, out: list[str]) -> None:
    context = depths[0]
    value = _lookup(block.path, depths, data, state, block.line)
    helper = block.helper
    if helper == "if":
        chosen = block.inverse if not _truthy(value) or _is_empty(value) else block.program
        _run(chosen, context, depths, data, state, out)
    elif helper == "unless":
        chosen = block.program if not _truthy(value) or _is_empty(value) else block.inverse
        _run(chosen, context, depths, data, state, out)
    elif helper == "with":
        if _is_empty(value):
            _run(block.inverse, context, depths, data, state, out)
        else:
            _run(block.program, value, depths, data, state, out)
    elif helper == "each":
        _each(block, value, depths, data, state, out, block.program)
    else:  # a section or an inverted section: Handlebars' blockHelperMissing
        if value is True:
            _run(block.program, context, depths, data, state, out)
        elif value is False or value is None or value is UNDEFINED:
            _run(block.inverse, context, depths, data, state, out)
        elif isinstance(value, list):
            if value:
                _each(block, value, depths, data, state, out, block.program)
            else:
                _run(block.inverse, context, depths, data, state, out)
        else:
            _run(block.program, value, depths, data, state, out)


def render_template(source: bytes, context: dict[str, Any], *, missing: list | None = None) -> str:
    """Render as Handlebars.js 4.7 does. `missing`, when given, receives (path, line) for every
    name the context lacks (each renders as nothing)."""
    program = compile_template(source)
    out: list[str] = []
    try:
        _run(program, context, [], {}, _State(context, missing), out)
    except RecursionError:
        raise TemplateError("could not be rendered: nested too deeply") from None
    return "".join(out)
