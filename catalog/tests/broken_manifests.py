"""Broken copies of the valid test catalog, one rule each (the mutation, the key and the words the
error must have), and how hard the fuzzed manifests are tried."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

from catalog.tests.trees import ADDER_V1

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
    ("case-input-key-twice", lambda c: c.write("cases/small.json", '{"numbers": [1], "numbers": [2]}'), "case[1].input", "gives the same key twice"),
    ("case-expected-key-twice", lambda c: c.write("smoke/one.out", '{"sum": 7, "sum": 6}'), "case[0].expected", "gives the same key twice"),
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


FUZZ_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
