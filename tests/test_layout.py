"""The rooms of the code and the one direction of their imports (docs/contributing.md).

`lib` and `engine` are plain packages that import no app; the domain apps (`catalog`,
`scoring`, with `sitecache` beneath them) never import the web layer; the pages (`web`) and the
API (`api`) import the domain, never each other; `config` puts them together. Every import
counts, a function's own included. Tests, migrations and benchmarks aside, no module is longer
than 400 lines and no class than 150.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("lib", "engine", "sitecache", "catalog", "scoring", "web", "api", "config")
DOMAIN = {"lib", "engine", "sitecache", "catalog", "scoring"}
MAY_IMPORT = {
    "lib": {"lib"},
    "engine": {"engine", "lib"},
    "sitecache": {"sitecache", "lib"},
    "catalog": {"catalog", "lib", "engine", "sitecache"},
    "scoring": {"scoring", "catalog", "lib", "engine", "sitecache"},
    "web": DOMAIN | {"web"},
    "api": DOMAIN | {"api"},
    "config": set(ROOMS),
}


def source_files(*, code_only: bool) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "*.py"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    files = []
    for name in listed:
        parts = Path(name).parts
        if parts[0] not in ROOMS or not (ROOT / name).exists():
            continue
        if code_only and ("tests" in parts or "migrations" in parts):
            continue
        files.append(ROOT / name)
    return files


def imported_rooms(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(ROOMS)


def test_every_import_runs_one_way():
    wrong = {}
    for path in source_files(code_only=True):
        room = path.relative_to(ROOT).parts[0]
        if forbidden := imported_rooms(path) - MAY_IMPORT[room]:
            wrong[str(path.relative_to(ROOT))] = sorted(forbidden)
    assert wrong == {}


def test_the_check_sees_an_import_that_runs_the_wrong_way(tmp_path):
    """The rule's own guard: an import inside a function is found as well as one at the top."""
    module = tmp_path / "probe.py"
    module.write_text("import os\n\ndef later():\n    from web.boards import leaderboard\n    import api.main\n")
    assert imported_rooms(module) == {"web", "api"}


@pytest.mark.parametrize("limit_lines, limit_class", [(400, 150)])
def test_no_module_or_class_is_too_long_to_read(limit_lines, limit_class):
    long_modules, long_classes = {}, {}
    for path in source_files(code_only=True):
        text = path.read_text()
        name = str(path.relative_to(ROOT))
        if len(text.splitlines()) > limit_lines:
            long_modules[name] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > limit_class:
                long_classes[f"{name}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert (long_modules, long_classes) == ({}, {})
