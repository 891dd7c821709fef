"""Every catalog rule (docs/writing-cases.md): one broken copy of a valid catalog per rule.

Each case breaks exactly one rule and expects an error of the form `<file>: <key>: <message>`
that names the offending file and key, and expects the broken version not to validate.
"""

from __future__ import annotations

import os
from decimal import Decimal

import pytest

from catalog.manifest import (
    FORBIDDEN_TABLES,
    ManifestError,
    Variant,
    fuel_ceiling,
    humanize_slug,
    version_sort_key,
)
from catalog.tests.conftest import ADDER_V1

MANIFEST = f"{ADDER_V1}/test-case.toml"


def _find(errors: list[ManifestError], file: str, key: str, fragment: str) -> ManifestError | None:
    for error in errors:
        if error.file == file and error.key == key and fragment in error.message:
            return error
    return None


def assert_error(catalog, key: str, fragment: str, file: str = MANIFEST, label: str = ADDER_V1):
    scan = catalog.scan()
    found = _find(scan.errors, file, key, fragment)
    assert found, f"no error {file}: {key}: …{fragment}… in:\n" + "\n".join(map(str, scan.errors))
    assert label not in {source.label for source in scan.versions}, "the broken version still validated"
    return found


def test_the_valid_catalog_has_no_errors(catalog):
    scan = catalog.scan()
    assert scan.errors == []
    assert sorted(source.label for source in scan.versions) == [
        "performance/easy/adder/v1",
        "performance/easy/adder/v10",
        "performance/easy/adder/v2",
        "performance/medium/counter/1.0",
    ]


def test_errors_render_as_file_key_message():
    error = ManifestError("a/b/test-case.toml", "case[2].fuel_runway", "must be at least 1")
    assert str(error) == "a/b/test-case.toml: case[2].fuel_runway: must be at least 1"


