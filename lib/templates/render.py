"""Rendering a tree with a JSON context, as Handlebars.js' runtime and helpers do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lib.templates.parse import compile_template
from lib.templates.tree import RAW_SCALAR_MESSAGE, Block, Comment, Content, Mustache, PathNode, Program, TemplateError
from lib.templates.values import (
    UNDEFINED,
    escape,
    is_empty,
    is_number,
    js_keys,
    js_property,
    loosely_equal,
    to_string,
    truthy,
)

# --- rendering ----------------------------------------------------------------------------------


# What a block helper is called with when the context is null: Handlebars' `container.nullContext`,
# an empty object ("[object Object]" as text). It does not count as a new depth (`../`).
NULL_CONTEXT: dict = {}


@dataclass
class _State:
    root: Any
    missing: list | None


def _lookup(path: PathNode, this: Any, depths: list, data: dict, state: _State, line: int) -> Any:
    if path.data:
        value = data.get(path.parts[0], UNDEFINED) if path.parts[0] != "root" else state.root
        for part in path.parts[1:]:  # Handlebars chains data lookups with `&&`: a falsy value stays
            if truthy(value):
                value = js_property(value, part)
        return value
    # `this` is the program's own context (depth0); `../` reads the depths, which a context
    # equal to its parent's, or the null context, does not add to.
    if path.depth == 0:
        value = this
    else:
        value = depths[path.depth] if path.depth < len(depths) else UNDEFINED
    for part in path.parts:
        if value is None or value is UNDEFINED:
            break
        value = js_property(value, part)
    if value is UNDEFINED and state.missing is not None and path.parts:
        state.missing.append((path.original, line))
    return value


def _run(program: Program | None, context: Any, depths: list, data: dict, state: _State, out: list[str]) -> None:
    if program is None:
        return
    if not depths:
        depths = [context]
    elif not loosely_equal(context, depths[0]) and not (context is NULL_CONTEXT and depths[0] is None):
        depths = [context, *depths]
    for node in program.body:
        if isinstance(node, Content):
            out.append(node.value)
        elif isinstance(node, Comment):
            continue
        elif isinstance(node, Mustache):
            value = _lookup(node.path, context, depths, data, state, node.line)
            if node.escaped:
                out.append(escape(value))
            elif value is None or value is UNDEFINED:
                continue
            elif isinstance(value, bool) or is_number(value):
                # Handlebars.js joins its output with `+`: an unescaped number or boolean beside
                # another adds up (`{{{a}}}{{{a}}}` with a false is "0"), depending on how its
                # compiler grouped the code. Not reproduced: refused.
                raise TemplateError(RAW_SCALAR_MESSAGE.format(line=node.line, path=node.path.original))
            else:
                out.append(to_string(value))
        else:
            _block(node, context, depths, data, state, out)


def _each(block: Block, context: Any, value: Any, depths: list, data: dict, state: _State, out: list[str],
          program: Program | None) -> None:
    if isinstance(value, list):
        items = [(index, index, item) for index, item in enumerate(value)]
    elif isinstance(value, dict):
        items = [(key, index, value[key]) for index, key in enumerate(js_keys(value))]
    else:
        items = []
    if not items:
        _run(block.inverse, context, depths, data, state, out)
        return
    for key, index, item in items:
        frame = {**data, "key": key, "index": index, "first": index == 0, "last": index == len(items) - 1}
        _run(program, item, depths, frame, state, out)


def _block(block: Block, this: Any, depths: list, data: dict, state: _State, out: list[str]) -> None:
    value = _lookup(block.path, this, depths, data, state, block.line)
    # Handlebars calls a helper (if, unless, with, each) with `depth0 != null ? depth0 :
    # container.nullContext`; a section's blockHelperMissing is called with depth0 itself.
    context = NULL_CONTEXT if block.helper and (this is None or this is UNDEFINED) else this
    helper = block.helper
    if helper == "if":
        chosen = block.inverse if not truthy(value) or is_empty(value) else block.program
        _run(chosen, context, depths, data, state, out)
    elif helper == "unless":
        chosen = block.program if not truthy(value) or is_empty(value) else block.inverse
        _run(chosen, context, depths, data, state, out)
    elif helper == "with":
        if is_empty(value):
            _run(block.inverse, context, depths, data, state, out)
        else:
            _run(block.program, value, depths, data, state, out)
    elif helper == "each":
        _each(block, context, value, depths, data, state, out, block.program)
    else:  # a section or an inverted section: Handlebars' blockHelperMissing
        if value is True:
            _run(block.program, context, depths, data, state, out)
        elif value is False or value is None or value is UNDEFINED:
            _run(block.inverse, context, depths, data, state, out)
        elif isinstance(value, list):
            if value:
                _each(block, context, value, depths, data, state, out, block.program)
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

