"""Fixtures shared by every test package."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from django.core.cache import cache, caches

from catalog.tests.trees import VALID_CATALOG, CatalogTree
from tests import helpers, served
from tests.browsing import SCREENSHOTS
from tests.runfolder import RUN_VARIABLE
from tests.written_rows import WrittenRows, done_once, entries_once

# The test modules pytest rewrites (for its assertions) are kept as bytecode beside them, even
# where the environment tells Python to write none: otherwise every test process rewrites every
# test module at each start, four seconds of each process's time. Commands the tests start keep
# the environment's choice.
sys.dont_write_bytecode = False


def pytest_collection_modifyitems(config, items):
    """The tests that take a quarter of a minute or more (marked `long`: a whole served stack, a
    series of killed commands, an outside checker on every page) go first, so the other test
    processes' shorter tests run beside them rather than after them."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(autouse=True)
def _quick_password_hashes(settings):
    """Staff accounts in tests are made and signed in by the hundred: a deliberately slow hash
    (PBKDF2's million rounds) protects nothing here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _page_cache_off_unless_asked(settings):
    """Page caching is off in tests (query counts measure real work); tests/test_page_cache.py
    turns it on. The cache is emptied either way, so no test sees another's pages."""
    settings.PAGE_CACHE_SECONDS = 0
    cache.clear()
    caches["counts"].clear()


@pytest.fixture(autouse=True)
def _held_out_zips_of_this_test(settings, tmp_path):
    """Each test's database is its own: a retired version's zip made in one test (from its own
    rows) is never served in another that retired a version of the same name."""
    settings.HELD_OUT_DIR = tmp_path / "held-out"


@pytest.fixture(autouse=True)
def _site_engine_is_this_processs(monkeypatch):
    """The site counts with the engine of the test process (its migrations recorded it), read
    from the database only after a switch made here: no page's query count depends on whether
    another test in this process read it first."""
    from scoring.epochs import engines

    monkeypatch.setattr(engines, "_site_engine", {"engine": engines.THIS_ENGINE, "until": float("inf")})


@pytest.fixture(autouse=True)
def _standings_looked_at_afresh(monkeypatch):
    """Each test starts as a new process would: it has not yet looked whether the standings (or the
    agents matrix) are behind."""
    monkeypatch.setattr("scoring.snapshots._last_check", {})


def _run_folder(tmp_path_factory) -> Path:
    """The folder every test process of this run shares (each worker's base folder is in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(autouse=True, scope="session")
def _each_source_built_once(tmp_path_factory):
    """A bundled example or fixture crate built by one test is not built again by the next, in
    this test process, the other, or a command a test starts (tests/buildcache.py)."""
    from scoring import building
    from tests.buildcache import FOLDER_VARIABLE, keeping, kept_builds_folder

    folder = kept_builds_folder()  # kept for the next run too, for this compiler and build code
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(building, "build_source", keeping(folder, building.build_source))
        patch.setenv(FOLDER_VARIABLE, str(folder))
        yield


@pytest.fixture(scope="session")
def _shared_module_cache() -> Path:
    """Compiled modules kept for the whole run and the runs after it (tests/buildcache.py): a
    module is compiled (in a child process) once, not once per test, in this test process, the
    others, or a site a test serves (tests/served.py). Each compile is keyed by the module's
    digest, the engine's version and its configuration, so no test can see another's module under
    its own, nor a run one that another engine compiled."""
    from tests.buildcache import kept_modules_folder

    return kept_modules_folder()


@pytest.fixture(autouse=True)
def _module_cache_for_the_run(settings, _shared_module_cache):
    settings.SCORING_CACHE_DIR = _shared_module_cache


@pytest.fixture(scope="session")
def bundled_scan():
    """The bundled catalog (the cases this run proves: tests/bundled.py) validated as
    import_catalog() validates it into an empty database (nothing unchanged, nothing held out
    elsewhere), once per test run (tests/bundled.py): a few seconds of validation, then a tenth
    of a second to import into each test's database."""
    from catalog.importer import file_limits
    from tests import bundled as scope

    return scope.catalog_scan(limits=file_limits())