# (id, mutation, key, message fragment[, file relative to the version folder])
RULES = [
    # slug
    ("slug-missing", lambda c: c.edit('slug = "adder"\n', ""), "slug", "required key is missing"),
    ("slug-pattern", lambda c: c.edit('slug = "adder"', 'slug = "Adder_1"'), "slug", "must match"),
    ("slug-leading-hyphen", lambda c: c.edit('slug = "adder"', 'slug = "-adder"'), "slug", "must match"),
    # The pattern matches the whole value: `$` alone would let a final newline through.
    ("slug-trailing-newline", lambda c: c.edit('slug = "adder"', 'slug = "adder\\n"'), "slug", "must match"),
    ("slug-type", lambda c: c.edit('slug = "adder"', "slug = 3"), "slug", "must be a string, not an integer"),
    # name
    ("name-missing", lambda c: c.edit('name = "Adder"\n', ""), "name", "required key is missing"),
    ("name-empty", lambda c: c.edit('name = "Adder"', 'name = "  "'), "name", "must not be empty"),
    # type
    ("type-missing", lambda c: c.edit('type = "performance"\n', ""), "type", "required key is missing"),
    ("type-folder-mismatch", lambda c: c.edit('type = "performance"', 'type = "end-to-end"'), "type", "does not match the type folder `performance`"),
    ("type-not-importable", lambda c: c.edit('type = "performance"', 'type = "adversarial"'), "type", "test type `adversarial` is not importable"),
    # difficulty
    ("difficulty-missing", lambda c: c.edit('difficulty = "easy"\n', ""), "difficulty", "required key is missing"),
    ("difficulty-enum", lambda c: c.edit('difficulty = "easy"', 'difficulty = "extreme"'), "difficulty", "must be one of: easy, medium, hard"),
    ("difficulty-folder-mismatch", lambda c: c.edit('difficulty = "easy"', 'difficulty = "hard"'), "difficulty", "does not match the difficulty folder `easy`"),
    # experimental
    ("experimental-type", lambda c: c.edit('slug = "adder"', 'slug = "adder"\nexperimental = "yes"'), "experimental", "must be a boolean, not a string"),
    # tags
    ("tags-missing", lambda c: c.edit('tags = ["arithmetic", "wasm"]\n', ""), "tags", "required key is missing"),
    ("tags-empty", lambda c: c.edit('tags = ["arithmetic", "wasm"]', "tags = []"), "tags", "at least one tag"),
    ("tags-not-array", lambda c: c.edit('tags = ["arithmetic", "wasm"]', 'tags = "wasm"'), "tags", "must be an array of strings"),
    ("tags-item-type", lambda c: c.edit('tags = ["arithmetic", "wasm"]', 'tags = ["arithmetic", 4]'), "tags[1]", "must be a string, not an integer"),
    ("tags-item-empty", lambda c: c.edit('tags = ["arithmetic", "wasm"]', 'tags = ["arithmetic", ""]'), "tags[1]", "must not be empty"),
    ("tags-duplicate", lambda c: c.edit('tags = ["arithmetic", "wasm"]', 'tags = ["wasm", "wasm"]'), "tags[1]", "duplicate tag `wasm`"),
    # summary
    ("summary-type", lambda c: c.edit('summary = "Add up a list of integers."', "summary = 1"), "summary", "must be a string"),
    # description / changelog / prompt
    ("description-missing-file", lambda c: c.remove("description.md"), "description", "`description.md` does not exist"),
    ("description-is-dir", lambda c: c.edit('description = "description.md"', 'description = "specs"'), "description", "is a directory, not a file"),
    ("changelog-required", lambda c: c.edit('changelog = "changelog.md"\n', ""), "changelog", "required key is missing"),
    ("changelog-missing-file", lambda c: c.remove("changelog.md"), "changelog", "`changelog.md` does not exist"),
    ("prompt-required", lambda c: c.edit('prompt = "prompt.hbs"\n', ""), "prompt", "required key is missing"),
    ("prompt-not-hbs", lambda c: c.edit('prompt = "prompt.hbs"', 'prompt = "description.md"'), "prompt", "must be a Handlebars template ending in `.hbs`"),
    ("prompt-bad-syntax", lambda c: c.write("prompt.hbs", "{{#each specs}}unclosed {{/if}}"), "prompt", "is not a valid Handlebars template"),
    # max_runtime_hours
    ("max-runtime-zero", lambda c: c.edit("max_runtime_hours = 0.5", "max_runtime_hours = 0"), "max_runtime_hours", "must be greater than 0"),
    ("max-runtime-negative", lambda c: c.edit("max_runtime_hours = 0.5", "max_runtime_hours = -1.5"), "max_runtime_hours", "must be greater than 0"),
    ("max-runtime-type", lambda c: c.edit("max_runtime_hours = 0.5", 'max_runtime_hours = "1"'), "max_runtime_hours", "must be a number, not a string"),
    ("max-runtime-bool", lambda c: c.edit("max_runtime_hours = 0.5", "max_runtime_hours = true"), "max_runtime_hours", "must be a number, not a boolean"),
    ("max-runtime-inf", lambda c: c.edit("max_runtime_hours = 0.5", "max_runtime_hours = inf"), "max_runtime_hours", "must be a finite number"),
    # workspace / init
    ("workspace-missing", lambda c: c.remove("workspaces/base"), "workspace", "`workspaces/base` does not exist"),
    ("workspace-is-file", lambda c: c.edit('workspace = "workspaces/base"', 'workspace = "changelog.md"'), "workspace", "is a file, not a directory"),
    ("init-type", lambda c: c.edit('init = "cargo fetch"', "init = ['cargo']"), "init", "must be a string, not an array"),
    # variants
    ("variants-empty", lambda c: c.edit('variants = ["variants/base.toml", "variants/long-lists.toml"]', "variants = []"), "variants", "at least one variant file"),
    ("variants-not-array", lambda c: c.edit('variants = ["variants/base.toml", "variants/long-lists.toml"]', 'variants = "variants/base.toml"'), "variants", "must be an array of paths"),
    ("variants-item-type", lambda c: c.edit('variants = ["variants/base.toml", "variants/long-lists.toml"]', 'variants = ["variants/base.toml", 2]'), "variants[1]", "must be a path string"),
    ("variants-missing-file", lambda c: c.remove("variants/long-lists.toml"), "variants[1]", "`variants/long-lists.toml` does not exist"),
    ("variants-duplicate-slug", lambda c: c.write("variants/long-lists.toml", 'slug = "base"\n'), "variants[1]", "variant slug `base` is already used by variants[0]"),
    # build
    ("build-missing", lambda c: c.edit('[build]\ninstall = "true"\nbuild = "cp solution.wasm out.wasm"\nmodule = "out.wasm"\n', ""), "build", "required table [build] is missing"),
    ("build-command-missing", lambda c: c.edit('build = "cp solution.wasm out.wasm"\n', ""), "build.build", "required key is missing"),
    ("build-command-empty", lambda c: c.edit('build = "cp solution.wasm out.wasm"', 'build = ""'), "build.build", "must not be empty"),
    ("build-install-type", lambda c: c.edit('install = "true"', "install = 1"), "build.install", "must be a string"),
    ("build-module-missing", lambda c: c.edit('module = "out.wasm"\n', ""), "build.module", "required key is missing"),
    ("build-module-absolute", lambda c: c.edit('module = "out.wasm"', 'module = "/tmp/out.wasm"'), "build.module", "absolute paths are not allowed"),
    ("build-module-escapes", lambda c: c.edit('module = "out.wasm"', 'module = "target/../../out.wasm"'), "build.module", "leaves the version folder"),
    ("build-unknown-key", lambda c: c.edit('module = "out.wasm"', 'module = "out.wasm"\nmodul = "x"'), "build.modul", "unknown key (did you mean `module`?)"),
    ("build-as-array", lambda c: c.edit("[build]", "[[build]]"), "build", "must be a single table [build], not an array of tables"),
    # contract
    ("contract-missing", lambda c: c.edit('[contract]\nentry = "solve"\ninput = "schemas/input.json"\noutput = "schemas/output.json"\n', ""), "contract", "required table [contract] is missing"),
    ("contract-entry-missing", lambda c: c.edit('entry = "solve"\n', ""), "contract.entry", "required key is missing"),
    ("contract-entry-reserved", lambda c: c.edit('entry = "solve"', 'entry = "alloc"'), "contract.entry", "reserved by the solution ABI"),
    ("contract-input-missing-file", lambda c: c.remove("schemas/input.json"), "contract.input", "`schemas/input.json` does not exist"),
    ("contract-output-missing", lambda c: c.edit('output = "schemas/output.json"\n', ""), "contract.output", "required key is missing"),
    ("contract-schema-not-json", lambda c: c.write("schemas/input.json", "{not json"), "contract.input", "is not JSON"),
    ("contract-schema-invalid", lambda c: c.write("schemas/output.json", '{"type": "banana"}'), "contract.output", "is not a valid JSON Schema"),
    ("contract-schema-not-object", lambda c: c.write("schemas/output.json", "[1, 2]"), "contract.output", "a schema is an object or a boolean"),
    ("contract-schema-unknown-dialect", lambda c: c.write("schemas/output.json", '{"$schema": "https://example.com/my-schema"}'), "contract.output", "unknown JSON Schema dialect"),
    ("contract-unknown-key", lambda c: c.edit('entry = "solve"', 'entry = "solve"\nentri = "x"'), "contract.entri", "did you mean `entry`?"),
    # cases
    ("case-missing", lambda c: c.write("test-case.toml", _without_cases(c.read("test-case.toml"))), "case", "required array of tables [[case]] is missing"),
    ("case-single-table", lambda c: c.write("test-case.toml", _without_cases(c.read("test-case.toml")) + '\n[case]\ninput = "cases/small.json"\nexpected = "cases/small.out"\n'), "case", "must be an array of tables [[case]], not a single table"),
    ("case-no-stress", lambda c: c.write("test-case.toml", _without_cases(c.read("test-case.toml")) + '\n[[case]]\ninput = "smoke/one.json"\nexpected = "smoke/one.out"\nkind = "smoke"\n'), "case", "at least one `stress` case is required"),
    ("case-input-missing", lambda c: c.edit('input = "cases/small.json"\n', ""), "case[1].input", "required key is missing"),
    ("case-expected-missing-file", lambda c: c.remove("cases/large.out"), "case[2].expected", "`cases/large.out` does not exist"),
    ("case-kind-enum", lambda c: c.edit('kind = "smoke"', 'kind = "warmup"'), "case[0].kind", "`warmup` must be one of: smoke, stress"),
    ("case-kind-type", lambda c: c.edit('kind = "smoke"', "kind = 1"), "case[0].kind", "must be one of: smoke, stress"),
    ("case-runway-below-one", lambda c: c.edit("fuel_runway = 1.15", "fuel_runway = 0.9"), "case[1].fuel_runway", "must be at least 1"),
    ("case-runway-type", lambda c: c.edit("fuel_runway = 1.15", 'fuel_runway = "2"'), "case[1].fuel_runway", "must be a number, not a string"),
    ("case-runway-nan", lambda c: c.edit("fuel_runway = 1.15", "fuel_runway = nan"), "case[1].fuel_runway", "must be a finite number"),
    ("case-runway-ceiling-overflow", lambda c: c.edit("fuel_runway = 1.15", "fuel_runway = 1e30"), "case[1].fuel_runway", "exceeds 9223372036854775807"),
    ("case-unknown-key", lambda c: c.edit("fuel_runway = 1.15", "fuel_runway = 1.15\nfuel_runaway = 2.0"), "case[1].fuel_runaway", "did you mean `fuel_runway`?"),
    ("case-input-not-json", lambda c: c.write("cases/small.json", "[1, 2,"), "case[1].input", "`cases/small.json` is not JSON"),
    ("case-input-bom", lambda c: c.write("cases/small.json", b'\xef\xbb\xbf{"numbers": [1]}'), "case[1].input", "byte-order mark"),
    ("case-input-nan", lambda c: c.write("cases/small.json", '{"numbers": [NaN]}'), "case[1].input", "NaN is not JSON"),
    ("case-input-empty", lambda c: c.write("cases/small.json", ""), "case[1].input", "empty"),
    ("case-input-not-utf8", lambda c: c.write("cases/small.json", b'{"numbers": [1], "x": "\xff"}'), "case[1].input", "not UTF-8"),
    ("case-input-schema", lambda c: c.write("cases/small.json", '{"numbers": [1, "two"]}'), "case[1].input", "does not validate against the contract's input schema: at /numbers/1: fails `type`"),
    ("case-expected-schema", lambda c: c.write("smoke/one.out", '{"total": 7}'), "case[0].expected", "does not validate against the contract's output schema"),
    ("case-held-out-seeded-as-spec", lambda c: c.append('\n[[spec]]\nsource = "cases/small.out"\n'), "case[1].expected", "is held out, so it cannot also be spec[2].source"),
    ("case-held-out-in-workspace", lambda c: (c.write("workspaces/base/answer.out", '{"sum": 6}'), c.edit('expected = "cases/small.out"', 'expected = "workspaces/base/answer.out"')), "case[1].expected", "cannot lie inside the seeded workspace"),
    # held-out privacy by identity and content: links, hard links and copies
    ("case-held-out-description-symlink", lambda c: (c.remove("description.md"), os.symlink("cases/small.out", c.path("description.md"))), "case[1].expected", "`cases/small.out` is held out, but `description.md` (description) is a link to it"),
    ("case-held-out-spec-symlink", lambda c: (c.remove("specs/rules.md"), os.symlink("../smoke/one.out", c.path("specs/rules.md"))), "case[0].expected", "`smoke/one.out` is held out, but `specs/rules.md` (spec[0].source) is a link to it"),
    ("case-held-out-workspace-hard-link", lambda c: os.link(c.path("cases/small.json"), c.path("workspaces/base/data.json")), "case[1].input", "`cases/small.json` is held out, but `workspaces/base/data.json` (in the seeded workspace `workspaces/base`) is a hard link to it"),
    ("case-held-out-workspace-copy", lambda c: c.write("workspaces/base/expected.json", c.read("cases/large.out")), "case[2].expected", "`cases/large.out` is held out, but `workspaces/base/expected.json` (in the seeded workspace `workspaces/base`) has the same content"),
    ("case-held-out-reformatted-copy", lambda c: c.write("workspaces/base/answer.json", '{\n  "sum" :  ' + c.read("cases/small.out").split(":")[1].strip()[:-1] + "\n}\n"), "case[1].expected", "`workspaces/base/answer.json` (in the seeded workspace `workspaces/base`) has the same content"),
    ("case-held-out-embedded", lambda c: c.write("specs/rules.md", "# Rules\n\nFor example " + c.read("cases/large.json").strip() + " is an input.\n"), "case[2].input", "`specs/rules.md` (spec[0].source) contains it"),
    ("case-held-out-through-linked-folder", lambda c: (os.symlink("cases", c.path("alias")), c.edit('input = "cases/small.json"', 'input = "alias/small.json"')), "case[1].input", "goes through the linked folder `alias`"),
    # what a template renders is seeded too: a comment splitting the bytes does not hide them
    ("case-held-out-rendered-copy", lambda c: c.write("specs/limits.md.hbs", '{"numbers": [10, 2{{!-- --}}0, 30, 40]}\n'), "spec[1].source", "`cases/large.json` is held out, but `specs/limits.md.hbs` rendered for variant `base` has the same content"),
    ("case-held-out-rendered-inside", lambda c: c.write("prompt.hbs", 'Solve {{case.name}}. Say {"numbers": [10, 20, {{!}}30, 40]} back.\n'), "prompt", "`prompt.hbs` rendered for variant `base` contains it"),
    ("case-held-out-changelog-copy", lambda c: c.write("changelog.md", c.read("cases/small.out")), "case[1].expected", "`changelog.md` (changelog) has the same content"),
    # what the database can store
    ("slug-too-long", lambda c: c.edit('slug = "adder"', f'slug = "{"a" * 101}"'), "slug", "must be at most 100 characters, not 101"),
    ("name-too-long", lambda c: c.edit('name = "Adder"', f'name = "{"N" * 201}"'), "name", "must be at most 200 characters, not 201"),
    ("tag-too-long", lambda c: c.edit('tags = ["arithmetic", "wasm"]', f'tags = ["{"t" * 101}"]'), "tags[0]", "must be at most 100 characters, not 101"),
    ("entry-too-long", lambda c: c.edit('entry = "solve"', f'entry = "{"e" * 201}"'), "contract.entry", "must be at most 200 characters"),
    ("path-too-long", lambda c: c.edit('description = "description.md"', f'description = "{"d/" * 150}x.md"'), "description", "a path must be at most 300 characters"),
    ("runway-literal-too-long", lambda c: c.edit("fuel_runway = 1.15", "fuel_runway = 1.1500000000000000000000000000000000000000000000000000001"), "case[1].fuel_runway", "must be written in at most 50 characters"),
    # sandbox
    ("sandbox-missing", lambda c: c.edit("[sandbox]\nfuel_limit = 1_000_000\nmax_memory_bytes = 1_048_576\n", ""), "sandbox", "required table [sandbox] is missing"),
    ("sandbox-fuel-limit-missing", lambda c: c.edit("fuel_limit = 1_000_000\n", ""), "sandbox.fuel_limit", "required key is missing"),
    ("sandbox-fuel-limit-zero", lambda c: c.edit("fuel_limit = 1_000_000", "fuel_limit = 0"), "sandbox.fuel_limit", "must be greater than 0"),
    ("sandbox-fuel-limit-float", lambda c: c.edit("fuel_limit = 1_000_000", "fuel_limit = 1e6"), "sandbox.fuel_limit", "must be an integer, not a float"),
    ("sandbox-fuel-limit-bool", lambda c: c.edit("fuel_limit = 1_000_000", "fuel_limit = true"), "sandbox.fuel_limit", "must be an integer, not a boolean"),
    ("sandbox-fuel-limit-too-big", lambda c: c.edit("fuel_limit = 1_000_000", "fuel_limit = 99999999999999999999"), "sandbox.fuel_limit", "signed 64-bit integer"),
    ("sandbox-memory-not-pages", lambda c: c.edit("max_memory_bytes = 1_048_576", "max_memory_bytes = 1_000_000"), "sandbox.max_memory_bytes", "must be a multiple of 65,536"),
    ("sandbox-memory-zero", lambda c: c.edit("max_memory_bytes = 1_048_576", "max_memory_bytes = 0"), "sandbox.max_memory_bytes", "must be greater than 0"),
    ("sandbox-memory-too-big", lambda c: c.edit("max_memory_bytes = 1_048_576", "max_memory_bytes = 8_589_934_592"), "sandbox.max_memory_bytes", "exceeds the 4 GiB"),
    ("sandbox-unknown-key", lambda c: c.edit("max_memory_bytes = 1_048_576", "max_memory_bytes = 1_048_576\nfuel_limt = 3"), "sandbox.fuel_limt", "did you mean `fuel_limit`?"),
    # specs
    ("spec-source-missing", lambda c: c.edit('source = "specs/rules.md"\n', 'dest = "rules.md"\n'), "spec[0].source", "required key is missing"),
    ("spec-source-missing-file", lambda c: c.remove("specs/rules.md"), "spec[0].source", "`specs/rules.md` does not exist"),
    ("spec-dest-absolute", lambda c: c.edit('source = "specs/rules.md"', 'source = "specs/rules.md"\ndest = "/etc/rules.md"'), "spec[0].dest", "absolute paths are not allowed"),
    ("spec-dest-leaves-root", lambda c: c.edit('source = "specs/rules.md"', 'source = "specs/rules.md"\ndest = "docs/../../rules.md"'), "spec[0].dest", "leaves the version folder"),
    ("spec-dest-is-root", lambda c: c.edit('source = "specs/rules.md"', 'source = "specs/rules.md"\ndest = "docs/.."'), "spec[0].dest", "not the root itself"),
    ("spec-dest-clash", lambda c: c.edit('source = "specs/limits.md.hbs"', 'source = "specs/limits.md.hbs"\ndest = "specs/rules.md"'), "spec[1].dest", "`specs/rules.md` is already used by spec[0]"),
    ("spec-dest-clash-with-schema", lambda c: c.edit('source = "specs/rules.md"', 'source = "specs/rules.md"\ndest = "schemas/input.json"'), "spec[0].dest", "already used by contract.input"),
    ("spec-dest-prompt-reserved", lambda c: c.edit('source = "specs/rules.md"', 'source = "specs/rules.md"\ndest = "PROMPT.md"'), "spec[0].dest", "already used by the rendered prompt"),
    ("spec-unknown-key", lambda c: c.edit('source = "specs/rules.md"', 'source = "specs/rules.md"\ndestination = "x.md"'), "spec[0].destination", "did you mean `dest`?"),
    ("spec-bad-template", lambda c: c.write("specs/limits.md.hbs", "{{#if x}}never closed"), "spec[1].source", "is not a valid Handlebars template: line 1: `{{#if}}` is never closed"),
    ("spec-template-mismatched-close", lambda c: c.write("specs/limits.md.hbs", "{{#if x}}a{{/each}}"), "spec[1].source", "`{{/each}}` closes `{{#if}}`"),
    ("spec-template-unknown-helper", lambda c: c.write("specs/limits.md.hbs", "{{shout sandbox.fuel_limit}}"), "spec[1].source", "line 1: unknown helper `shout`"),
    ("prompt-unknown-partial", lambda c: c.write("prompt.hbs", "Hello\n{{> header}}"), "prompt", "line 2: partials (`{{> …}}`) are not supported"),
    ("prompt-raw-number", lambda c: c.write("prompt.hbs", "Limit {{{sandbox.fuel_limit}}}\n"), "prompt", "is a number or a boolean"),
    ("prompt-else-chain", lambda c: c.write("prompt.hbs", "{{#if case.summary}}a{{else if case.name}}b{{/if}}"), "prompt", "`{{else …}}` chains are not supported"),
    # root keys after a table header
    ("variants-after-table-header", lambda c: _move_variants_to_end(c), "sandbox.variants", "`variants` must precede the first table header"),
    ("variants-after-case-header", lambda c: _move_variants_after_first_case(c), "case[0].variants", "`variants` must precede the first table header"),
    ("tags-after-table-header", lambda c: (c.edit('tags = ["arithmetic", "wasm"]\n', ""), c.edit("max_memory_bytes = 1_048_576\n", 'max_memory_bytes = 1_048_576\ntags = ["x"]\n')), "sandbox.tags", "`tags` must precede the first table header"),
    # unknown keys
    ("unknown-root-key", lambda c: c.edit('summary = "', 'sumary = "x"\nsummary = "'), "sumary", "unknown key (did you mean `summary`?)"),
    ("unknown-root-key-no-suggestion", lambda c: c.edit('summary = "', 'zzzz = 1\nsummary = "'), "zzzz", "unknown key"),
    # NUL characters (text that cannot be stored)
    ("nul-in-name", lambda c: c.edit('name = "Adder"', 'name = "Ad\\u0000der"'), "name", "must not contain NUL characters"),
    ("nul-in-domain", lambda c: c.edit('name = "efficiency"', 'name = "eff\\u0000"'), "domain[0].name", "must not contain NUL characters"),
    ("nul-in-description", lambda c: c.write("description.md", b"# Adder\n\x00\n"), "description", "must not contain NUL bytes"),
    ("changelog-not-utf8", lambda c: c.write("changelog.md", b"# v1\n\xff\n"), "changelog", "is not UTF-8"),
    # TOML syntax
    ("toml-syntax", lambda c: c.edit('name = "Adder"', "name = Adder"), "line 2, column 8", "TOML syntax error"),
    ("toml-duplicate-key", lambda c: c.edit('name = "Adder"', 'name = "Adder"\nname = "Again"'), "line 3, column 15", "TOML syntax error: Cannot overwrite a value"),
    ("toml-not-utf8", lambda c: c.write("test-case.toml", c.read("test-case.toml").encode() + b'\n# \xff\n'), "", "is not UTF-8"),
    # paths
    ("path-absolute", lambda c: c.edit('changelog = "changelog.md"', 'changelog = "/etc/passwd"'), "changelog", "absolute paths are not allowed"),
    ("path-dotdot", lambda c: c.edit('changelog = "changelog.md"', 'changelog = "../v2/changelog.md"'), "changelog", "leaves the version folder"),
    ("path-backslash", lambda c: c.edit('changelog = "changelog.md"', 'changelog = "docs\\\\changelog.md"'), "changelog", "use `/` as the path separator"),
    ("path-symlink-outside", lambda c: (c.remove("changelog.md"), os.symlink("/etc/hostname", c.path("changelog.md"))), "changelog", "points outside the version folder"),
]


