"""The one rule for text an operator or a harness gives the site (submitter names, run fields,
staff annotations): what it may not contain, wherever it is shown; and when two names are one.

Refused: C0 and C1 controls and DEL (a line of text may not hold a tab or a newline either;
notes and annotations may); every format character (Unicode category Cf: the bidirectional
marks, overrides and isolates, the zero-width characters, the invisible operators, the byte order
mark, the prepended concatenation marks...); every Default_Ignorable_Code_Point (what a renderer
draws as nothing: the soft hyphen, the combining grapheme joiner, the Hangul fillers, the
Mongolian vowel separators, the variation selectors, the tag characters, the shorthand format
controls, the invisible musical symbols, and the code points Unicode keeps for more of them);
the blank braille pattern; the line and paragraph separators; the noncharacters U+FDD0–U+FDEF,
U+FFFE and U+FFFF (not allowed in XML: one in a name would make every feed that shows it
unreadable), and lone surrogates (not text at all: they cannot be written as UTF-8). Each makes
a name pass for another, or hides part of it.

A name also may not begin with a combining mark, or have one after a space: a mark with nothing
to combine with draws over its neighbour.

Two names are one for ownership when they share a UTS #39 confusable skeleton (ICU's spoof
checker, `name_skeletons`): "alice", "Alice ", "ａｌｉｃｅ", "aIice" and "аlice" with a Cyrillic а.

The refused classes are written into the run record's published JSON Schema (catalog/runrecords.py),
so a harness can check its fields before it sends them.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt), whole.
DEFAULT_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
# Controls past C0 (DEL and C1), the blank braille pattern, the line and paragraph separators.
_MORE_INVISIBLE = ((0x007F, 0x009F), (0x2028, 0x2029), (0x2800, 0x2800))


def _class_ranges(spans) -> str:
    """Code point spans as regex character-class ranges, for Python and for ECMA regex (JSON Schema,
    which reads patterns with Unicode semantics) alike: characters past U+FFFF are written as
    themselves, since the two engines spell their escapes differently."""
    def spelled(code: int) -> str:
        return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)

    merged: list[list[int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return "".join(spelled(first) if first == last else f"{spelled(first)}-{spelled(last)}" for first, last in merged)


# Every format character (category Cf) of Unicode 14.0, as spans: what scanning every code point
# finds (a tenth of a second in each process that starts) on the Unicode of Python 3.11.
_FORMAT_CHARACTERS = {"14.0.0": (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))}


def scan_format_characters() -> list[tuple[int, int]]:
    """Every format character of this Python's Unicode, found one code point at a time."""
    return [(code, code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"]


def _format_characters() -> list[tuple[int, int]]:
    """The spans above for the Unicode they were written for; on any other, the scan."""
    known = _FORMAT_CHARACTERS.get(unicodedata.unidata_version)
    return list(known) if known is not None else scan_format_characters()


SPOOFING = _class_ranges([*DEFAULT_IGNORABLE, *_MORE_INVISIBLE, *_format_characters()])
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


def orphan_mark(value: str) -> str | None:
    """The first combining mark of `value` with nothing to combine with (at the start, or after a
    space), as `U+XXXX`, or None."""
    before = " "
    for character in value:
        if unicodedata.category(character).startswith("M") and (before.isspace() or unicodedata.category(before)[0] == "Z"):
            return f"U+{ord(character):04X}"
        before = character
    return None


def _script(letter: str) -> str:
    """A letter's script, as the first word of its Unicode name (LATIN, CYRILLIC, GREEK, CJK...)."""
    name = unicodedata.name(letter, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def mixed_scripts(value: str) -> list[str]:
    """The scripts of `value`'s letters (compatibility forms folded first: fullwidth Latin is
    Latin) when they are a mix no language writes (Latin with Cyrillic, Greek with Latin...),
    else []. A name that mixes them is one way to look like another name."""
    scripts = {_script(ch) for ch in unicodedata.normalize("NFKC", value)
               if ch.isalpha() and unicodedata.category(ch) != "Lm"}  # modifier letters go with any script
    if len(scripts) <= 1 or any(scripts <= together for together in _SCRIPTS_WRITTEN_TOGETHER):
        return []
    return sorted(scripts)


def name_key(value: str) -> str:
    """What two names that look alike share: compatibility forms folded (fullwidth letters, other
    spaces), case folded, composed, and runs of spaces made one. Names are unique by this key."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return " ".join(folded.split())


@functools.lru_cache(maxsize=1)
def _spoof_checker():
    import icu  # PyICU (the pyicu-wheels build): ICU's own implementation of UTS #39

    return icu.SpoofChecker()


def name_skeletons(value: str) -> set[str]:
    """How a name looks, for ownership: two names that share one can be taken for each other.

    The UTS #39 confusable skeleton (ICU's spoof checker) of the name's key (`name_key`: "ALICE"
    and "аlice" with a Cyrillic а give "alice"), and the skeleton of the name as it is shown,
    case folded afterwards ("aIice" with a capital I is shown like "alice", but its key is
    "aiice"). A name's case is kept on the pages, so both are needed."""
    checker = _spoof_checker()
    shown = unicodedata.normalize("NFKC", value)
    return {checker.getSkeleton(0, name_key(value)), name_key(checker.getSkeleton(0, shown))}


def storable(text: str) -> str:
    """Text the database can hold: a submission's own words (a function name in a trap, an
    import name, its build output) may carry NUL characters, which PostgreSQL refuses."""
    return text.replace("\0", "\\0") if "\0" in text else text
