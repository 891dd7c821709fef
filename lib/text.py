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
unreadable), lone surrogates (not text at all: they cannot be written as UTF-8), and U+FFFD, the
replacement character, which is what bytes that were not UTF-8 become. Each makes a name pass
for another, or hides part of it.

A name follows the mark rules of UTS #39 (section 5.4) besides (`name_problem`), read after
composition (NFC), so "José" typed as e and U+0301 is the name "José":
- a combining mark must have a letter to combine with (not at the start, not after a space);
- a mark left after composition must be its letter's script's: a script's own mark on a letter
  of that script (Devanagari's vowel signs), or a shared mark (script Inherited) on a letter of a
  script that writes it as a mark (Arabic's vowel marks on Arabic). Latin, Greek and Cyrillic
  write their accented letters as letters of their own, so a mark left on one of them (an accent
  no language puts there, a stroke or a circle drawn over it, a Hebrew point) is refused;
- no mark hidden by its letter (ICU's hidden-overlay check: i and a dot above looks like i);
- no mark twice in a row, and no more than four in a row;
- every letter, mark and digit is in UTS #39's recommended set (Identifier_Status Allowed: no
  obsolete, technical or uncommon letter such as U+A781, which passes for an l);
- no space but U+0020 (a no-break or an ideographic space looks like one and is not).

Two names are one for ownership when they share a UTS #39 confusable skeleton (ICU's spoof
checker, `name_skeletons`): "alice", "Alice ", "ａｌｉｃｅ", "aIice" and "аlice" with a Cyrillic а;
and when they are one without their shared accents: "alicé", "alịce" and "alice".

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
NOT_TEXT = r"\ud800-\udfff\ufdd0-\ufdef\ufffd\ufffe\uffff"
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


# Scripts whose accented letters are letters of their own (composed by NFC): a mark left on one
# of their letters after composition is one no language of theirs writes.
_COMPOSING_SCRIPTS = {"Latn", "Grek", "Cyrl"}
HIDDEN_OVERLAY = 256  # ICU's USPOOF_HIDDEN_OVERLAY (PyICU names no constant for it)
MOST_MARKS_IN_A_ROW = 4


def _codes(characters: str) -> str:
    return " ".join(f"U+{ord(character):04X}" for character in characters)


def _scripts(character: str) -> set[str]:
    """The scripts a character is written in (its Script_Extensions), shared ones left out."""
    import icu

    return {icu.Script(code).getShortName() for code in icu.Script.getScriptExtensions(character)} - {"Zinh", "Zyyy"}


def _mark_problem(mark: str, base: str) -> str | None:
    """Why the combining mark `mark`, left after composition on the character `base`, is refused."""
    if base == " " or unicodedata.category(base)[0] == "Z":
        return f"the combining mark {_codes(mark)} has nothing to combine with (at the start, or after a space)"
    import icu

    script = icu.Script.getScript(base).getShortName()
    if unicodedata.category(base)[0] != "L" or script in _COMPOSING_SCRIPTS or script not in _scripts(mark):
        return (f"{_codes(mark)} does not belong on {_codes(base)} (a mark left after composition must be its "
                "letter's script's)")
    return None


def name_problem(value: str) -> str | None:
    """Why `value` breaks the mark, letter and space rules for names (see above), or None."""
    composed = unicodedata.normalize("NFC", value)
    # Letters in their compatibility forms (fullwidth, superscript) are the same letters (`name_key`).
    uncommon = next((character for character in unicodedata.normalize("NFKC", composed)
                     if unicodedata.category(character)[0] in "LMN" and not _recommended().contains(character)), None)
    if uncommon is not None:
        return f"{_codes(uncommon)} is not a letter, mark or digit in common use (UTS #39)"
    base, run = " ", ""
    for character in composed:
        category = unicodedata.category(character)
        if category[0] == "Z" and character != " ":
            return f"{_codes(character)} is a space other than U+0020"
        if category[0] != "M":
            base, run = character, ""
            continue
        if character in run:
            return f"{_codes(character)} is written twice on one letter"
        run += character
        if len(run) > MOST_MARKS_IN_A_ROW:
            return f"{_codes(run)}: more than {MOST_MARKS_IN_A_ROW} marks on one letter"
        problem = _mark_problem(character, base)
        if problem:
            return problem
    if _hidden_overlay_checker().check(unicodedata.normalize("NFD", composed)) & HIDDEN_OVERLAY:
        return "a mark is hidden by its letter (as a dot above on an i)"
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


@functools.lru_cache(maxsize=1)
def _hidden_overlay_checker():
    import icu

    checker = icu.SpoofChecker()
    checker.setChecks(HIDDEN_OVERLAY)
    return checker


@functools.lru_cache(maxsize=1)
def _recommended():
    """UTS #39's recommended set (Identifier_Status Allowed), as ICU has it."""
    import icu

    return icu.SpoofChecker.getRecommendedUnicodeSet()


def without_shared_accents(value: str) -> str:
    """`value` with the marks of script Inherited taken off its letters ("alicé" → "alice", "ȧce" →
    "ace"); a script's own marks (Devanagari's vowel signs) stay: without them it is another word."""
    import icu

    return unicodedata.normalize("NFC", "".join(
        character for character in unicodedata.normalize("NFD", value)
        if not (unicodedata.category(character) in ("Mn",
                                                    "Me") and icu.Script.getScript(character).getShortName() ==
                                                    "Zinh")))


def name_skeletons(value: str) -> set[str]:
    """How a name looks, for ownership: two names that share one can be taken for each other.

    The UTS #39 confusable skeleton (ICU's spoof checker) of the name's key (`name_key`: "ALICE"
    and "аlice" with a Cyrillic а give "alice"), the skeleton of the name as it is shown, case
    folded afterwards ("aIice" with a capital I is shown like "alice", but its key is "aiice"):
    a name's case is kept on the pages, so both are needed; and the skeleton of its key without
    its shared accents ("alicé" and "alịce" look like "alice" at a glance)."""
    checker = _spoof_checker()
    shown = unicodedata.normalize("NFKC", value)
    return {checker.getSkeleton(0, name_key(value)), name_key(checker.getSkeleton(0, shown)),
            checker.getSkeleton(0, name_key(without_shared_accents(value)))}


def storable(text: str) -> str:
    """Text the database can hold: a submission's own words (a function name in a trap, an
    import name, its build output) may carry NUL characters, which PostgreSQL refuses."""
    return text.replace("\0", "\\0") if "\0" in text else text