def _without_cases(text: str) -> str:
    head, _, rest = text.partition("[[case]]")
    _, _, tail = rest.partition("[sandbox]")
    return head + "[sandbox]" + tail


def _move_variants_to_end(catalog):
    line = 'variants = ["variants/base.toml", "variants/long-lists.toml"]\n'
    catalog.edit(line, "")
    text = catalog.read("test-case.toml")
    head, _, spec_tail = text.partition("[[spec]]")
    sandbox_head, _, _ = head.partition("[sandbox]")
    # Put it under [sandbox], where TOML files it as sandbox.variants.
    catalog.write("test-case.toml", head.replace("max_memory_bytes = 1_048_576\n", "max_memory_bytes = 1_048_576\n" + line) + "[[spec]]" + spec_tail)


def _move_variants_after_first_case(catalog):
    line = 'variants = ["variants/base.toml", "variants/long-lists.toml"]\n'
    catalog.edit(line, "")
    catalog.edit('kind = "smoke"\n', 'kind = "smoke"\n' + line)


@pytest.mark.parametrize("rule_id, mutate, key, fragment", RULES, ids=[rule[0] for rule in RULES])
def test_each_broken_rule_is_reported_with_file_and_key(catalog, rule_id, mutate, key, fragment):
    mutate(catalog)
    assert_error(catalog, key, fragment)


