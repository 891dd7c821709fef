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


# Letters of these scripts are written together (Japanese mixes Han, kana and Latin; Korean
# mixes Hangul, Han and Latin); any other mix of scripts in one name is refused.
_SCRIPTS_WRITTEN_TOGETHER = ({"LATIN", "CJK", "IDEOGRAPHIC", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"},
                             {"LATIN", "HANGUL", "CJK", "IDEOGRAPHIC"})


def _script(letter: str) -> str:
    """A letter's script, as the first word of its Unicode name (LATIN, CYRILLIC, GREEK, CJK...)."""
    import unicodedata

    name = unicodedata.name(letter, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def mixed_scripts(value: str) -> list[str]:
    """The scripts of `value`'s letters (compatibility forms folded first: fullwidth Latin is
    Latin) when they are a mix no language writes (Latin with Cyrillic, Greek with Latin...),
    else []. A name that mixes them is one way to look like another name."""
    import unicodedata

    scripts = {_script(ch) for ch in unicodedata.normalize("NFKC", value)
               if ch.isalpha() and unicodedata.category(ch) != "Lm"}  # modifier letters go with any script
    if len(scripts) <= 1 or any(scripts <= together for together in _SCRIPTS_WRITTEN_TOGETHER):
        return []
    return sorted(scripts)


def name_key(value: str) -> str:
    """What two names that look alike share: compatibility forms folded (fullwidth letters, other
    spaces), case folded, composed, and runs of spaces made one. Names are unique by this key."""
    import unicodedata

    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return " ".join(folded.split())
