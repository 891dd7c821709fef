"""A version's own programs, run as its author ships them: the input validator on every input and
the generator against its checksum list, in the build sandbox (they are the folder's code, and a
folder may come from anyone).

    validator/validate.py INPUT.json    exit 0 when the input is one the rules allow; else one
                                        line saying what is wrong, and another status
    generator/generate.py               writes the inputs and answers into the version folder
    generator/checksums.sha256          `sha256sum`'s lines (`<hex>  <path>`) for every file the
                                        generator writes

One sandbox run per version does both: the folder (as it was read, within its caps) is unpacked
there with a small runner, which runs the validator on every held-out input and public sample,
then copies the folder, removes every file the generator should write, runs it, and reports the
digest of each. What a run found is kept by the digest of the folder (and of the runner): a
folder checked before is not run again.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from catalog.samples import workspace_samples
from scoring import building
from scoring.workbench.folder import FolderVersion

VALIDATOR = "validator/validate.py"
GENERATOR = "generator/generate.py"
CHECKSUMS = "generator/checksums.sha256"
REPORT = ".fuelboard-check.json"
PLAN = ".fuelboard-plan.json"
RUNNER_NAME = ".fuelboard-check.py"
MESSAGE_CHARACTERS = 300
CHECKSUM_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)")

RUNNER = '''
import hashlib, json, shutil, subprocess, sys, tempfile
from pathlib import Path

plan = json.loads(Path("{plan}").read_text())
found = {{"validator": {{}}, "generated": None, "generator_error": None}}


def said(done):
    text = (done.stdout + done.stderr).decode("utf-8", "replace").strip()
    return text.splitlines()[-1][:{characters}] if text else ""


for rel in plan["validate"]:
    try:
        done = subprocess.run([sys.executable, "{validator}", rel], capture_output=True, timeout=plan["seconds"])
        found["validator"][rel] = [done.returncode, said(done)]
    except subprocess.TimeoutExpired:
        found["validator"][rel] = [-1, "it did not finish within %d s" % plan["seconds"]]
if plan["generate"] is not None:
    copy = Path(tempfile.mkdtemp()) / "version"
    shutil.copytree(".", copy, ignore=shutil.ignore_patterns(".fuelboard-*"))
    for rel in plan["generate"]:
        (copy / rel).unlink(missing_ok=True)
    try:
        done = subprocess.run([sys.executable, "{generator}"], cwd=copy, capture_output=True,
                              timeout=plan["seconds"])
        if done.returncode:
            found["generator_error"] = "it exited with status %d: %s" % (done.returncode, said(done))
    except subprocess.TimeoutExpired:
        found["generator_error"] = "it did not finish within %d s" % plan["seconds"]
    found["generated"] = {{rel: hashlib.sha256((copy / rel).read_bytes()).hexdigest()
                          if (copy / rel).is_file() else None for rel in plan["generate"]}}
Path("{report}").write_text(json.dumps(found))
'''.format(plan=PLAN, characters=MESSAGE_CHARACTERS, validator=VALIDATOR, generator=GENERATOR, report=REPORT)
RUNNER_DIGEST = hashlib.sha256(RUNNER.encode()).hexdigest()


@dataclass(frozen=True)
class _Job:
    """What a build reads of a version, for the runner."""

    max_runtime_seconds: float
    build_install: str = ""
    build_command: str = f"python3 -I {RUNNER_NAME}"
    build_module: str = REPORT


@dataclass
class Findings:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what only a new version can mend


class RunFailed(Exception):
    """The runner did not report: the message says why."""


def _samples(version: FolderVersion) -> list[tuple[str, str]]:
    """(input, answer) of each public sample, as paths in the version folder."""
    workspace = version.source.manifest.workspace
    if not workspace:
        return []
    prefix = "" if workspace in ("", ".") else workspace.rstrip("/") + "/"
    return [(prefix + sample.name, prefix + sample.name[:-len(".json")] + ".out")
            for sample in workspace_samples(workspace, dict(version.source.files))]


def checked_inputs(version: FolderVersion) -> list[str]:
    """Every input the validator must accept: the held-out ones and the public samples."""
    return [case.input for case in version.source.manifest.cases] + [rel for rel, _ in _samples(version)]


def generated_files(version: FolderVersion, listed: dict[str, str]) -> list[str]:
    """What the generator must write: what its checksum list names, else every held-out file and sample."""
    if listed:
        return sorted(listed)
    held_out = [rel for case in version.source.manifest.cases for rel in (case.input, case.expected)]
    return sorted(set(held_out + [rel for pair in _samples(version) for rel in pair]))


def read_checksums(version: FolderVersion, findings: Findings) -> dict[str, str]:
    files = dict(version.source.files)
    if CHECKSUMS not in files:
        return {}
    listed = {}
    for number, line in enumerate(files[CHECKSUMS].decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip():
            continue
        match = CHECKSUM_LINE.fullmatch(line.rstrip("\r"))
        rel = match.group(2) if match else ""
        if not match or rel.startswith("/") or ".." in rel.split("/") or "\\" in rel:
            findings.errors.append(f"{CHECKSUMS}, line {number}: not `<sha256>  <path inside the version folder>`")
            continue
        listed[rel.removeprefix("./")] = match.group(1)
    return listed


def check_folder(version: FolderVersion, *, generate: bool) -> Findings:
    """The validator on every input; with `generate`, the generator against its checksum list.
    Raises SandboxUnavailable when they cannot be run in the sandbox."""
    findings = Findings()
    files = dict(version.source.files)
    has_validator, has_generator = VALIDATOR in files, GENERATOR in files
    listed = read_checksums(version, findings)
    if not has_validator:
        findings.warnings.append(f"no input validator ({VALIDATOR}): nothing checks what the input schema cannot say")
    if generate and not has_generator:
        findings.warnings.append(f"no generator ({GENERATOR}): nothing shows how the inputs and answers were made")
    elif generate and CHECKSUMS not in files:
        findings.warnings.append(f"no checksum list ({CHECKSUMS}): nothing shows that the generator reproduces "
                                 "the inputs and answers")
    expected = generated_files(version, listed)
    plan = {"validate": checked_inputs(version) if has_validator else [],
            "generate": expected if generate and has_generator else None,
            "seconds": int(min(settings.SCORING_BUILD_TIMEOUT, 600))}
    if plan["validate"] or plan["generate"] is not None:
        try:
            found = _run(version, plan)
        except RunFailed as failed:
            findings.errors.append(str(failed))
            return findings
        for rel, (status, message) in sorted(found["validator"].items()):
            if status != 0:
                findings.errors.append(f"{rel}: the input validator refuses it: {message or f'status {status}'}")
        if found["generated"] is not None:
            _compare(found, files, listed, findings)
    if generate and listed:
        unlisted = sorted(set(generated_files(version, {})) - set(listed))
        if unlisted:
            findings.warnings.append(f"{CHECKSUMS} does not list {', '.join(unlisted[:3])}"
                                     + (f" and {len(unlisted) - 3} more" if len(unlisted) > 3 else "")
                                     + ": nothing shows that the generator writes them")
    return findings


def _compare(found: dict, files: dict[str, bytes], listed: dict[str, str], findings: Findings) -> None:
    if found["generator_error"]:
        findings.errors.append(f"{GENERATOR} failed: {found['generator_error']}")
        return
    for rel, digest in sorted(found["generated"].items()):
        have = hashlib.sha256(files[rel]).hexdigest() if rel in files else None
        if digest is None:
            findings.errors.append(f"re-running {GENERATOR} did not write {rel}")
        elif rel in listed and digest != listed[rel]:
            findings.errors.append(f"re-running {GENERATOR} gives other bytes for {rel} than {CHECKSUMS} lists")
        elif digest != have:
            findings.errors.append(f"re-running {GENERATOR} gives other bytes for {rel} than the version folder holds")
        if rel in listed and have is not None and have != listed[rel]:
            findings.errors.append(f"{CHECKSUMS} lists {rel} with a digest its file in the folder does not have")


def _run(version: FolderVersion, plan: dict) -> dict:
    """The runner's report for `plan`, from the sandbox or from a run kept before."""
    key = hashlib.sha256(json.dumps([version.source.digest, RUNNER_DIGEST, plan], sort_keys=True).encode()).hexdigest()
    kept = Path(settings.VAR_DIR) / "workbench" / f"{key}.json"
    try:
        return json.loads(kept.read_text())
    except (OSError, ValueError):
        pass
    built = building.build_source(_packed(version, plan), _Job(version.max_runtime_seconds))
    if not built.ok:
        last = built.log.strip().splitlines()[-1:] or [""]
        raise RunFailed(f"the validator and generator could not be run: {built.message} ({last[0][:300]})")
    try:
        found = json.loads(built.module)
    except ValueError:
        raise RunFailed("the validator and generator run reported nothing readable") from None
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(found))
    return found


def _packed(version: FolderVersion, plan: dict) -> bytes:
    """The folder's files as read, the plan and the runner, packed as a submission is
    (engine.builds.pack_folder: a tar.gz whose `source/` folder is the build root)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed:
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive:
            folders = sorted({"/".join(rel.split("/")[:end]) for rel, _ in version.source.files
                              for end in range(1, rel.count("/") + 1)})
            for folder in ["", *folders]:
                info = tarfile.TarInfo(f"source/{folder}".rstrip("/"))
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            for rel, data in [*version.source.files, (PLAN, json.dumps(plan).encode()),
                              (RUNNER_NAME, RUNNER.encode())]:
                info = tarfile.TarInfo(f"source/{rel}")
                info.size, info.mode = len(data), 0o644
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