@pytest.mark.parametrize("table", sorted(FORBIDDEN_TABLES))
def test_forbidden_tables_are_errors_naming_the_table(catalog, table):
    header = "[[check]]" if table == "check" else f"[{table}]"
    catalog.append(f"\n{header}\nanything = 1\n")
    error = assert_error(catalog, table, "is not allowed in a performance case")
    assert header in error.message


def test_all_errors_of_a_manifest_are_reported_at_once(catalog):
    catalog.edit('slug = "adder"', 'slug = "Bad Slug"')
    catalog.edit("fuel_runway = 1.15", "fuel_runway = 0.5")
    catalog.edit("fuel_limit = 1_000_000", "fuel_limit = -1")
    catalog.remove("changelog.md")
    keys = {error.key for error in catalog.scan().errors if error.file == MANIFEST}
    assert {"slug", "case[1].fuel_runway", "sandbox.fuel_limit", "changelog"} <= keys


# --- variant files -----------------------------------------------------------------------------

VARIANT_FILE = f"{ADDER_V1}/variants/long-lists.toml"

VARIANT_RULES = [
    ("variant-slug-missing", 'spec = ["specs/long-lists.md"]\n', "slug", "required key is missing"),
    ("variant-slug-pattern", 'slug = "Long Lists"\n', "slug", "must match"),
    ("variant-slug-trailing-newline", 'slug = "long-lists\\n"\n', "slug", "must match"),
    ("variant-unknown-key", 'slug = "long-lists"\nspecs = []\n', "specs", "unknown key (did you mean `spec`?)"),
    ("variant-name-empty", 'slug = "long-lists"\nname = ""\n', "name", "must not be empty"),
    ("variant-spec-not-array", 'slug = "long-lists"\nspec = "specs/long-lists.md"\n', "spec", "must be an array"),
    ("variant-spec-missing-file", 'slug = "long-lists"\nspec = ["specs/nope.md"]\n', "spec[0].source", "`specs/nope.md` does not exist"),
    ("variant-spec-item-type", 'slug = "long-lists"\nspec = [3]\n', "spec[0]", "must be a path or a table {source, dest}"),
    ("variant-spec-clash-with-common", 'slug = "long-lists"\nspec = [{source = "specs/long-lists.md", dest = "specs/rules.md"}]\n', "spec[0].dest", "already used by spec[0]"),
    ("variant-toml-syntax", 'slug = "long-lists\n', "line 1, column 19", "TOML syntax error"),
]


