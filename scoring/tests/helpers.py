"""Helpers of the results app's tests: the test catalog's correct answers, and the admin's change
form saved as a browser saves it."""

from __future__ import annotations

from catalog.tests.trees import CatalogTree

ADDER = "performance/easy/adder/v1"


def adder_answers(tree: CatalogTree) -> dict[int, bytes]:
    """Input length → the correct answer, for every held-out input of adder v1."""
    answers = {}
    for input_rel, expected_rel in (("smoke/one.json", "smoke/one.out"), ("cases/small.json", "cases/small.out"),
                                    ("cases/large.json", "cases/large.out")):
        length = len(tree.path(input_rel, ADDER).read_bytes())
        assert length not in answers, "the lookup module needs inputs of distinct lengths"
        answers[length] = tree.path(expected_rel, ADDER).read_bytes().strip()
    return answers


def admin_change(admin_client, url: str, **fields) -> None:
    """Save the admin's change form as a browser would: its hidden fields (the inlines' management
    forms) as they are, with these fields."""
    import re

    page = admin_client.get(url).content.decode()
    data = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    data.pop("csrfmiddlewaretoken", None)
    response = admin_client.post(url, {**data, **fields, "_continue": "1"})
    assert response.status_code == 302, response.content.decode()[-3000:]
