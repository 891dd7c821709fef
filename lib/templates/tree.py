"""The parts of a template: constants, the error, the tree of content, mustaches and blocks."""

from __future__ import annotations

from dataclasses import dataclass, field

BLOCK_HELPERS = ("if", "unless", "each", "with")
# Names Handlebars resolves to its own helpers: as a plain `{{name}}` they would run the helper.
BUILTIN_HELPERS = ("if", "unless", "each", "with", "log", "lookup", "helperMissing", "blockHelperMissing")
DATA_NAMES = ("index", "key", "first", "last", "root")

# JavaScript's \s, for the regular expressions Handlebars' whitespace handling uses.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_S = f"[{JS_SPACE}]"
JS_SPACE_CHARS = ("\t\n\v\f\r \u00a0\u1680" + "".join(chr(code) for code in range(0x2000, 0x200B))
                  + "\u2028\u2029\u202f\u205f\u3000\ufeff")


class TemplateError(ValueError):
    pass


RAW_SCALAR_MESSAGE = ("could not be rendered faithfully: line {line}: `{{{{{{{path}}}}}}}` is a number or a boolean, "
                      "which Handlebars may add to its neighbour instead of writing; use `{{{{{path}}}}}`")


def syntax_error(line: int, message: str) -> TemplateError:
    return TemplateError(f"is not a valid Handlebars template: line {line}: {message}")


# --- the tree -----------------------------------------------------------------------------------


@dataclass
class Content:
    original: str
    value: str
    right_stripped: bool = False
    left_stripped: bool = False


@dataclass(frozen=True)
class PathNode:
    original: str
    data: bool  # @name
    depth: int  # how many `../`
    parts: tuple[str, ...]  # after `this`, `.` and the data name's own first part are taken out
    this: bool = False  # starts with this, `.` or `./`


@dataclass
class Mustache:
    path: PathNode
    escaped: bool
    line: int
    strip: dict = field(default_factory=dict)


@dataclass
class Comment:
    strip: dict


@dataclass
class Program:
    body: list


@dataclass
class Block:
    helper: str  # if, unless, each, with, or "" for a section (blockHelperMissing)
    path: PathNode
    program: Program | None
    inverse: Program | None
    line: int
    open_strip: dict
    close_strip: dict
    inverse_strip: dict | None = None
    name: str = ""  # as written, for matching the closing tag
    inverted: bool = False  # {{^…}}
    first: Program | None = None  # while parsing: the part before {{else}}