@pytest.mark.parametrize("rule_id, text, key, fragment", VARIANT_RULES, ids=[rule[0] for rule in VARIANT_RULES])
def test_variant_file_rules(catalog, rule_id, text, key, fragment):
    catalog.write("variants/long-lists.toml", text)
    assert_error(catalog, key, fragment, file=VARIANT_FILE)


def test_variant_specs_accept_tables_and_plain_paths(catalog):
    catalog.write(
        "variants/long-lists.toml",
        'slug = "long-lists"\nname = "Long"\nspec = ["specs/long-lists.md", {source = "specs/rules.md", dest = "extra/rules.md"}]\n',
    )
    catalog.write("specs/rules.md", "# Rules\n")
    source = next(s for s in catalog.scan().versions if s.label == ADDER_V1)
    variant = source.manifest.variants[1]
    assert variant.name == "Long"
    assert [(spec.source, spec.dest) for spec in variant.specs] == [
        ("specs/long-lists.md", "specs/long-lists.md"),
        ("specs/rules.md", "extra/rules.md"),
    ]


# --- defaults ----------------------------------------------------------------------------------


def _adder(catalog):
    scan = catalog.scan()
    assert scan.errors == []
    return next(source for source in scan.versions if source.label == ADDER_V1).manifest


def test_defaults_of_optional_keys(catalog):
    catalog.edit("max_runtime_hours = 0.5\n", "")
    catalog.edit('variants = ["variants/base.toml", "variants/long-lists.toml"]\n', "")
    manifest = _adder(catalog)
    assert manifest.experimental is False
    assert manifest.max_runtime_hours == Decimal(1)
    assert manifest.variants == (Variant(slug="base", name="Base"),)
    assert manifest.cases[0].kind == "smoke"
    assert manifest.cases[2].kind == "stress"  # kind defaults to stress
    assert manifest.cases[2].fuel_runway == Decimal("1.0")
    assert manifest.cases[1].fuel_runway == Decimal("1.15")


