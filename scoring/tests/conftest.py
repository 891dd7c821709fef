from __future__ import annotations

from pathlib import Path

import pytest

from catalog.importer import import_catalog
from catalog.models import CaseVersion
from catalog.tests.conftest import CatalogTree, catalog  # noqa: F401  (the fixture)
from scoring.tests import wat

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


@pytest.fixture
def imported(catalog, db) -> CatalogTree:  # noqa: F811
    outcome = import_catalog(catalog.root)
    assert outcome.ok, [result.reasons for result in outcome.results]
    return catalog


@pytest.fixture
def adder_v1(imported) -> CaseVersion:
    return CaseVersion.objects.get(case__slug="adder", version="v1")


@pytest.fixture
def correct_wasm(imported, tmp_path) -> Path:
    path = tmp_path / "adder.wasm"
    path.write_bytes(wat.lookup(adder_answers(imported)))
    return path


@pytest.fixture(autouse=True)
def _module_cache_in_tmp(settings, tmp_path):
    settings.SCORING_CACHE_DIR = tmp_path / "module-cache"
