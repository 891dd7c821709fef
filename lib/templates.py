"""Handlebars templates (`.hbs`): the prompt and any templated spec.

A faithful subset of Handlebars, enough for prompts and specs:

- `{{path}}` (HTML-escaped, as Handlebars does), `{{{path}}}` and `{{& path}}` (raw);
  paths `a.b`, `this`, `this.a`, `./a`, `../a`, `@root.a`, and in `#each` `@index`, `@key`,
  `@first`, `@last`;
- blocks `{{#if}}`, `{{#unless}}`, `{{#each}}`, `{{#with}}` with `{{else}}`, and plain sections
  `{{#name}}…{{/name}}` (iterate a list, enter an object, skip a falsy value);
- comments `{{! … }}` and `{{!-- … --}}`, `\\{{` for a literal `{{`, and `~` whitespace control;
- the standalone rule: a line holding only a block, `else` or comment tag disappears entirely.

Anything else (partials, custom helpers, unbalanced blocks) is a `TemplateError` naming the line.
Missing values render as nothing, as in Handlebars; with `strict=True` (what the catalog
validator uses) a path that names nothing in the context is an error instead.
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass, field
from typing import Any

BLOCK_HELPERS = ("if", "unless", "each", "with")
# A triple-stash `{{{…}}}`, a long comment `{{!-- … --}}` (which may hold `}}`), or `{{…}}`;
# `\{{` escapes a literal `{{`.
_TAG = re.compile(
    r"(?P<escaped>\\)?(?:"
    r"\{\{\{(?P<triple_left>~)?(?P<triple>.*?)(?P<triple_right>~)?\}\}\}"
    r"|\{\{(?P<comment_left>~)?!--(?P<comment>.*?)--(?P<comment_right>~)?\}\}"
    r"|\{\{(?P<left>~)?(?P<inner>.*?)(?P<right>~)?\}\})",
    re.DOTALL,
)
_PATH = re.compile(r"^(?:@?[A-Za-z_$][\w$-]*|\.{1,2})(?:[./](?:\.\.|[\w$-]+))*$")


class TemplateError(ValueError):
    pass


@dataclass
class _Tag:
    kind: str  # "var", "raw", "open", "close", "else", "comment"
    name: str = ""  # helper or path
    argument: str = ""  # the block helper's argument
    line: int = 1
    strip_before: bool = False
    strip_after: bool = False


@dataclass
class _Block:
    tag: _Tag
    body: list = field(default_factory=list)
    inverse: list = field(default_factory=list)
    in_inverse: bool = False

    def append(self, node) -> None:
        (self.inverse if self.in_inverse else self.body).append(node)


def _error(line: int, message: str) -> TemplateError:
    return TemplateError(f"is not a valid Handlebars template: line {line}: {message}")


def _check_path(path: str, line: int) -> str:
    if not _PATH.match(path):
        raise _error(line, f"`{path}` is not a value this renderer knows (helpers other than "
                           f"{', '.join(BLOCK_HELPERS)} and partials are not supported)")
    return path


def _classify(inner: str, triple: bool, line: int) -> _Tag:
    content = inner.strip()
    if triple:
        return _Tag("raw", _check_path(content, line), line=line)
    if content.startswith("!"):
        return _Tag("comment", line=line)
    if content.startswith("&"):
        return _Tag("raw", _check_path(content[1:].strip(), line), line=line)
    if content in ("else", "^"):
        return _Tag("else", line=line)
    if content.startswith(">"):
        raise _error(line, "partials (`{{> …}}`) are not supported")
    if content.startswith("#") or content.startswith("^"):
        words = content[1:].split()
        if not words:
            raise _error(line, "a block tag needs a name")
        name, rest = words[0], words[1:]
        if name in BLOCK_HELPERS:
            if len(rest) != 1:
                raise _error(line, f"`{{{{#{name}}}}}` takes exactly one value")
            return _Tag("open", name, _check_path(rest[0], line), line=line)
        if rest:
            raise _error(line, f"unknown block helper `{name}`")
        # A plain section; `{{^name}}` is its inverse.
        return _Tag("open", "^" if content.startswith("^") else "#", _check_path(name, line), line=line)
    if content.startswith("/"):
        return _Tag("close", content[1:].strip(), line=line)
    words = content.split()
    if len(words) != 1:
        raise _error(line, f"unknown helper `{words[0] if words else ''}`")
    return _Tag("var", _check_path(words[0], line), line=line)


def _tokenize(text: str) -> list:
    """Text strings and _Tags, with `~` and the standalone rule applied to the text around tags."""
    tokens: list = []
    position = 0
    for match in _TAG.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if match["escaped"]:
            tokens.append(text[position:match.start()] + match.group(0)[1:])
            position = match.end()
            continue
        tokens.append(text[position:match.start()])
        if match["triple"] is not None:
            tag = _classify(match["triple"], True, line)
            tag.strip_before, tag.strip_after = bool(match["triple_left"]), bool(match["triple_right"])
        elif match["comment"] is not None:
            tag = _Tag("comment", line=line, strip_before=bool(match["comment_left"]),
                       strip_after=bool(match["comment_right"]))
        else:
            tag = _classify(match["inner"], False, line)
            tag.strip_before, tag.strip_after = bool(match["left"]), bool(match["right"])
        tokens.append(tag)
        position = match.end()
    tokens.append(text[position:])
    _apply_whitespace_control(tokens)
    return tokens


def _apply_whitespace_control(tokens: list) -> None:
    for index, token in enumerate(tokens):
        if not isinstance(token, _Tag):
            continue
        before = index - 1 if index > 0 and isinstance(tokens[index - 1], str) else None
        after = index + 1 if index + 1 < len(tokens) and isinstance(tokens[index + 1], str) else None
        if token.strip_before and before is not None:
            tokens[before] = tokens[before].rstrip()
        if token.strip_after and after is not None:
            tokens[after] = tokens[after].lstrip()
        if token.kind not in ("open", "close", "else", "comment"):
            continue
        # Standalone: only whitespace between the previous line break (or the start) and the
        # tag, and between the tag and the next line break (or the end).
        left = tokens[before] if before is not None else ""
        right = tokens[after] if after is not None else ""
        left_line = left.rsplit("\n", 1)[-1]
        at_start = before is None or index == 1 or "\n" in left
        right_line, newline, _ = right.partition("\n")
        at_end = after is None or after == len(tokens) - 1 or newline
        if at_start and at_end and not left_line.strip() and not right_line.strip():
            if before is not None:
                tokens[before] = left[: len(left) - len(left_line)]
            if after is not None:
                tokens[after] = right[len(right_line) + len(newline):]


@functools.lru_cache(maxsize=512)
def compile_template(source: bytes) -> list:
    """Parse into a tree (cached by content; a catalog repeats its templates)."""
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"is not UTF-8 (invalid byte at offset {exc.start})") from None
    root = _Block(_Tag("open", "root"))
    stack = [root]
    for token in _tokenize(text):
        if isinstance(token, str):
            if token:
                stack[-1].append(token)
        elif token.kind == "open":
            block = _Block(token)
            stack[-1].append(block)
            stack.append(block)
        elif token.kind == "else":
            if len(stack) == 1 or stack[-1].in_inverse:
                raise _error(token.line, "`{{else}}` outside a block")
            stack[-1].in_inverse = True
        elif token.kind == "close":
            if len(stack) == 1:
                raise _error(token.line, f"`{{{{/{token.name}}}}}` closes no block")
            opened = stack[-1].tag
            expected = opened.name if opened.name in BLOCK_HELPERS else opened.argument
            if token.name != expected:
                raise _error(token.line, f"`{{{{/{token.name}}}}}` closes `{{{{#{expected}}}}}` (opened on line {opened.line})")
            stack.pop()
        elif token.kind in ("var", "raw"):
            stack[-1].append(token)
    if len(stack) > 1:
        opened = stack[-1].tag
        name = opened.name if opened.name in BLOCK_HELPERS else opened.argument
        raise _error(opened.line, f"`{{{{#{name}}}}}` is never closed")
    return root.body


# --- rendering ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Frame:
    value: Any
    parent: "_Frame | None" = None
    data: dict = field(default_factory=dict)  # @index, @key, @first, @last


class _Missing(Exception):
    pass


def _lookup(path: str, frame: _Frame, root: Any, strict: bool = False) -> Any:
    if path.startswith("@root"):
        value: Any = root
        parts = [part for part in path[len("@root"):].split(".") if part]
    elif path.startswith("@"):
        return frame.data.get(path[1:])
    else:
        while path.startswith("../"):
            frame = frame.parent or frame
            path = path[3:]
        if path == "..":
            return (frame.parent or frame).value
        path = path[2:] if path.startswith("./") else path
        parts = [part for part in path.replace("/", ".").split(".") if part]
        if parts and parts[0] == "this":
            parts = parts[1:]
        value = frame.value
    for part in parts:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif strict:
            raise _Missing(path)
        else:
            return None
    return value


def _falsy(value: Any) -> bool:
    """Handlebars' falsy values: false, null/undefined, "", 0 and the empty array."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    return value is None or value == "" or value == []