def test_spec_dest_defaults_to_source_without_hbs(catalog):
    manifest = _adder(catalog)
    assert [(spec.source, spec.dest) for spec in manifest.specs] == [
        ("specs/rules.md", "specs/rules.md"),
        ("specs/limits.md.hbs", "specs/limits.md"),
    ]


def test_variant_name_defaults_to_the_humanized_slug(catalog):
    manifest = _adder(catalog)
    assert [(variant.slug, variant.name) for variant in manifest.variants] == [("base", "Base"), ("long-lists", "Long lists")]
    assert humanize_slug("long-belts") == "Long belts"


def test_domains_and_review_items_are_stored_as_given(catalog):
    manifest = _adder(catalog)
    assert manifest.domains == ({"name": "efficiency", "weight": 1.5},)
    catalog.edit("weight = 1.5", "weight = 1e400\nmissing = nan")
    assert _adder(catalog).domains == ({"name": "efficiency", "weight": "1E+400", "missing": "NaN"},)
    assert manifest.review_items == ({"prompt": "Is the loop tight?"},)


def test_fuel_ceiling_is_exact_decimal_arithmetic():
    assert fuel_ceiling(100, Decimal("1.15")) == 115  # float arithmetic gives 114
    assert fuel_ceiling(5_000_000_000, Decimal("10.0")) == 50_000_000_000
    assert fuel_ceiling(3, Decimal("1.5")) == 4  # floor(4.5)
    assert fuel_ceiling(9_223_372_036_854_775_807, Decimal(1)) == 9_223_372_036_854_775_807


