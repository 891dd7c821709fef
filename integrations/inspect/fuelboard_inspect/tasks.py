"""A Fuelboard site's catalog as inspect-ai tasks.

One sample per shown case version and variant: its input the prompt exactly as the site renders
it, its files the run root exactly as the site's kit lays it out (`seed_run`), placed in the
sample's sandbox. The agent is inspect's `react` with a shell and a text editor in the sandbox,
unless the harness's user brings their own (`--solver`, or `eval(…, solver=…)`). The scorer then builds
the final workspace with the case's build command, in the sandbox, and as the user chooses meters
it on the public samples with the kit's own meter (no site needed), and/or submits it to the site
with an operator's token and a run record filled from inspect's own record of the run, waits for
its final status, and scores it: 1 when it passed (every sample, or on the site every held-out
input within the pass line), else 0, with the fuel, the speedup against the reference and the
entry's URL in the score's metadata. Whatever goes wrong (the build, the token, a quota, the site)
is a score of 0 with the reason, never a failed eval.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
from datetime import date
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.agent import react
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.tool import bash, text_editor

from fuelboard_inspect.scorer import fuel_scorer
from fuelboard_inspect.site import Kit, Site

CACHE = Path(tempfile.gettempdir()) / "fuelboard-inspect"


def _data_uri(content: bytes) -> str:
    """A file's exact bytes, as inspect takes them (never read as a path)."""
    return "data:application/octet-stream;base64," + base64.b64encode(content).decode("ascii")


def catalog_kits(site: Site, *, case: str | list[str] | None = None, difficulty: str | None = None,
                 tag: str | None = None, since: str | None = None, variant: str | None = None,
                 cache: Path = CACHE) -> list[Kit]:
    """The kits of every shown case's latest version (each variant, or the one named), filtered."""
    wanted = {case} if isinstance(case, str) else set(case or ())
    first = date.fromisoformat(since) if since else None
    kits = []
    for summary in site.cases(difficulty=difficulty, tag=tag):
        if wanted and summary["slug"] not in wanted:
            continue
        published = summary.get("first_published_at", "")
        if first and date.fromisoformat(published[:10]) < first:
            continue
        detail = site.case(summary["slug"])
        for found in detail["variants"]:
            if variant and found["slug"] != variant:
                continue
            key = hashlib.sha256(found["kit_url"].encode()).hexdigest()[:16]
            folder = cache / f"{detail['slug']}-{detail['version']}-{found['slug']}-{key}"
            if not (folder / "meter" / "contract.json").is_file():
                site.kit(found["kit_url"], folder)
            kits.append(Kit(detail["slug"], detail["version"], found["slug"], folder, published))
    return kits


def sample_of(kit: Kit) -> Sample:
    return Sample(id=f"{kit.case}-{kit.version}-{kit.variant}", input=kit.prompt,
                  files={path: _data_uri(content) for path, content in kit.run_files.items()},
                  metadata={"case": kit.case, "version": kit.version, "variant": kit.variant,
                            "kit": str(kit.folder), "first_published_at": kit.first_published_at})


@task
def fuelboard(site: str = "http://127.0.0.1:8000", case: str | list[str] | None = None,
              difficulty: str | None = None, tag: str | None = None, since: str | None = None,
              variant: str | None = None, token: str | None = None, name: str = "inspect-agent",
              meter: bool = True, submit: bool | None = None, build_path: str | None = None,
              wait_seconds: float = 900.0, sandbox: str = "local", message_limit: int = 200,
              command_seconds: int = 600) -> Task:
    """The catalog of the Fuelboard site at `site` (filtered by `case`, `difficulty`, `tag`,
    `since` — cases first published on or after that date — and `variant`). `meter`: meter the
    built workspace on the public samples here; `submit` (default: when a `token` is given): send
    it to the site as `name`'s entry and score what the site measured. `build_path`: the PATH the
    build runs with in the sandbox (where the case's compiler is). `message_limit`: the default
    agent's messages per sample; `command_seconds`: the longest one of its shell commands may run."""
    client = Site(site, token)
    kits = catalog_kits(client, case=case, difficulty=difficulty, tag=tag, since=since, variant=variant)
    if not kits:
        raise ValueError(f"{site} shows no case that matches the filters")
    return Task(dataset=MemoryDataset([sample_of(kit) for kit in kits], name="fuelboard"),
                solver=react(tools=[bash(timeout=command_seconds), text_editor(timeout=command_seconds)]),
                message_limit=message_limit,
                scorer=fuel_scorer(client, meter=meter, submit=bool(token) if submit is None else submit,
                                   name=name, build_path=build_path, wait_seconds=wait_seconds),
                sandbox=sandbox)
