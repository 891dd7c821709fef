"""What a retired version may publish: nothing another version holds out — the same file, the same
JSON document, or one inside the other (catalog/published.py `shares_content`)."""

from __future__ import annotations

from catalog.published import shares_content

BIG = b'{"numbers": [' + b", ".join(str(number).encode() for number in range(200)) + b"]}\n"


def test_the_same_bytes_or_the_same_document_is_shared():
    assert shares_content([BIG], [b"x" * 40, BIG])
    reformatted = BIG.replace(b", ", b",").replace(b"{", b"{ ")
    assert reformatted != BIG and shares_content([BIG], [reformatted])


def test_a_file_inside_another_is_shared_either_way():
    wrapped = b'{"k": 3, "items": ' + BIG.strip() + b"}"
    assert shares_content([BIG], [wrapped])
    assert shares_content([wrapped], [BIG])


def test_short_or_unrelated_files_are_not():
    assert not shares_content([b"[]\n", b'{"sum": 7}\n'], [BIG])  # too short to count as inside another
    assert not shares_content([BIG], [BIG.replace(b"199", b"200")])  # nearly the same: not caught
    assert not shares_content([], [BIG]) and not shares_content([BIG], [])
