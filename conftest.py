"""Fixtures shared by every test package."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.cache import cache, caches

from catalog.tests.conftest import VALID_CATALOG, CatalogTree


@pytest.fixture(autouse=True)
def _page_cache_off_unless_asked(settings):
    """Page caching is off in tests (query counts measure real work); tests/test_page_cache.py
    turns it on. The cache is emptied either way, so no test sees another's pages."""
    settings.PAGE_CACHE_SECONDS = 0
    cache.clear()
    caches["counts"].clear()


@pytest.fixture(autouse=True)
def _standings_looked_at_afresh(monkeypatch):
    """Each test starts as a new process would: it has not yet looked whether the standings are behind."""
    monkeypatch.setattr("scoring.standings.computing._last_check", float("-inf"))


@pytest.fixture(autouse=True)
def _module_cache_in_tmp(settings, tmp_path):
    settings.SCORING_CACHE_DIR = tmp_path / "module-cache"


@pytest.fixture
def catalog(tmp_path) -> CatalogTree:
    """A private copy of the valid test catalog that a test may break."""
    root = tmp_path / "catalog"
    shutil.copytree(VALID_CATALOG, root, symlinks=True)
    return CatalogTree(root)


@pytest.fixture
def imported(catalog, db) -> CatalogTree:
    from catalog.importer import import_catalog

    outcome = import_catalog(catalog.root)
    assert outcome.ok, [result.reasons for result in outcome.results]
    return catalog


@pytest.fixture
def adder_v1(imported):
    from catalog.models import CaseVersion

    return CaseVersion.objects.get(case__slug="adder", version="v1")


@pytest.fixture
def correct_wasm(imported, tmp_path) -> Path:
    """A module that answers every held-out input of adder v1 correctly."""
    from engine.tests import wat
    from scoring.tests.conftest import adder_answers

    path = tmp_path / "adder.wasm"
    path.write_bytes(wat.lookup(adder_answers(imported)))
    return path


@pytest.fixture
def board(adder_v1, imported, tmp_path):
    """alice (fast, twice), bob (slow), carol (wrong) on adder v1."""
    from scoring.service import score, submit
    from engine.tests import wat
    from scoring.tests.conftest import adder_answers

    answers = adder_answers(imported)
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
