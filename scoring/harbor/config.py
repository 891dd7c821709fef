"""A task's `task.toml`: Harbor's configuration of it (harbor.models.task.config.TaskConfig).

[metadata] names the case as the site does; the agent has the case's max runtime; the verifier
runs in a container of its own (a fresh one of the task's image, the agent's workspace put back
in it as an artifact) and has time for the workspace's build and the samples, then for the
site's build, its held-out inputs and its queue; its environment passes the site and its token
on from the machine Harbor runs on (Harbor reads `${VAR:-default}` there).
"""

from __future__ import annotations

import json

from django.conf import settings
from django.urls import reverse

from catalog.kits import limits_of
from catalog.models import CaseVersion, Variant
from catalog.samples import version_samples
from engine.builds.packing import EXCLUDED_DIRECTORIES
from lib.siteurl import site_url
from scoring.harbor.contents import WORKSPACE

SCHEMA_VERSION = "1.4"  # the task format version the pinned Harbor writes (requirements-harbor.txt)
ORGANISATION = "fuelboard"  # Harbor's task names are <organisation>/<name>
CPUS = 2  # one for the agent's tools, one for a build beside them
STORAGE_MB = 10240  # the toolchain, the standard library's build and a workspace's target/
IMAGE_BUILD_SECONDS = 1800.0  # apt, the wasm32 standard library (a few minutes on two cores), the meter's packages
QUEUE_SECONDS = 300.0  # what an entry may wait on the site before its build starts


def toml_value(value) -> str:
    """A TOML value: strings as basic strings (JSON's escapes are TOML's, DEL aside), numbers,
    lists and inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + " }"
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def table(name: str, values: dict) -> str:
    return f"[{name}]\n" + "".join(f"{key} = {toml_value(value)}\n" for key, value in values.items())


def verifier_seconds(version: CaseVersion) -> float:
    """The build and the samples here, then the site's build and every held-out input, and the queue."""
    limits = limits_of(version)
    here = limits.build_seconds + limits.wall_seconds * len(version_samples(version))
    site = limits.build_seconds + limits.wall_seconds * version.held_out_inputs.count()
    return float(here + site + QUEUE_SECONDS)


def task_toml(version: CaseVersion, variant: Variant, name: str) -> str:
    case_url = site_url(reverse("case-version", args=[version.case.slug, version.version]))
    sections = [
        f"schema_version = {toml_value(SCHEMA_VERSION)}\n"
        # The agent's workspace, collected when it stops and put back at its place in the verifier's
        # own container, a fresh one of the same image: nothing the agent did there changes the check.
        f"artifacts = {toml_value([{'source': WORKSPACE, 'exclude': sorted(EXCLUDED_DIRECTORIES)}])}\n",
        table("task", {"name": f"{ORGANISATION}/{name}", "description": version.summary,
                       "keywords": list(version.tag_names)}),
        table("metadata", {"case": version.case.slug, "name": version.name, "version": version.version,
                           "variant": variant.slug, "variant_name": variant.name, "difficulty": version.difficulty,
                           "category": version.type, "tags": list(version.tag_names), "url": case_url}),
        table("verifier", {"timeout_sec": verifier_seconds(version), "environment_mode": "separate"}),
        table("verifier.env", {
            "FUELBOARD_URL": f"${{FUELBOARD_URL:-{settings.SITE_URL}}}",
            "FUELBOARD_TOKEN": "${FUELBOARD_TOKEN:-}",
            "FUELBOARD_NAME": "${FUELBOARD_NAME:-harbor}",
            "FUELBOARD_MODEL": "${FUELBOARD_MODEL:-}",
        }),
        table("agent", {"timeout_sec": version.max_runtime_seconds}),
        # The memory the site gives one build (all its processes together).
        table("environment", {"build_timeout_sec": IMAGE_BUILD_SECONDS, "cpus": CPUS,
                              "memory_mb": settings.SCORING_BUILD_TOTAL_MEMORY_BYTES >> 20,
                              "storage_mb": STORAGE_MB}),
    ]
    return "\n".join(sections)
