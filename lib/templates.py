"""Handlebars templates (`.hbs`): the prompt and any templated spec.

pybars3 implements Handlebars in Python. Rendering follows Handlebars semantics, including
HTML-escaping of `{{value}}` (use `{{{value}}}` for raw text).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pybars import Compiler

_compiler = Compiler()
_COMMENT = re.compile(r"\{\{!--.*?--\}\}|\{\{![^}]*\}\}", re.DOTALL)
_BLOCK_TAG = re.compile(r"\{\{~?\s*([#^/])\s*([^\s}~]+)")


class TemplateError(ValueError):
    pass


def _check_blocks(text: str) -> None:
    """Every `{{#name}}` (or `{{^name}}`) is closed by a matching `{{/name}}`.

    Handlebars itself refuses an unclosed block; pybars3 silently drops the rest of the
    template, which would hand a solver half a prompt.
    """
    open_blocks: list[str] = []
    for match in _BLOCK_TAG.finditer(_COMMENT.sub("", text)):
        sigil, name = match.groups()
        if sigil in "#^":
            open_blocks.append(name)
        elif not open_blocks:
            raise TemplateError(f"is not a valid Handlebars template: `{{{{/{name}}}}}` closes no block")
        elif open_blocks[-1] != name:
            raise TemplateError(f"is not a valid Handlebars template: `{{{{/{name}}}}}` closes `{{{{#{open_blocks[-1]}}}}}`")
        else:
            open_blocks.pop()
    if open_blocks:
        raise TemplateError(f"is not a valid Handlebars template: `{{{{#{open_blocks[-1]}}}}}` is never closed")


@functools.lru_cache(maxsize=512)
def compile_template(source: bytes):
    """Compile (cached by content: compiling is the slow part, and a catalog repeats templates)."""
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"is not UTF-8 (invalid byte at offset {exc.start})") from None
    _check_blocks(text)
    try:
        return _compiler.compile(text)
    except RecursionError:
        raise TemplateError("Handlebars template is nested too deeply") from None
    except Exception as exc:  # pybars raises several unrelated types for bad syntax
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise TemplateError(f"is not a valid Handlebars template: {reason}") from None


def render_template(source: bytes, context: dict[str, Any]) -> str:
    template = compile_template(source)
    try:
        return str(template(context))
    except Exception as exc:
        raise TemplateError(f"could not be rendered: {exc}") from None
