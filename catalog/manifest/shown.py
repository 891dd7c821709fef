"""Text of a manifest that the site shows as a line or as a name: the one rule for text that
operators give the site (lib/text.py) holds for authors too, so no case passes for another."""

from __future__ import annotations

import unicodedata
from typing import Callable

from catalog.manifest.fields import Table
from lib.text import mixed_scripts, name_problem, refused_character


def line_problem(value: str) -> str | None:
    """Why `value` may not be shown as one line (a summary, a review item's question), or None: no
    control, format or other invisible character, so it cannot hide or reorder itself."""
    refused = refused_character(value)
    if refused:
        return (f"must be one line of plain text: {refused} is not allowed (controls, format and other invisible "
                "characters, noncharacters)")
    return None


def name_text_problem(value: str) -> str | None:
    """Why `value` may not be shown as a name (a case's, a variant's, a tag, a verdict), or None:
    one line of plain text, written as a name by the rules a submitter's name keeps (UTS #39's
    mark rules, letters of one script), so it cannot pass for another."""
    problem = line_problem(value)
    if problem:
        return problem
    if value != value.strip():
        return "must not begin or end with a space"
    # A letter in another form (fullwidth, mathematical, circled, superscript) reads as the letter.
    for character in value:
        folded = unicodedata.normalize("NFKC", character)
        if folded != character and any(part.isalpha() for part in folded):
            return f"U+{ord(character):04X} is another form of {folded!r}: write the letters themselves"
    problem = name_problem(value)
    if problem:
        return f"could pass for another name: {problem}"
    scripts = mixed_scripts(value)
    if scripts:
        return f"mixes letters of {' and '.join(script.title() for script in scripts)}: a name is written in one script"
    return None


def _read(table: Table, key: str, problem_of: Callable[[str], str | None], **text) -> str | None:
    """`table.text(key, **text)`, or None with an error where `problem_of` finds one."""
    value = table.text(key, **text)
    problem = problem_of(value) if value is not None else None
    if problem:
        table.error(key, problem)
        return None
    return value


def read_line(table: Table, key: str, *, required: bool, non_empty: bool = False,
              max_length: int | None = None) -> str | None:
    """Text shown as one line, by `line_problem`'s rule."""
    return _read(table, key, line_problem, required=required, non_empty=non_empty, max_length=max_length)


def read_name(table: Table, key: str, *, required: bool, max_length: int) -> str | None:
    """A name (a case's, a variant's), by `name_text_problem`'s rules."""
    return _read(table, key, name_text_problem, required=required, non_empty=True, max_length=max_length)
