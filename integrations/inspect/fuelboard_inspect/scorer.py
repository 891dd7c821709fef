"""The scorer: build the agent's final workspace in the sample's sandbox with the case's build
command, then meter it on the public samples with the kit's meter, and/or submit it to the site
and read back what the site measured. Every failure is a score of 0 that says why."""

from __future__ import annotations

import json
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox, subprocess

from fuelboard_inspect.site import Site, SiteError


class Failed(Exception):
    """The reason an entry scores 0."""


def _inspect_version() -> str:
    try:
        return version("inspect-ai")
    except PackageNotFoundError:
        return ""


def run_record(state: TaskState) -> dict:
    """The run fields inspect knows of: the model, the harness and its version, the tokens."""
    record = {"model": str(state.model)[:100], "harness": "inspect-ai", "inspect_version": _inspect_version()}
    usage = getattr(state.output, "usage", None)
    if usage is not None:
        record["input_tokens"], record["output_tokens"] = int(usage.input_tokens), int(usage.output_tokens)
    return {key: value for key, value in record.items() if value not in ("", None)}


async def build(contract: dict, build_path: str | None) -> bytes:
    """Build the sandbox's workspace with the case's commands; the module's bytes. Raises Failed."""
    command = " && ".join(part for part in (contract["build_install"], contract["build_command"]) if part)
    env = {"CARGO_NET_OFFLINE": "true", **({"PATH": build_path} if build_path else {})}
    try:
        done = await sandbox().exec(["sh", "-c", command], env=env, timeout=int(contract["build_seconds"]))
    except TimeoutError:
        raise Failed(f"the build did not finish within {contract['build_seconds']:g} s") from None
    if not done.success:
        raise Failed(f"the build failed (status {done.returncode}): {(done.stderr or done.stdout).strip()[-500:]}")
    try:
        return await sandbox().read_file(contract["build_module"], text=False)
    except FileNotFoundError:
        raise Failed(f"the build left no module at {contract['build_module']}") from None


async def meter_samples(kit: Path, contract: dict, module: bytes) -> dict:
    """The kit's meter on the public samples (`python3 meter check --no-build --json`), here."""
    with tempfile.TemporaryDirectory(prefix="fuelboard-meter-") as folder:
        target = Path(folder) / contract["build_module"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(module)
        done = await subprocess([sys.executable, str(kit / "meter"), "check", folder, "--no-build", "--json"],
                                cwd=str(kit), timeout=600)
    if not done.stdout.strip():
        raise Failed(f"the meter refused the module: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


async def packed_workspace() -> bytes:
    """The workspace as a .tar.gz (its build products left out), as a harness uploads it; packed
    beside it, in the sandbox's temporary folder (never inside what is being read)."""
    done = await sandbox().exec(["sh", "-c", 'packed=$(mktemp) && tar -czf "$packed" --exclude=./target . && '
                                              'echo "$packed"'])
    if not done.success:
        raise Failed(f"the workspace could not be packed: {done.stderr.strip()[-300:]}")
    packed = done.stdout.strip()
    try:
        return await sandbox().read_file(packed, text=False)
    finally:
        await sandbox().exec(["rm", "-f", packed])


@scorer(metrics=[mean()])
def fuel_scorer(site: Site, *, meter: bool = True, submit: bool = False, name: str = "inspect-agent",
                build_path: str | None = None, wait_seconds: float = 900.0):
    """1 when the entry passed (every public sample; with `submit`, the site's held-out inputs),
    0 otherwise, with the reason; fuel, speedup and the entry's URL in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        facts = state.metadata
        kit = Path(facts["kit"])
        contract = json.loads((kit / "meter" / "contract.json").read_text("utf-8"))
        metadata: dict = {"case": facts["case"], "version": facts["version"], "variant": facts["variant"]}
        try:
            module = await build(contract, build_path)
            passed, reason = True, "passed"
            if meter:
                results = (await meter_samples(kit, contract, module))["results"]
                metadata["samples"] = {row["input"]: {"status": row["status"], "fuel": row["fuel"]} for row in results}
                failed = [row for row in results if row["status"] != "passed"]
                if failed:
                    passed = False
                    reason = f"{failed[0]['input']}: {failed[0]['status']} {failed[0].get('message', '')}".strip()
            if submit:  # the site's verdict is the score, whatever the samples said
                entry = site.submit(case=facts["case"], version=facts["version"], variant=facts["variant"],
                                    name=name, source=await packed_workspace(), run=run_record(state))
                final = site.wait(entry["submission"], wait_seconds)
                metadata.update({"submission": final["submission"], "url": final["url"],
                                 "status": final["status"], "total_fuel": final["total_fuel"],
                                 "speedup": _speedup(site, final)})
                passed = bool(final["passed"])
                reason = (f"passed, {final['total_fuel']:,} fuel" if passed else
                          f"not passed on the site ({final['status']}): {final.get('message') or _first(final)}")
            return Score(value=1.0 if passed else 0.0, answer=metadata.get("url", ""), metadata=metadata,
                         explanation=reason)
        except (Failed, SiteError) as reason:
            return Score(value=0.0, explanation=str(reason), metadata=metadata)

    return score


def _first(document: dict) -> str:
    """The first input that did not pass, as the entry's document says it."""
    row = next((row for row in document.get("results", []) if row["status"] != "passed"), None)
    return f"{row['input']} {row['status']}" if row else "not every input passed"


def _speedup(site: Site, document: dict) -> float | None:
    """The entry's speedup against its version's reference, as its leaderboard row says it."""
    try:
        board = site._get(f"/api/v1/cases/{document['case']}/leaderboard/", version=document["version"], all=1,
                          page_size=200).json()
    except SiteError:
        return None
    return next((row["speedup"] for row in board["results"] if row["submission"] == document["submission"]), None)
