"""The manual's security page (docs/security.md) states the counts the tests really use."""

from __future__ import annotations

from pathlib import Path

from catalog.manifest import FORBIDDEN_TABLES
from catalog.tests.archives import HOSTILE as HOSTILE_ARCHIVES
from catalog.tests.archives import UNSTORABLE_ARCHIVES
from catalog.tests.broken_manifests import FUZZ_SETTINGS, RULES, VARIANT_RULES
from catalog.tests.payloads import XSS_PAYLOADS
from engine.tests.hostile import HOSTILE_BUILDS, HOSTILE_MODULES, INVALID_MODULES, LAUNCHER_ASKERS, LAUNCHER_REQUESTS
from tests.hostile import CACHE_BYPASS_URLS, IMPORT_KILLS, NASTY_URLS, RANDOM_REQUESTS, SCORE_KILLS

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "security.md").read_text()


def property_tests(path: Path) -> int:
    """The Hypothesis tests of a test module (each runs FUZZ_SETTINGS.max_examples examples), read
    from its source: a test module is never imported by another."""
    import ast

    return sum(1 for node in ast.parse(path.read_text()).body
               if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
               and any(getattr(getattr(decorator, "func", decorator), "id",
                               "") == "given" for decorator in node.decorator_list))


def row(label_start: str) -> list[str]:
    for line in PAGE.splitlines():
        if line.startswith(f"| {label_start}"):
            return [cell.strip() for cell in line.strip("|").split("|")]
    raise AssertionError(f"no row of docs/security.md starts with {label_start!r}")


def test_the_security_table_counts_match_the_tests():
    expected = {
        "broken manifests": len(RULES) + len(VARIANT_RULES) + len(FORBIDDEN_TABLES),
        "fuzzed manifests": FUZZ_SETTINGS.max_examples * property_tests(Path(__file__).resolve().parent.parent /
        "catalog" / "tests" / "test_manifest_fuzz.py"),
        "hostile archives": len(HOSTILE_ARCHIVES),
        "archives with names the database cannot store": len(UNSTORABLE_ARCHIVES),
        "hostile builds": len(HOSTILE_BUILDS),
        "a taken-over site account": len(LAUNCHER_REQUESTS) + len(LAUNCHER_ASKERS),
        "modules breaking the ABI": len(INVALID_MODULES),
        "hostile modules at run time": len(HOSTILE_MODULES),
        "script, event-handler": len(XSS_PAYLOADS),
        "random and malformed URLs": RANDOM_REQUESTS + len(NASTY_URLS),
        "query strings made to miss the page cache": len(CACHE_BYPASS_URLS),
        "SIGKILL of": IMPORT_KILLS + SCORE_KILLS + 1,
    }
    for label, count in expected.items():
        assert row(label)[1] == str(count), label
