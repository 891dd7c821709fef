"""Reading a template into a tree: the subset of Handlebars' grammar, refusing the rest."""

from __future__ import annotations

import functools
import re

from lib.templates.tree import (
    BLOCK_HELPERS,
    BUILTIN_HELPERS,
    DATA_NAMES,
    JS_S,
    Block,
    Comment,
    Content,
    Mustache,
    PathNode,
    Program,
    TemplateError,
    syntax_error,
)
from lib.templates.whitespace import WhitespaceControl

# Inside a mustache: white space between the parts, an identifier, a path.
_SPACE = "[ \t\r\n]"
_IDENTIFIER = r"[A-Za-z_$][A-Za-z0-9_$-]*"
_SEGMENT = re.compile(rf"^{_IDENTIFIER}$")
_LITERALS = ("true", "false", "null", "undefined")



# --- reading ------------------------------------------------------------------------------------


def _path(text: str, line: int) -> PathNode:
    """A path in the subset; TemplateError for anything else."""
    original = text
    if not text:
        raise syntax_error(line, "a mustache needs a name")
    if text.startswith("@"):
        rest = text[1:]
        parts = tuple(rest.split("."))
        if (not all(_SEGMENT.fullmatch(part) for part in parts) or parts[0] not in DATA_NAMES
                or (parts[0] != "root" and len(parts) > 1) or parts[-1] in _LITERALS):
            raise syntax_error(line,
                               f"`{original}` is not a data variable this renderer supports (@index, @key, @first, "
                               f"@last, @root)")
        return PathNode(original, True, 0, parts)
    depth = 0
    while text.startswith("../"):
        depth += 1
        text = text[3:]
    if text == "..":
        return PathNode(original, False, depth + 1, (), this=True)
    this = False
    if text in (".", "this"):
        return PathNode(original, False, depth, (), this=True)
    if text.startswith("./") or text.startswith("this.") or text.startswith("this/"):
        this = True
        text = text[2:] if text.startswith("./") else text[5:]
    parts = tuple(re.split(r"[./]", text))
    # An all-digit segment is a name (`specs.1.dest`) except at the end, where Handlebars reads a
    # number and refuses the path.
    named = [bool(_SEGMENT.fullmatch(part)) or (part.isascii() and part.isdigit() and index < len(parts) - 1)
             for index, part in enumerate(parts)]
    if not all(named) or any(part == "this" for part in parts):
        raise syntax_error(line,
                           f"`{original}` is not a path this renderer supports (names of letters, digits, `_`, `$` "
                           "and `-`, joined by `.` or `/`)")
    if parts[-1] in _LITERALS:  # Handlebars reads a literal there (`true}}`), not a name
        raise syntax_error(line, f"`{original}` ends in a literal, not a name")
    return PathNode(original, False, depth, parts, this)


_MUSTACHE = re.compile(r"\{\{(~?)")
_TRIPLE_CLOSE = re.compile(r"\}(~?)\}\}")


def _read_until_close(text: str, start: int, line: int) -> tuple[str, bool, int]:
    """The inside of a mustache from `start`, whether it ends with `~`, and the index after."""
    end = text.find("}}", start)
    if end < 0:
        raise syntax_error(line, "a mustache is never closed")
    inside = text[start:end]
    strip = inside.endswith("~")
    return (inside[:-1] if strip else inside), strip, end + 2


def _refuse_literals(inside: str, line: int) -> None:
    """Handlebars reads a string (`'…'`, `"…"`) or a segment literal (`[…]`) in a mustache, where
    `}}` and `{{` may stand inside the quotes; this port reads names only, so a mustache with a
    quote or a bracket is refused (never read up to a `}}` Handlebars would not stop at)."""
    if any(mark in inside for mark in "'\"["):
        raise syntax_error(line, "a literal (`'…'`, `\"…\"` or `[…]`) in a mustache is not supported: write the "
                                 "name itself")


def _words(inside: str, line: int) -> list[str]:
    """The parts of a mustache, split at spaces, tabs and line breaks (any other white space,
    which Handlebars would also skip, is refused rather than guessed at)."""
    trimmed = inside.strip(" \t\r\n")
    words = re.split(f"{_SPACE}+", trimmed) if trimmed else []
    if any(re.search(JS_S, word) for word in words):
        raise syntax_error(line, "white space other than spaces, tabs and line breaks inside a mustache")
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
            raise syntax_error(line, "escaped mustaches (`\\{{`) are not supported")
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
                raise syntax_error(line, "a comment `{{!--` is never closed with `--}}`")
            strip_close = text.startswith("~}}", end + 2)
            tokens.append(("comment", "", line, strip_open, strip_close))
            position = end + (5 if strip_close else 4)
            continue
        if text.startswith("!", after):
            end = text.find("}}", after)
            if end < 0:
                raise syntax_error(line, "a comment is never closed")
            tokens.append(("comment", "", line, strip_open, text[end - 1] == "~" and end - 1 > after))
            position = end + 2
            continue
        if text.startswith("{", after):  # {{{raw}}}, closed by }}} or }~}}
            close = _TRIPLE_CLOSE.search(text, after + 1)
            if close is None:
                raise syntax_error(line, "a `{{{` mustache is never closed with `}}}`")
            inside, strip_close, position = text[after + 1:close.start()], bool(close.group(1)), close.end()
            if not strip_close and text.startswith("}", position):  # `}}}}` ends a raw block there
                raise syntax_error(line,
                                   "`}}}}` after a `{{{` mustache (Handlebars reads it as the end of a raw block)")
            _refuse_literals(inside, line)
            words = _words(inside, line)
            if len(words) != 1:
                raise syntax_error(line, "`{{{…}}}` takes exactly one name (helpers are not supported)")
            tokens.append(("raw", _path(words[0], line), line, strip_open, strip_close))
            continue
        inside, strip_close, position = _read_until_close(text, after, line)
        _refuse_literals(inside, line)
        if "{{" in inside:
            raise syntax_error(line, "a mustache is never closed")
        token = _classify(inside, line, strip_open, strip_close)
        if token[0] != "else" and not strip_close and text.startswith("}", position):
            # Handlebars reads `}}}` there as the end of a `{{{`, and refuses the template
            # (`{{else}}` and `{{^}}` are read as one token, so a `}` after them is text).
            raise syntax_error(line, "`}}}` closes a mustache opened with `{{` (write `}} }` or `~}}}`)")
        tokens.append(token)


