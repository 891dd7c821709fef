"""What a `.hbs` prompt or spec sees when it is rendered for one variant of a version."""

from __future__ import annotations

from typing import Any

from catalog.manifest.types import Build, Contract, Manifest, Sandbox, SpecFile, Variant


def template_context(*, slug: str, name: str, version: str, difficulty: str, tags: list[str] | tuple[str, ...],
                     summary: str, variant: Variant, build: Build, contract: Contract, sandbox: Sandbox,
                     specs: list[SpecFile] | tuple[SpecFile, ...]) -> dict[str, Any]:
    """What a `.hbs` prompt or spec sees when it is rendered for one variant of a version.

    `specs` lists every spec seeded into the run: the common ones, then the variant's.
    """
    return {
        "case": {"slug": slug, "name": name, "version": version, "difficulty": difficulty,
                 "tags": list(tags), "summary": summary},
        "variant": {"slug": variant.slug, "name": variant.name},
        "build": {"install": build.install or "", "build": build.build, "module": build.module},
        "contract": {"entry": contract.entry, "input": contract.input, "output": contract.output},
        "sandbox": {"fuel_limit": sandbox.fuel_limit, "max_memory_bytes": sandbox.max_memory_bytes},
        "specs": [{"source": spec.source, "dest": spec.dest} for spec in [*specs, *variant.specs]],
    }


def context_names(context: Any, prefix: str = "") -> list[str]:
    """Every name a template can use in `context`: dotted paths, and the keys of list items."""
    names: list[str] = []
    if isinstance(context, dict):
        for key, value in context.items():
            path = f"{prefix}.{key}" if prefix else key
            names.append(path)
            names += context_names(value, path)
    elif isinstance(context, list):
        for item in context[:1]:
            names += context_names(item, "")
    return names


def manifest_template_context(manifest: Manifest, variant: Variant, version: str) -> dict[str, Any]:
    return template_context(
        slug=manifest.slug, name=manifest.name, version=version, difficulty=manifest.difficulty,
        tags=manifest.tags, summary=manifest.summary, variant=variant, build=manifest.build,
        contract=manifest.contract, sandbox=manifest.sandbox, specs=manifest.specs,
    )

