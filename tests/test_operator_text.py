"""One rule for every text an operator, a harness or staff gives the site (lib.text): submitter
names, run fields and annotations refuse controls, bidirectional and zero-width characters,
format characters, every Default_Ignorable code point, noncharacters and lone surrogates. U+FFFF
in a name used to make both record feeds invalid XML."""

from __future__ import annotations

import pytest

from catalog.runrecords import RUN_RECORD_SCHEMA, RunRecordError, validate_run
from lib.text import _format_characters, refused_character, scan_format_characters
from scoring.recording import ScoringError, check_name

REFUSED = ["\uffff", "\ufffe", "\ufdd0", "\u202e", "\u2066", "\u200b", "\u200f", "\ufeff", "\x85", "\x7f",
           "\ud800", "\x00", "\x1b",
           # invisible: a name holding one looks the same as the name without it
           "\u00ad", "\u034f", "\u180e", "\u115f", "\u3164", "\uffa0", "\ufe0f", "\U000e0041", "\U0001d173", "\u2800",
           # every format character and every Default_Ignorable code point, those once missed among them
           "\u206a", "\u206f", "\u2065", "\U0001bca0", "\U0001bca3", "\ufff0", "\U000e0080", "\U000e0fff",
           "\u0600", "\u06dd", "\u070f", "\u08e2", "\ufffb", "\U000110bd"]


@pytest.mark.parametrize("character", REFUSED, ids=[f"U+{ord(character):04X}" for character in REFUSED])
def test_every_operator_text_refuses_the_same_characters(character):
    assert refused_character(f"ada{character}x") == f"U+{ord(character):04X}"
    with pytest.raises(ScoringError, match=f"U\\+{ord(character):04X} is not allowed"):
        check_name(f"ada{character}x")
    with pytest.raises(RunRecordError, match="/run/model"):
        validate_run({"model": f"m{character}"})
    with pytest.raises(RunRecordError, match="/run/notes"):
        validate_run({"notes": f"line one\nline{character}two"})


def test_the_rule_covers_every_format_character_and_default_ignorable_code_point():
    """Against Python's own Unicode database: no Cf character, and none of Unicode's
    Default_Ignorable ranges, passes."""
    import sys
    import unicodedata

    from lib.text import DEFAULT_IGNORABLE

    formats = [code for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"]
    ignorable = [code for first, last in DEFAULT_IGNORABLE for code in range(first, last + 1)]
    assert len(formats) > 150 and len(ignorable) > 4000
    assert [f"U+{code:04X}" for code in formats + ignorable if refused_character(chr(code)) is None] == []


def test_a_name_with_a_combining_mark_that_has_nothing_to_combine_with_is_refused():
    for name in ("\u0301alice", "ali \u0301ce"):
        with pytest.raises(ScoringError, match="combining mark U\\+0301 has nothing to combine with"):
            check_name(name)
    with pytest.raises(ScoringError, match="U\\+3000 is a space other than U\\+0020"):
        check_name("ali\u3000\u0308ce")
    assert check_name("cafe\u0301") == "cafe\u0301" and check_name("Nguyễn") == "Nguyễn"


def test_plain_text_in_any_script_is_kept():
    for name in ("Ada Lovelace", "名前 チーム", "Ђорђе", "o'brien-2 (v3)", "🦀 crab"):
        assert check_name(f"  {name} ") == name
    assert validate_run({"model": "名前/model@2026", "notes": "two\nlines\tand a tab"})["notes"].startswith("two")


def test_the_published_schema_states_the_same_rule():
    """A harness checking its fields against the published schema refuses what the site refuses."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(RUN_RECORD_SCHEMA["properties"]["run"])
    for character in REFUSED:
        assert not validator.is_valid({"model": f"m{character}"}), f"U+{ord(character):04X}"
    assert validator.is_valid({"model": "名前 🦀"})


@pytest.mark.django_db
def test_an_annotation_follows_the_rule_in_the_admin(admin_client, board):
    from scoring.tests.helpers import admin_change

    entry = board["carol"]
    url = f"/admin/scoring/submission/{entry.pk}/change/"
    page = admin_client.post(url, {"annotation": "reads \u202ethe answers", "_continue": "1",
                                   "annotation_changes-TOTAL_FORMS": "0", "annotation_changes-INITIAL_FORMS": "0",
                                   "results-TOTAL_FORMS": "0", "results-INITIAL_FORMS": "0"})
    assert page.status_code == 200 and "U+202E is not allowed in an annotation" in page.content.decode()
    entry.refresh_from_db()
    assert entry.annotation == ""
    admin_change(admin_client, url, annotation="two lines:\nboth kept")
    entry.refresh_from_db()
    assert entry.annotation == "two lines:\nboth kept"


def test_the_format_characters_written_out_are_what_a_scan_of_unicode_finds():
    """Written out for the Unicode of this Python (a scan costs every process a tenth of a second
    to start): the same code points, one by one."""
    def points(spans):
        return {code for first, last in spans for code in range(first, last + 1)}

    assert points(_format_characters()) == points(scan_format_characters())