def _classify(inside: str, line: int, strip_open: bool, strip_close: bool) -> tuple:
    head = inside[:1]
    if head in ("#", "^", "/", "&", ">"):
        words = _words(inside[1:], line)
    else:
        words = _words(inside, line)
    if head == ">":
        raise syntax_error(line, "partials (`{{> …}}`) are not supported")
    if head == "#" and (inside.startswith("#>") or inside.startswith("#*")):
        raise syntax_error(line, "partial blocks and decorators are not supported")
    if head == "^" and not words:
        return ("else", None, line, strip_open, strip_close)
    if head in ("#", "^"):  # a block, or an inverted one: {{^name}}, {{^if value}} and its kin
        return _opening(words, line, strip_open, strip_close, inverted=head == "^")
    if head == "/":
        if len(words) != 1:
            raise syntax_error(line, "a closing tag names one block")
        return ("close", words[0], line, strip_open, strip_close)
    if head == "&":
        if len(words) != 1:
            raise syntax_error(line, "`{{&…}}` takes exactly one name")
        return ("raw", _path(words[0], line), line, strip_open, strip_close)
    if words == ["else"]:
        return ("else", None, line, strip_open, strip_close)
    if words and words[0] == "else":
        raise syntax_error(line, "`{{else …}}` chains are not supported")
    if len(words) != 1:
        raise syntax_error(line, f"unknown helper `{words[0] if words else ''}`")
    if head in ("*", "=", '"', "'") or words[0][:1].isdigit() or words[0][:1] == "-":
        raise syntax_error(line, f"`{words[0]}` is not a name")
    if words[0] in BUILTIN_HELPERS:
        raise syntax_error(line, f"`{words[0]}` is a Handlebars helper, not a name")
    return ("var", _path(words[0], line), line, strip_open, strip_close)


def _opening(words: list[str], line: int, strip_open: bool, strip_close: bool, *, inverted: bool) -> tuple:
    if not words:
        raise syntax_error(line, "a block tag needs a name")
    name, rest = words[0], words[1:]
    if name in BLOCK_HELPERS:
        if len(rest) != 1:
            raise syntax_error(line, f"`{{{{#{name}}}}}` takes exactly one value")
        return ("open", (name, _path(rest[0], line), name, inverted), line, strip_open, strip_close)
    if rest:
        raise syntax_error(line, f"unknown block helper `{name}`")
    if name in BUILTIN_HELPERS:
        raise syntax_error(line, f"`{name}` is a Handlebars helper, not a section name")
    return ("open", ("", _path(name, line), name, inverted), line, strip_open, strip_close)


def _parse(text: str) -> Program:
    root = Program([])
    # A stack of (block, program being filled, whether the else part is being filled).
    stack: list[list] = []
    body = root.body
    for token in _tokens(text):
        if isinstance(token, str):
            body.append(Content(token, token))
            continue
        kind, detail, line, strip_open, strip_close = token
        strip = {"open": strip_open, "close": strip_close}
        if kind == "comment":
            body.append(Comment(strip))
        elif kind in ("var", "raw"):
            body.append(Mustache(detail, kind == "var", line, strip))
        elif kind == "open":
            helper, path, name, inverted = detail
            block = Block(helper, path, None, None, line, strip, {}, name=name, inverted=inverted)
            body.append(block)
            program = Program([])
            stack.append([block, program, False])
            body = program.body
        elif kind == "else":
            if not stack or stack[-1][2]:
                raise syntax_error(line, "`{{else}}` outside a block")
            entry = stack[-1]
            entry[0].first = entry[1]
            entry[0].inverse_strip = strip
            entry[1] = Program([])
            entry[2] = True
            body = entry[1].body
        else:  # close
            if not stack:
                raise syntax_error(line, f"`{{{{/{detail}}}}}` closes no block")
            block, program, in_else = stack.pop()
            if detail != block.name:
                raise syntax_error(line,
                                   f"`{{{{/{detail}}}}}` closes `{{{{#{block.name}}}}}` (opened on line {block.line})")
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
        raise syntax_error(block.line, f"`{{{{#{block.name}}}}}` is never closed")
    WhitespaceControl().program(root)
    return root



@functools.lru_cache(maxsize=512)
def compile_template(source: bytes) -> Program:
    """Parse into a tree (cached by content; a catalog repeats its templates)."""
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"is not UTF-8 (invalid byte at offset {exc.start})") from None
    if "\0" in text:
        raise TemplateError("contains a NUL character")
    return _parse(text)


