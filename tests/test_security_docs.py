"""The manual's security page (docs/security.md) states the counts the tests really use."""

from __future__ import annotations

from pathlib import Path

from catalog.manifest import FORBIDDEN_TABLES
from catalog.tests.test_admin import HOSTILE as HOSTILE_ARCHIVES
from catalog.tests.test_admin import UNSTORABLE_ARCHIVES
from catalog.tests import test_manifest_fuzz
from catalog.tests.test_manifest_fuzz import FUZZ_SETTINGS
from catalog.tests.test_manifest_rules import RULES, VARIANT_RULES
from catalog.tests.test_pages import XSS_PAYLOADS
from engine.tests.test_builds import HOSTILE_BUILDS
from engine.tests.test_sandbox import HOSTILE_MODULES, INVALID_MODULES
from tests.test_crash_safety import IMPORT_KILLS, SCORE_KILLS
from tests.test_hostile_requests import NASTY_URLS, RANDOM_REQUESTS
from tests.test_page_cache import CACHE_BYPASS_URLS

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "security.md").read_text()


def property_tests(module) -> int:
    """The Hypothesis tests of a module (each runs FUZZ_SETTINGS.max_examples examples)."""
    return sum(1 for name, test in vars(module).items() if name.startswith("test_") and hasattr(test, "hypothesis"))


def row(label_start: str) -> list[str]:
    for line in PAGE.splitlines():
        if line.startswith(f"| {label_start}"):
            return [cell.strip() for cell in line.strip("|").split("|")]
    raise AssertionError(f"no row of docs/security.md starts with {label_start!r}")


def test_the_security_table_counts_match_the_tests():
    expected = {
        "broken manifests": len(RULES) + len(VARIANT_RULES) + len(FORBIDDEN_TABLES),
        "fuzzed manifests": FUZZ_SETTINGS.max_examples * property_tests(test_manifest_fuzz),
        "hostile archives": len(HOSTILE_ARCHIVES),
        "archives with names the database cannot store": len(UNSTORABLE_ARCHIVES),
        "hostile builds": len(HOSTILE_BUILDS),
        "modules breaking the ABI": len(INVALID_MODULES),
        "hostile modules at run time": len(HOSTILE_MODULES),
        "script, event-handler": len(XSS_PAYLOADS),
        "random and malformed URLs": RANDOM_REQUESTS + len(NASTY_URLS),
        "query strings made to miss the page cache": len(CACHE_BYPASS_URLS),
        "SIGKILL of": IMPORT_KILLS + SCORE_KILLS + 1,
    }
    for label, count in expected.items():
        assert row(label)[1] == str(count), label
