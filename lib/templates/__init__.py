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

from lib.templates.parse import compile_template
from lib.templates.render import render_template
from lib.templates.tree import RAW_SCALAR_MESSAGE, TemplateError
from lib.templates.values import js_number

__all__ = ["RAW_SCALAR_MESSAGE", "TemplateError", "compile_template", "js_number", "render_template"]