def _text(value: Any) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, dict)):
        return ",".join(_text(item) for item in value) if isinstance(value, list) else "[object Object]"
    return str(value)


def _escape(text: str) -> str:
    """Handlebars escapes & < > " ' ` = in `{{value}}`."""
    return html.escape(text, quote=True).replace("`", "&#x60;").replace("=", "&#x3D;")


def _value(tag: _Tag, path: str, frame: _Frame, root: Any, strict: bool) -> Any:
    try:
        return _lookup(path, frame, root, strict)
    except _Missing:
        raise TemplateError(f"line {tag.line}: `{path}` names nothing in the template context") from None


def _render(nodes: list, frame: _Frame, root: Any, out: list[str], strict: bool) -> None:
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Tag):
            value = _value(node, node.name, frame, root, strict)
            text = "" if value is None else _text(value)
            out.append(text if node.kind == "raw" else _escape(text))
        else:
            _render_block(node, frame, root, out, strict)


def _render_block(block: _Block, frame: _Frame, root: Any, out: list[str], strict: bool) -> None:
    helper, value = block.tag.name, _value(block.tag, block.tag.argument, frame, root, strict)
    if helper == "if":
        _render(block.inverse if _falsy(value) else block.body, frame, root, out, strict)
    elif helper == "unless":
        _render(block.body if _falsy(value) else block.inverse, frame, root, out, strict)
    elif helper == "with":
        if _falsy(value):
            _render(block.inverse, frame, root, out, strict)
        else:
            _render(block.body, _Frame(value, frame), root, out, strict)
    elif helper == "^":
        _render(block.body if _falsy(value) else block.inverse, frame, root, out, strict)
    elif helper == "each" or (helper == "#" and isinstance(value, list)):
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(value, list) else []
        if not items:
            _render(block.inverse, frame, root, out, strict)
        for position, (key, item) in enumerate(items):
            data = {"index": position, "key": key, "first": position == 0, "last": position == len(items) - 1}
            _render(block.body, _Frame(item, frame, data), root, out, strict)
    elif _falsy(value):  # a plain section over a falsy value
        _render(block.inverse, frame, root, out, strict)
    else:
        _render(block.body, _Frame(value, frame) if isinstance(value, dict) else frame, root, out, strict)


def render_template(source: bytes, context: dict[str, Any], *, strict: bool = False) -> str:
    nodes = compile_template(source)
    out: list[str] = []
    try:
        _render(nodes, _Frame(context), context, out, strict)
    except RecursionError:
        raise TemplateError("could not be rendered: nested too deeply") from None
    return "".join(out)
