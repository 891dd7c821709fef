"""Handlebars' WhitespaceControl (compiler/whitespace-control.js), ported line for line."""

from __future__ import annotations

import re

from lib.templates.tree import JS_S, Block, Comment, Content, Mustache, Program

# (JavaScript's `$` is the end of the text; Python's `$` also matches before a final newline.)
_PREV_WHITESPACE = re.compile(rf"\r?\n{JS_S}*?\Z")
_PREV_WHITESPACE_ROOT = re.compile(rf"(^|\r?\n){JS_S}*?\Z")
_NEXT_WHITESPACE = re.compile(rf"^{JS_S}*?\r?\n")
_NEXT_WHITESPACE_ROOT = re.compile(rf"^{JS_S}*?(\r?\n|\Z)")
_STRIP_RIGHT_ALL = re.compile(rf"^{JS_S}+")
_STRIP_RIGHT_LINE = re.compile(r"^[ \t]*\r?\n?")
_STRIP_LEFT_ALL = re.compile(rf"{JS_S}+\Z")
_STRIP_LEFT_LINE = re.compile(r"[ \t]+\Z")


# --- Handlebars' WhitespaceControl (compiler/whitespace-control.js), ported ---------------------


def _is_prev_whitespace(body: list, i: int | None = None, is_root: bool = False):
    if i is None:
        i = len(body)
    prev = body[i - 1] if i - 1 >= 0 else None
    sibling = body[i - 2] if i - 2 >= 0 else None
    if prev is None:
        return is_root
    if isinstance(prev, Content):
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
    if isinstance(next_, Content):
        pattern = _NEXT_WHITESPACE if (sibling is not None or not is_root) else _NEXT_WHITESPACE_ROOT
        return bool(pattern.search(next_.original))
    return None


def _omit_right(body: list, i: int | None = None, multiple: bool = False) -> None:
    index = 0 if i is None else i + 1
    current = body[index] if 0 <= index < len(body) else None
    if not isinstance(current, Content) or (not multiple and current.right_stripped):
        return
    original = current.value
    current.value = (_STRIP_RIGHT_ALL if multiple else _STRIP_RIGHT_LINE).sub("", current.value, count=1)
    current.right_stripped = current.value != original


def _omit_left(body: list, i: int | None = None, multiple: bool = False):
    index = len(body) - 1 if i is None else i - 1
    current = body[index] if 0 <= index < len(body) else None
    if not isinstance(current, Content) or (not multiple and current.left_stripped):
        return None
    original = current.value
    current.value = (_STRIP_LEFT_ALL if multiple else _STRIP_LEFT_LINE).sub("", current.value, count=1)
    current.left_stripped = current.value != original
    return current.left_stripped


class WhitespaceControl:
    def __init__(self):
        self.root_seen = False

    def accept(self, node):
        if isinstance(node, Program):
            return self.program(node)
        if isinstance(node, Block):
            return self.block(node)
        if isinstance(node, Mustache):
            return node.strip
        if isinstance(node, Comment):
            return {"inlineStandalone": True, "open": node.strip.get("open"), "close": node.strip.get("close")}
        return None

    def program(self, program: Program):
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

    def block(self, block: Block):
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


