"""The manual (docs/) and the README stay true: every link and anchor resolves, every setting the
site reads and every command and flag it has is documented, the README stays a front door, and
the site serves every page of the manual through its sanitiser."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine.builds.caps import CAPS_FROM_ENVIRONMENT, OTHER_SETTINGS
from lib.markup import heading_slug

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
# The apps whose commands are the project's (db_worker is scoring's own, over django-tasks-db's).
PROJECT_APPS = ("catalog", "scoring")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def outside_code(text: str) -> str:
    """The text without its fenced code blocks and code spans (a link in them is no link)."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"(?ms)^```.*?^```", "", text))


def anchors(path: Path) -> set[str]:
    """The ids GitHub (and the site, lib.markup.heading_ids) gives the page's headings."""
    seen: dict[str, int] = {}
    found = set()
    for line in outside_code_lines(path.read_text()):
        heading = re.match(r"#{2,6} (.+)", line)  # a page's title (#) is its own <h1>, with no id
        if heading:
            slug = heading_slug(re.sub(r"[`*]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def outside_code_lines(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def broken_links(paths: list[Path]) -> list[str]:
    broken = []
    for path in paths:
        text = outside_code(path.read_text())
        for target in LINK.findall(text) + IMAGE.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            if path.parent == DOCS and file and not (linked.parent == DOCS or linked.parent == DOCS / "screenshots"):
                broken.append(f"{path.name}: {target} (the manual links only to its own pages and images)")
            elif not linked.exists():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and anchor not in anchors(linked):
                broken.append(f"{path.name}: {target} (no such heading)")
    return broken


def test_every_link_and_anchor_of_the_readme_and_the_manual_resolves():
    assert broken_links(documents()) == []


def test_the_link_check_finds_a_broken_anchor_and_a_missing_page(tmp_path):
    page = DOCS / "settings.md"
    probe = tmp_path / "probe.md"
    probe.write_text(f"[a]({page}#no-such-heading) [b]({DOCS / 'operating.md'}#deploying) [c](missing.md) "
                     "`[d](missing.md)`\n")
    assert broken_links([probe]) == [f"probe.md: {page}#no-such-heading (no such heading)",
                                     "probe.md: missing.md (no such file)"]


def test_no_page_of_the_manual_skips_a_heading_level():
    """A page's title is its <h1>; under it, `##`, then `###`…: a reader (and a screen reader)
    follows the outline."""
    skipped = []
    for path in sorted(DOCS.glob("*.md")):
        level = 1
        for line in outside_code_lines(path.read_text()):
            heading = re.match(r"(#{1,6}) ", line)
            if heading:
                if len(heading.group(1)) > level + 1:
                    skipped.append(f"{path.name}: {line}")
                level = len(heading.group(1))
    assert skipped == []


def settings_read(settings_source: str, scripts: list[str]) -> set[str]:
    """The environment variables config/settings.py reads (through config/env.py's readers or
    os.environ), and those the serving scripts read (`${NAME:-default}`)."""
    names = set()
    for node in ast.walk(ast.parse(settings_source)):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if called.startswith("env") or called in ("get", "getenv"):
                names.add(node.args[0].value)
    for script in scripts:
        names |= set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*):-", script))
    return {name for name in names if isinstance(name, str) and name.isupper()}


def undocumented_settings(settings_source: str, scripts: list[str]) -> list[str]:
    page = (DOCS / "settings.md").read_text()
    return sorted(name for name in settings_read(settings_source, scripts) if f"`{name}`" not in page)


SCRIPTS = ["scripts/serve.sh", "scripts/worker.sh", "scripts/launcher.sh", "config/gunicorn.py"]


def test_every_setting_the_site_and_its_scripts_read_is_on_the_settings_page():
    source = (ROOT / "config" / "settings.py").read_text()
    scripts = [(ROOT / name).read_text() for name in SCRIPTS]
    assert len(settings_read(source, scripts)) > 60
    assert undocumented_settings(source, scripts) == []


def test_every_setting_the_build_launcher_reads_is_on_the_settings_page():
    page = (DOCS / "settings.md").read_text()
    names = [name for name, _, _ in [*CAPS_FROM_ENVIRONMENT.values(), *OTHER_SETTINGS.values()]]
    assert "SCORING_BUILDS_MEMORY_BYTES" in names
    assert [name for name in names if f"`{name}`" not in page] == []


def test_a_setting_added_without_its_documentation_is_found():
    source = (ROOT / "config" / "settings.py").read_text() + '\nNEW_THING = envint("SCORING_NEW_THING", 3)\n'
    assert undocumented_settings(source, ["X=${FRONT_NEW:-1}"]) == ["FRONT_NEW", "SCORING_NEW_THING"]


def flags_of(parser) -> set[str]:
    """Every long option of a command's parser and of its subcommands' parsers."""
    import argparse

    found = set()
    for action in parser._actions:
        found |= {option for option in action.option_strings if option.startswith("--")}
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                found |= {f"{name}"} | flags_of(subparser)
    return found


def undocumented_commands(extra: dict | None = None) -> dict[str, list[str]]:
    from django.core.management import get_commands, load_command_class
    from django.core.management.base import BaseCommand

    common = flags_of(BaseCommand().create_parser("manage.py", "x"))
    page = (DOCS / "commands.md").read_text()
    missing = {}
    commands = {name: app for name, app in get_commands().items() if app in PROJECT_APPS}
    for name, app in sorted(commands.items()):
        parser = load_command_class(app, name).create_parser("manage.py", name)
        flags = flags_of(parser) - common - {"--skip-checks"} | set((extra or {}).get(name, ()))
        absent = sorted(flag for flag in flags if flag not in page)
        if f"manage.py {name}" not in page or absent:
            missing[name] = absent
    return missing


def test_every_command_and_each_of_its_flags_is_on_the_commands_page():
    assert undocumented_commands() == {}


def test_a_flag_added_without_its_documentation_is_found():
    assert undocumented_commands({"score": ["--new-flag"]}) == {"score": ["--new-flag"]}


def test_the_readme_is_a_front_door_and_no_page_says_the_api_is_read_only():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert "make run" in readme and "make test" in readme and "docs/index.md" in readme
    for path in documents() + sorted((ROOT / "templates").rglob("*.html")):
        assert "read-only API" not in path.read_text(), path


def test_the_code_cites_the_manual_not_a_document_outside_the_repository():
    cited = []
    for path in ROOT.glob("*/**/*.py"):
        if any(part.startswith(".venv") for part in path.parts) or "node_modules" in path.parts:  # every virtualenv
            continue
        if re.search("SPEC" + " §", path.read_text()):
            cited.append(str(path.relative_to(ROOT)))
    assert cited == []


@pytest.mark.django_db
def test_the_site_serves_every_page_of_the_manual_from_the_header(client):
    home = client.get("/").content.decode()
    assert '<a href="/docs/">Docs</a>' in home
    for path in sorted(DOCS.glob("*.md")):
        url = "/docs/" if path.stem == "index" else f"/docs/{path.stem}/"
        page = client.get(url)
        assert page.status_code == 200, url
        html = page.content.decode()
        title = path.read_text().splitlines()[0].removeprefix("# ")
        assert f"<h1>{title}</h1>" in html, url
        assert f'href="{url}" aria-current="page"' in html, url  # listed beside every page
    # A link between pages and an anchor work on the site as on GitHub.
    settings_page = client.get("/docs/settings/").content.decode()
    assert 'id="settings"' not in settings_page and '<a href="/docs/operating/#deploying">' in \
        client.get("/docs/submitting/").content.decode()
    assert client.get("/docs/index/").status_code == 404 and client.get("/docs/nope/").status_code == 404
    image = client.get("/docs/screenshots/leaderboard.png")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    assert client.get("/docs/screenshots/..%2Fsettings.md").status_code == 404
    assert client.get(f"/docs/screenshots/{'x' * 300}.png").status_code == 404  # longer than a file name may be


def test_the_manual_goes_through_the_sanitiser():
    from lib.markup import render_manual

    html = render_manual('## A\n<script>alert(1)</script>\n<a href="javascript:alert(1)" onclick="x">x</a>\n',
                         lambda name: f"/docs/{name}/", lambda path: f"/docs/{path}")
    assert "<script" not in html and "javascript:" not in html and "onclick" not in html
    assert '<h2 id="a">A</h2>' in html