# --- folder structure and cross-version rules --------------------------------------------------


def test_slug_must_be_the_same_for_every_version_of_a_folder(catalog):
    catalog.edit('slug = "adder"', 'slug = "adder-two"', label="performance/easy/adder/v10")
    assert_error(catalog, "slug", "differs from the slug of this folder's first version",
                 file="performance/easy/adder/v10/test-case.toml", label="performance/easy/adder/v10")


def test_slug_must_be_unique_across_folders(catalog):
    catalog.edit('slug = "counter"', 'slug = "adder"', label="performance/medium/counter/1.0")
    assert_error(catalog, "slug", "is already the slug of folder `performance/easy/adder`",
                 file="performance/medium/counter/1.0/test-case.toml", label="performance/medium/counter/1.0")


def test_version_folder_names_must_match_the_pattern(catalog):
    os.rename(catalog.root / "performance/easy/adder/v2", catalog.root / "performance/easy/adder/v 2")
    errors = catalog.errors()
    assert "performance/easy/adder/v 2: version folder name must match ^[A-Za-z0-9][A-Za-z0-9._-]*$" in errors


def test_leaderboard_is_not_a_version_name(catalog):
    os.rename(catalog.root / "performance/easy/adder/v2", catalog.root / "performance/easy/adder/leaderboard")
    assert "performance/easy/adder/leaderboard: `leaderboard` is reserved and cannot name a version" in catalog.errors()


def test_a_version_folder_needs_a_manifest(catalog):
    catalog.remove("test-case.toml")
    assert f"{ADDER_V1}: version folder has no test-case.toml" in catalog.errors()


def test_difficulty_folders_must_be_known(catalog):
    (catalog.root / "performance/extreme/thing/v1").mkdir(parents=True)
    assert any(error.startswith("performance/extreme: `extreme` is not a difficulty folder") for error in catalog.errors())


def test_other_test_types_are_refused_by_name(catalog):
    target = catalog.root / "adversarial/hard/duel/v1"
    target.mkdir(parents=True)
    (target / "test-case.toml").write_text('slug = "duel"\ntype = "adversarial"\ndifficulty = "hard"\n[match]\nrounds = 3\n')
    errors = catalog.errors()
    assert "adversarial/hard/duel/v1/test-case.toml: type: test type `adversarial` is not importable: only `performance` cases can be imported" in errors
    # Its own tables are not reported against performance rules.
    assert not any("duel" in error and "[match]" in error for error in errors)


def test_a_symlink_anywhere_in_the_folder_that_leaves_it_is_an_error(catalog):
    os.symlink("/etc", catalog.path("specs/etc-link"))
    os.symlink("/etc/hostname", catalog.path("specs/hostname"))
    errors = catalog.errors()
    assert f"{ADDER_V1}/specs/etc-link: symlink points outside the version folder" in errors
    assert f"{ADDER_V1}/specs/hostname: symlink points outside the version folder" in errors


def test_huge_files_are_refused_without_being_read(catalog):
    from catalog.manifest import FileLimits, scan_catalog

    with open(catalog.path("cases/huge.bin"), "wb") as sparse:
        sparse.truncate(300 << 20)  # a 300 MiB sparse file: cheap to make, costly to read
    scan = scan_catalog(catalog.root, limits=FileLimits(max_file_bytes=256 << 20))
    assert f"{ADDER_V1}/cases/huge.bin: is 314,572,800 bytes, more than the 268,435,456-byte limit for one file" in map(str, scan.errors)
    assert ADDER_V1 not in {source.label for source in scan.versions}


def test_a_version_folder_over_the_total_or_count_caps_is_refused(catalog):
    from catalog.manifest import FileLimits, scan_catalog

    errors = [str(e) for e in scan_catalog(catalog.root, limits=FileLimits(max_version_bytes=1_000)).errors]
    assert any("the version folder holds more than 1,000 bytes" in error for error in errors)
    errors = [str(e) for e in scan_catalog(catalog.root, limits=FileLimits(max_files=5)).errors]
    assert any("the version folder holds more than 5 files" in error for error in errors)


def test_a_symlink_inside_the_folder_is_fine(catalog):
    os.symlink("rules.md", catalog.path("specs/rules-link.md"))
    catalog.edit('source = "specs/rules.md"', 'source = "specs/rules-link.md"')
    assert catalog.errors() == []


def test_a_missing_catalog_folder_is_an_error(tmp_path):
    from catalog.manifest import scan_catalog

    scan = scan_catalog(tmp_path / "nowhere")
    assert [str(error) for error in scan.errors] == [f"{tmp_path / 'nowhere'}: catalog folder does not exist"]


# --- versions ----------------------------------------------------------------------------------


def test_versions_sort_naturally():
    def natural(versions):
        return sorted(versions, key=version_sort_key)

    assert natural(["v10", "v2", "v1"]) == ["v1", "v2", "v10"]
    assert natural(["1.10", "1.9", "1.2.3", "2.0"]) == ["1.2.3", "1.9", "1.10", "2.0"]
    assert natural(["v1-rc", "v1", "v01"])[-1] == "v1-rc"


def test_digest_covers_paths_and_bytes(catalog):
    before = {source.label: source.digest for source in catalog.scan().versions}
    assert before["performance/easy/adder/v1"] == before["performance/easy/adder/v10"]  # same bytes
    catalog.write("specs/rules.md", "# Rules\n\nReturn the sum!\n")
    after = {source.label: source.digest for source in catalog.scan().versions}
    assert after[ADDER_V1] != before[ADDER_V1]
    os.rename(catalog.path("specs/long-lists.md"), catalog.path("specs/long.md"))
    catalog.edit('spec = ["specs/long-lists.md"]', 'spec = ["specs/long.md"]', rel="variants/long-lists.toml")
    renamed = {source.label: source.digest for source in catalog.scan().versions}
    assert renamed[ADDER_V1] not in (before[ADDER_V1], after[ADDER_V1])


