"""Helpers of the results app's tests: the test catalog's correct answers, the admin's change
form saved as a browser saves it, and the standard scored board."""

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


def standard_board(adder_v1, tree, tmp_path) -> dict:
    """alice (fast, twice), bob (slow), carol (wrong) on adder v1, scored (conftest.py `board`)."""
    from engine.tests import wat
    from scoring.attempts import score
    from scoring.recording import submit

    answers = adder_answers(tree)
    paths = {}
    for name, iterations, wrong in (("fast", 0, False), ("slow", 2_000, False), ("wrong", 0, True)):
        answers_for = dict(answers)
        if wrong:
            answers_for[max(answers_for)] = b'{"sum": 1}'
        path = tmp_path / f"{name}.wasm"
        path.write_bytes(wat.lookup(answers_for, iterations=iterations))
        paths[name] = path
    variant = adder_v1.default_variant()
    made = {
        "alice-1": score(submit(adder_v1, variant, "alice", wasm_file=paths["slow"])),
        "alice-2": score(submit(adder_v1, variant, "alice", wasm_file=paths["fast"])),
        "bob": score(submit(adder_v1, adder_v1.variants.get(slug="long-lists"), "bob", wasm_file=paths["slow"])),
        "carol": score(submit(adder_v1, variant, "carol", wasm_file=paths["wrong"])),
    }
    return made
