"""The Handlebars subset used for prompts and templated specs."""

from __future__ import annotations

import pytest

from lib.templates import TemplateError, render_template

CONTEXT = {
    "case": {"name": "Lattice <3", "tags": ["a", "b"]},
    "variant": {"slug": "base", "name": "Base"},
    "specs": [{"dest": "specs/rules.md"}, {"dest": "specs/limits.md"}],
    "zero": 0,
    "empty": [],
    "blank": "",
}


def render(template: str) -> str:
    return render_template(template.encode(), CONTEXT)


@pytest.mark.parametrize(
    "template, expected",
    [
        ("{{case.name}}", "Lattice &lt;3"),  # escaped, as Handlebars does
        ("{{{case.name}}} {{& case.name}}", "Lattice <3 Lattice <3"),
        ("{{#each specs}}\n- {{this.dest}}\n{{/each}}\n", "- specs/rules.md\n- specs/limits.md\n"),
        ("Specs:\n{{#each specs}}\n- {{dest}}\n{{/each}}\nEnd\n", "Specs:\n- specs/rules.md\n- specs/limits.md\nEnd\n"),
        ("{{#each case.tags}}{{@index}}={{this}}{{#unless @last}}, {{/unless}}{{/each}}", "0=a, 1=b"),
        ("{{#each specs}}{{../variant.name}}:{{dest}} {{/each}}", "Base:specs/rules.md Base:specs/limits.md "),
        ("{{#if zero}}yes{{else}}no{{/if}}|{{#if empty}}yes{{else}}no{{/if}}|{{#if blank}}y{{else}}n{{/if}}",
         "no|no|n"),
        ("  {{#if variant}}\n  kept\n  {{else}}\n  dropped\n  {{/if}}\n", "  kept\n"),  # standalone lines vanish
        ("{{#with variant}}{{name}} ({{slug}}){{/with}}", "Base (base)"),
        ("{{#variant}}[{{name}}]{{/variant}}{{^empty}}none{{/empty}}", "[Base]none"),
        ("a {{~! trimmed ~}} b", "ab"),
        ("{{!-- may hold }} --}}x", "x"),
        ('{"fuel": {{zero}} }', '{"fuel": 0 }'),
        ("{{@root.variant.slug}} {{specs.1.dest}}", "base specs/limits.md"),
        ("{{missing.value}}", ""),  # Handlebars renders nothing for a missing value
    ],
)
def test_rendering(template, expected):
    assert render(template) == expected


@pytest.mark.parametrize(
    "template, message",
    [
        ("{{#if x}}never closed", "line 1: `{{#if}}` is never closed"),
        ("a\n{{#if x}}\n{{/each}}", "line 3: `{{/each}}` closes `{{#if}}` (opened on line 2)"),
        ("{{/if}}", "`{{/if}}` closes no block"),
        ("{{else}}", "`{{else}}` outside a block"),
        ("{{> header}}", "partials (`{{> …}}`) are not supported"),
        ("{{uppercase case.name}}", "unknown helper `uppercase`"),
        ("{{#if}}x{{/if}}", "`{{#if}}` takes exactly one value"),
        ("{{#repeat 3}}x{{/repeat}}", "unknown block helper `repeat`"),
        # What Handlebars itself refuses, or what this renderer cannot reproduce exactly:
        ('{"fuel": {{zero}}}', "`}}}` closes a mustache opened with `{{`"),
        ("\\{{not a tag}}", "escaped mustaches"),
        ("{{specs.1}}", "is not a path"),
        ("{{#if a}}x{{else if b}}y{{/if}}", "`{{else …}}` chains are not supported"),
        ("{{log case}}", "unknown helper `log`"),
        ("{{lookup}}", "is a Handlebars helper"),
        ("{{{zero}}}", "is a number or a boolean"),
    ],
)
def test_syntax_errors_name_the_line(template, message):
    with pytest.raises(TemplateError) as refused:
        render(template)
    assert message in str(refused.value)


def test_names_the_context_lacks_are_collected_with_their_lines():
    missing: list = []
    assert render_template(b"ok\n{{case.nmae}}{{#if blank}}{{never}}{{/if}}{{zero}}", CONTEXT,
                           missing=missing) == "ok\n0"
    assert missing == [("case.nmae", 2)]  # present but falsy is fine; untaken branches are not read


def test_templates_must_be_utf8():
    with pytest.raises(TemplateError, match="is not UTF-8"):
        render_template(b"\xff{{x}}", {})