# --- names that cannot be stored are errors, never a failed import -------------------------------


def test_a_file_name_that_is_not_utf8_is_an_error_naming_the_file(catalog):
    bad = os.fsencode(catalog.path("specs")) + b"/caf\xe9.md"
    with open(bad, "wb") as stream:
        stream.write(b"# notes\n")
    error = assert_error(catalog, "", "file name is not valid UTF-8", file=f"{ADDER_V1}/specs/caf\\xe9.md")
    assert str(error) == f"{ADDER_V1}/specs/caf\\xe9.md: file name is not valid UTF-8"


def test_a_file_name_with_control_characters_is_an_error(catalog):
    catalog.write("specs/line\nbreak.md", "# notes\n")
    assert_error(catalog, "", "file name contains control characters", file=f"{ADDER_V1}/specs/line\\x0abreak.md")


def test_a_workspace_file_name_with_a_backslash_is_an_error(catalog):
    """A Windows extractor would read it as a path climbing out of the kit's folder."""
    catalog.write("workspaces/base/..\\..\\..\\..\\evil.bat", "echo owned\n")
    assert_error(catalog, "", "file name contains a backslash",
                 file=f"{ADDER_V1}/workspaces/base/..\\..\\..\\..\\evil.bat")


def test_a_version_folder_name_with_a_trailing_newline_is_an_error(catalog):
    import shutil

    shutil.copytree(catalog.root / ADDER_V1, catalog.root / "performance/easy/adder/v3\n")
    messages = [str(error) for error in catalog.scan().errors]
    assert any(message.startswith("performance/easy/adder/v3\\x0a") for message in messages), messages


def test_a_case_folder_name_that_is_not_utf8_is_an_error(catalog):
    import shutil

    target = os.fsencode(catalog.root / "performance/easy") + b"/add\xff"
    shutil.copytree(os.fsencode(catalog.root / ADDER_V1), target + b"/v1")
    scan = catalog.scan()
    assert "performance/easy/add\\xff: folder name is not valid UTF-8" in [str(error) for error in scan.errors]


def test_a_version_folder_name_longer_than_the_database_stores_is_an_error(catalog):
    import shutil

    long_name = "v" + "1" * 120
    shutil.copytree(catalog.root / ADDER_V1, catalog.root / f"performance/easy/adder/{long_name}")
    assert f"performance/easy/adder/{long_name}: version folder name must be at most 100 characters" in catalog.errors()


def test_a_symlink_loop_is_an_error_not_a_traceback(catalog):
    os.symlink("b", catalog.path("a"))
    os.symlink("a", catalog.path("b"))
    assert_error(catalog, "", "symlink loops or cannot be resolved", file=f"{ADDER_V1}/a")


DISTINCT_INPUT = '{"numbers": [48151623, 42, 7, 99]}\n'


def test_no_version_may_seed_what_another_version_holds_out(catalog):
    catalog.write("cases/large.json", DISTINCT_INPUT)  # v1's own held-out input
    catalog.write("workspaces/base/sample.json", DISTINCT_INPUT, label="performance/easy/adder/v10")
    error = assert_error(catalog, "workspace", "has the content of a held-out file of `performance/easy/adder/v1`",
                         file="performance/easy/adder/v10/test-case.toml", label="performance/easy/adder/v10")
    assert "`workspaces/base/sample.json`" in error.message
    assert ADDER_V1 in {source.label for source in catalog.scan().versions}  # v1 itself is fine


def test_no_new_version_may_seed_what_an_imported_version_holds_out(catalog, db):
    import shutil

    from catalog.importer import import_catalog

    catalog.write("cases/large.json", DISTINCT_INPUT)
    assert import_catalog(catalog.root).ok
    new = "performance/easy/adder/v11"
    shutil.copytree(catalog.root / "performance/easy/adder/v10", catalog.root / new)
    catalog.write("workspaces/base/sample.json", DISTINCT_INPUT, label=new)
    shutil.rmtree(catalog.root / ADDER_V1)  # gone from the folder, still published
    outcome = import_catalog(catalog.root)
    refused = next(result for result in outcome.results if result.label == new)
    assert refused.action == "refused"
    assert any(f"has the content of a held-out file of `{ADDER_V1}`" in reason for reason in refused.reasons)


# --- names the site's template context lacks: warnings, never refusals ------------------------------


def test_names_the_site_lacks_are_warnings_and_the_version_still_validates(catalog):
    catalog.write("prompt.hbs", "Hi {{name}},\nmodel: {{harness_model}}\ncase: {{case.nmae}}\n")
    scan = catalog.scan()
    assert ADDER_V1 in {source.label for source in scan.versions}
    messages = [str(warning) for warning in scan.warnings_for(ADDER_V1)]
    assert f"{MANIFEST}: prompt: `prompt.hbs` line 1: `name` names nothing in the site's template context and renders as nothing" in messages[0]
    assert any("line 2: `harness_model` names nothing" in message for message in messages)
    assert any("line 3: `case.nmae`" in message and "(did you mean `case.name`?)" in message for message in messages)
    assert not any("nmae" in str(error) for error in scan.errors)


def test_paths_are_normalised_once_by_the_reader(catalog):
    """A manifest may spell a path `./specs/../specs/rules.md`; every reader after the manifest
    sees its one spelling."""
    catalog.edit('prompt = "prompt.hbs"', 'prompt = "./specs/../prompt.hbs"')
    scan = catalog.scan()
    assert scan.errors == []
    source = next(source for source in scan.versions if source.label == ADDER_V1)
    assert source.manifest.prompt == "prompt.hbs"
