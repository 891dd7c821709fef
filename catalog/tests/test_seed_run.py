"""`seed_run` lays out a run root as the harness would, and never seeds held-out data."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from catalog.tests.trees import ADDER_V1

pytestmark = pytest.mark.django_db



def seed(*args: str) -> str:
    out = io.StringIO()
    call_command("seed_run", *args, stdout=out)
    return out.getvalue()


def tree(root) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_the_run_root_holds_workspace_specs_schemas_and_prompt(imported, tmp_path):
    out = seed("adder", str(tmp_path / "run"), "--version", "v1")
    files = tree(tmp_path / "run")
    assert sorted(files) == [
        "Cargo.toml", "PROMPT.md", "schemas/input.json", "schemas/output.json",
        "specs/limits.md", "specs/rules.md", "src/lib.rs",
    ]
    assert files["Cargo.toml"] == imported.path("workspaces/base/Cargo.toml").read_bytes()
    assert files["schemas/input.json"] == imported.path("schemas/input.json").read_bytes()
    assert files["specs/limits.md"] == b"Fuel limit: 1000000\n"  # .hbs rendered, suffix dropped
    assert files["PROMPT.md"] == b"Solve Adder for the Base variant.\nSpecs:\n- specs/rules.md\n- specs/limits.md\n"
    assert "seeded" in out and "7 file(s)" in out


def test_a_variants_additive_specs_are_seeded_only_for_that_variant(imported, tmp_path):
    seed("adder", str(tmp_path / "run"), "--version", "v1", "--variant", "long-lists")
    files = tree(tmp_path / "run")
    assert files["specs/long-lists.md"] == imported.path("specs/long-lists.md").read_bytes()
    assert b"for the Long lists variant" in files["PROMPT.md"]
    assert b"- specs/long-lists.md" in files["PROMPT.md"]
    seed("adder", str(tmp_path / "base"), "--version", "v1")
    assert "specs/long-lists.md" not in tree(tmp_path / "base")


def test_held_out_inputs_and_answers_are_never_seeded(imported, tmp_path):
    for variant in ("base", "long-lists"):
        seed("adder", str(tmp_path / variant), "--version", "v1", "--variant", variant)
        seeded = b"".join(tree(tmp_path / variant).values())
        for held_out in ("smoke/one.json", "smoke/one.out", "cases/small.json", "cases/small.out", "cases/large.json",
                         "cases/large.out"):
            content = imported.path(held_out).read_bytes().strip()
            assert content not in seeded, held_out


def test_a_non_empty_destination_is_refused_and_left_alone(imported, tmp_path):
    dest = tmp_path / "busy"
    dest.mkdir()
    (dest / "mine.txt").write_text("keep me")
    with pytest.raises(CommandError, match="already exists and is not an empty folder"):
        seed("adder", str(dest))
    assert tree(dest) == {"mine.txt": b"keep me"}


def test_an_empty_destination_folder_is_fine(imported, tmp_path):
    (tmp_path / "empty").mkdir()
    seed("adder", str(tmp_path / "empty"))
    assert "PROMPT.md" in tree(tmp_path / "empty")


def test_unknown_targets_are_usage_errors(imported, tmp_path):
    with pytest.raises(CommandError, match="no case with slug `nope`"):
        seed("nope", str(tmp_path / "x"))
    with pytest.raises(CommandError, match="has no variant `huge`"):
        seed("adder", str(tmp_path / "x"), "--variant", "huge")
    assert not (tmp_path / "x").exists()


def test_seeding_works_from_the_database_alone(imported, tmp_path):
    import shutil

    shutil.rmtree(imported.root)
    seed("adder", str(tmp_path / "run"), "--version", "v1")
    assert (tmp_path / "run" / "src/lib.rs").is_file()
    assert ADDER_V1  # the catalog folder is gone; everything came from the database
