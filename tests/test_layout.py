"""The rooms of the code and the one direction of their imports (docs/contributing.md).

`lib` and `engine` are plain packages that import no app; the domain apps (`catalog`,
`scoring`, with `sitecache` beneath them) never import the web layer; the pages (`web`) and the
API (`api`) import the domain, never each other; `config` puts them together. Every import
counts, a function's own included. Within and across the rooms, the modules form no cycle (a
package's `__init__` counts as imported by every import of a module inside it, as Python runs
it), and an import is deferred into a function only with its reason written beside it (`#
deferred: …`). Tests, migrations and benchmarks aside, no module is longer than 400 lines and no
class than 150.
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


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, known: set[str]) -> list[tuple[str, ast.stmt]]:
    """(project module, the statement) for every import in `path`, a function's own included; an
    import of a module inside a package imports the package's `__init__` too."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else
                []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            while target:
                if target != name and not name.startswith(target + "."):
                    found.append((target, node))
                target = target.rpartition(".")[0] if "." in target else ""
    return found


def import_graph(paths: list[Path]) -> dict[str, set[str]]:
    known = {module_name(path) for path in paths}
    return {module_name(path): {target for target, _ in imports_of(path, known)} for path in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def undeclared_deferred_imports(path: Path) -> list[str]:
    """Imports of the project's rooms inside a function with no `# deferred: reason` beside them
    (on their line, or on a comment above the imports they stand among)."""
    lines = path.read_text().splitlines()
    found = []
    for function in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "level", 0):
                continue
            module = getattr(node, "module", None) or node.names[0].name
            if module.split(".")[0] not in ROOMS:
                continue
            line = node.lineno - 1
            said = "# deferred:" in lines[line]
            while not said and line > 0 and (not lines[line - 1].strip()
                                             or lines[line - 1].strip().startswith(("#", "from ", "import "))):
                line -= 1
                said = "# deferred:" in lines[line]
            if not said:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module}")
    return found


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


def test_no_module_is_part_of_an_import_cycle():
    assert cycles(import_graph(source_files(code_only=True))) == []


def test_the_cycle_check_sees_a_cycle_through_a_functions_import_and_a_package(tmp_path, monkeypatch):
    """Its own guard: a function's import closes a cycle, and importing `a.b.c` imports `a/__init__`."""
    for relative, text in (("lib/one.py", "def later():\n    from lib.two import x\n"),
                           ("lib/two.py", "from lib.pack.three import y\nx = 1\n"),
                           ("lib/pack/__init__.py", "from lib.one import later\n"),
                           ("lib/pack/three.py", "y = 2\n")):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    graph = import_graph(sorted(tmp_path.rglob("*.py")))
    assert {"lib.pack.three", "lib.pack"} <= graph["lib.two"]
    assert cycles(graph) == [["lib.one", "lib.pack", "lib.two"]]


def test_an_import_deferred_into_a_function_says_why():
    found = []
    for path in source_files(code_only=True):
        found += undeclared_deferred_imports(path)
    assert found == []


def test_the_deferral_check_sees_an_import_without_a_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    module = tmp_path / "probe.py"
    module.write_text("def ready():\n    # deferred: the app registry is ready only now\n    from scoring import "
                      "receivers\n"
                      "    from scoring.checks import build_cgroups\n\n"
                      "def later():\n    from scoring.models import Submission\n    import json\n")
    assert undeclared_deferred_imports(module) == ["probe.py:7: scoring.models"]


def test_the_whole_tree_is_clean_under_the_linter():
    """ruff.toml's rules (pyflakes, import order, lines of at most 120 characters) on every module."""
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "ruff"), "check", "--no-cache", "--output-format", "concise",
                           str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_helpers_of_the_tests_live_in_plain_modules():
    """One test world: fixtures and helpers in plain modules (catalog/tests/trees.py,
    scoring/tests/helpers.py, tests/helpers.py…), imported by the tests; no module imports from a
    conftest file or from another test module."""
    found = []
    for path in sorted(ROOT.glob("*/**/*.py")) + sorted(ROOT.glob("*.py")):
        if any(part.startswith(".venv") for part in path.parts) or "node_modules" in path.parts:  # every virtualenv
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for module in modules:
                last = module.rpartition(".")[2]
                if last == "conftest" or (last.startswith("test_") and module.count(".") >= 1):
                    found.append(f"{path.relative_to(ROOT)}: {module}")
    assert found == []