@pytest.fixture
def bundled(db, settings, bundled_scan):
    """The bundled catalog imported, experimental cases shown."""
    from catalog.importer import import_scan
    from catalog.models import CaseVersion

    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert not CaseVersion.objects.exists()  # the scan was made for an empty database
    assert import_scan(bundled_scan).ok
    return CaseVersion.objects


@pytest.fixture
def catalog(tmp_path) -> CatalogTree:
    """A private copy of the valid test catalog that a test may break (copied once the test looks at it)."""
    return CatalogTree(tmp_path / "catalog", copy_of=VALID_CATALOG)


@pytest.fixture(scope="session")
def _valid_catalog_scan():
    """The valid test catalog validated as import_catalog() validates it into an empty database,
    once per test process, with the caps it was validated under (the test catalog's own copy is
    byte for byte the same)."""
    from catalog.importer import file_limits
    from catalog.manifest import scan_catalog

    limits = file_limits()
    return limits, scan_catalog(VALID_CATALOG, is_unchanged=lambda label, digest: False, limits=limits,
                                held_out_elsewhere={})


@pytest.fixture
def imported(catalog, db, _valid_catalog_scan) -> CatalogTree:
    """The test's copy of the valid catalog, imported (validated once per test process: a
    database that already holds versions, or other caps, are validated afresh). Imported for
    real once per test process; later tests get the rows it wrote (tests/written_rows.py)."""
    from catalog.importer import file_limits, import_catalog, import_scan
    from catalog.models import CaseVersion

    limits, scan = _valid_catalog_scan
    if CaseVersion.objects.exists() or file_limits() != limits:
        outcome = import_catalog(catalog.root)
    else:
        outcome = done_once("imported", lambda: import_scan(scan), rows=WrittenRows,
                            keep=lambda outcome: outcome if outcome.ok else None)
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
    from scoring.tests.helpers import adder_answers

    path = tmp_path / "adder.wasm"
    path.write_bytes(wat.lookup(adder_answers(imported)))
    return path


@pytest.fixture
def board(adder_v1, imported, tmp_path):
    """alice (fast, twice), bob (slow), carol (wrong) on adder v1: scored for real once per test
    process, then written again (tests/written_rows.py)."""
    from scoring.tests.helpers import standard_board

    return entries_once("board", lambda: standard_board(adder_v1, imported, tmp_path))


# --- the served bundled catalog (tests/served.py): the browser, API-contract and submission tests ---


@pytest.fixture(scope="session")
def site_template(tmp_path_factory):
    """The bundled catalog imported and its examples scored, once per run, whichever test
    process asks first (tests/served.py `shared_template`); dropped when the run ends."""
    return served.shared_template(_run_folder(tmp_path_factory))


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """The run's folder, named for every process of the run (its test processes inherit it)."""
    if not hasattr(config, "workerinput") and hasattr(config, "_tmp_path_factory"):
        os.environ[RUN_VARIABLE] = str(config._tmp_path_factory.getbasetemp())


def pytest_sessionfinish(session):
    """The run is over (in the process that ran it, or that ran its test processes): drop the
    served site's template database and the commands' migrated one."""
    if not hasattr(session.config, "workerinput"):
        run = session.config._tmp_path_factory.getbasetemp()
        served.drop_shared_template(run)
        helpers.drop_migrated_template(run)


@pytest.fixture(scope="session")
def shared_site(site_template):
    site = served.serve(site_template)
    yield site
    site.stop()


@pytest.fixture
def site(shared_site) -> str:
    """The URL of the served bundled catalog, shared by the tests that only read it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return shared_site.url


@pytest.fixture
def own_site(site_template):
    """A served bundled catalog of this test's own, for a test that changes what it shows."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    site = served.serve(site_template)
    yield site
    site.stop()


