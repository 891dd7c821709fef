"""The one rule for text an operator or a harness gives the site (submitter names, run fields,
staff annotations): what it may not contain, wherever it is shown.

Refused: C0 and C1 controls and DEL (a line of text may not hold a tab or a newline either;
notes and annotations may), the bidirectional marks, overrides and isolates, the zero-width and
the other invisible characters (the soft hyphen, the combining grapheme joiner, the Hangul
fillers, the Mongolian vowel separator, the variation selectors, the tag characters, the
invisible musical symbols and the blank braille pattern: each makes a name pass for another,
or hides part of it), the line and paragraph separators, the byte order mark, the noncharacters U+FDD0–U+FDEF, U+FFFE and U+FFFF (not allowed
in XML: one in a name would make every feed that shows it unreadable), and lone surrogates (not
text at all: they cannot be written as UTF-8).

The same classes are written into the run record's published JSON Schema (catalog/runrecords.py),
so a harness can check its fields before it sends them.
"""

from __future__ import annotations

import re

# As regex character-class ranges, for Python and for ECMA regex (JSON Schema, which reads
# patterns with Unicode semantics) alike. Characters past U+FFFF are written as themselves: the
# two engines spell their escapes differently.
SPOOFING = (r"\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
            r"\u2060-\u2069\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
            "\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef")
NOT_TEXT = r"\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
LINE_REFUSED = rf"\u0000-\u001f{SPOOFING}{NOT_TEXT}"  # one line: no control character at all
TEXT_REFUSED = rf"\u0000-\u0008\u000b-\u001f{SPOOFING}{NOT_TEXT}"  # lines: tabs and newlines allowed

_LINE_BAD = re.compile(f"[{LINE_REFUSED}]")
_TEXT_BAD = re.compile(f"[{TEXT_REFUSED}]")


def refused_character(value: str, *, lines: bool = False) -> str | None:
    """The first character of `value` the rule refuses, as `U+XXXX`, or None if there is none."""
    found = (_TEXT_BAD if lines else _LINE_BAD).search(value)
    return f"U+{ord(found.group()):04X}" if found else None
