"""The fuel meter proved from outside: kits downloaded from the site, unpacked, run in a fresh
virtual environment holding the meter's requirements and nothing else (no Django, no project on
the path), on the bundled solutions and on hostile modules over each case's held-out inputs
(copied in here, as the site never gives them out); every status, fuel figure and message is
compared with what the site stored for the same module (the served site's own examples, or
`score` run here), input by input."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from catalog.metering import requirements
from catalog.models import CaseVersion
from engine.builds import pack_folder
from engine.tests import wat
from scoring.building import build_source
from scoring.examples import EXAMPLE_PREFIX, EXAMPLE_VERDICTS
from scoring.models import Submission
from scoring.workbench.solutions import case_solutions
from tests.kits import held_out_files

# One process runs them all: the meter's environment is made once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("meter-kit")]

ROOT = Path(__file__).resolve().parent.parent
COMPARED = ("status", "fuel", "fuel_limit", "ceiling", "overshoot", "message")


def clean_env(home: Path) -> dict[str, str]:
    """What a solver's shell has: a PATH and a home, no PYTHONPATH, nothing of this project."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "CARGO_NET_OFFLINE": "true"}


@pytest.fixture(scope="module")
def meter_env(tmp_path_factory) -> Path:
    """A fresh virtual environment with the meter's pinned requirements and nothing else (the
    kit's README says to make one so); the kits' requirements.txt are these exact bytes (checked
    below)."""
    folder = tmp_path_factory.mktemp("meter-env")
    (folder / "requirements.txt").write_text(requirements())
    env = clean_env(folder)
    # Made without pip of its own (installing pip costs more than the rest): this interpreter's
    # pip installs into it, from the same index and pins.
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(folder / "env")], check=True, env=env, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(folder / "env/bin/python"), "install", "-q",
                    "--disable-pip-version-check", "-r", str(folder / "requirements.txt")],
                   check=True, timeout=300, capture_output=True)
    listed = subprocess.run([str(folder / "env/bin/python"), "-c", "import importlib.metadata as m; "
                             "print('\\n'.join(d.metadata['Name'] for d in m.distributions()))"],
                            env=env, capture_output=True, text=True, check=True)
    installed = sorted(normal(name) for name in listed.stdout.split())
    assert installed == sorted(normal(pin.split("==")[0]) for pin in requirements().split() if "==" in pin)
    found = subprocess.run([str(folder / "env/bin/python"), "-c", "import django"], env=env, capture_output=True)
    assert found.returncode != 0, "the meter's environment must not have Django"
    return folder / "env"


@pytest.fixture(scope="module")
def shown_site(site_template):
    """The served bundled catalog with its experimental cases shown, for the tests that only read it."""
    from tests import served

    site = served.serve(site_template, CATALOG_SHOW_EXPERIMENTAL="1")
    yield site
    site.stop()


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def unpack_kit(client, version: CaseVersion, folder: Path) -> Path:
    response = client.get(f"/cases/{version.case.slug}/{version.version}/kit/{version.default_variant().slug}.zip")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        for info in archive.infolist():
            target = folder / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
    assert (folder / "meter/requirements.txt").read_text() == requirements()
    return folder


def run_meter(env: Path, kit: Path, module: Path, inputs: list[str], expected: list[str], runways: list[str],
              site: dict | None = None) -> tuple[int, dict, str]:
    """`python3 meter` from the unpacked kit: on the inputs the site ran for `site` (a stress input
    after a failed smoke input is not run), each under its own runway, with its answer."""
    if site and site["results"]:
        ran = [index for index, result in enumerate(site["results"]) if result["status"] != "skipped"]
        inputs, expected, runways = ([items[index] for index in ran] for items in (inputs, expected, runways))
    done = subprocess.run(
        [str(env / "bin/python"), "meter", str(module), *inputs, *(f"--expected={path}" for path in expected),
         *(f"--runway={runway}" for runway in runways), "--json"],
        cwd=kit, env=clean_env(kit), capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout) if done.stdout else {}, done.stderr


def scored(version: CaseVersion, module: Path, name: str) -> tuple[dict, Submission]:
    out = io.StringIO()
    call_command("score", version.case.slug, "--version", version.version, "--wasm", str(module), "--name", name,
                 "--json", stdout=out, stderr=io.StringIO())
    document = json.loads(out.getvalue())
    return document, Submission.objects.get(pk=document["submission"])


def assert_same(site: dict, metered: dict, code: int, label: str) -> int:
    """Every input the site ran read the same by the meter; returns how many were compared."""
    assert metered["module"] and metered["engine"]["config_digest"], label
    compared = 0
    ran = [result for result in site["results"] if result["status"] != "skipped"]
    for stored, measured in zip(ran, metered["results"], strict=True):
        assert {key: measured[key] for key in COMPARED} == {key: stored[key] for key in COMPARED}, (label, stored)
        compared += 1
    assert code == (0 if all(result["status"] == "passed" for result in metered["results"]) else 1), label
    return compared


def latest_versions() -> list[CaseVersion]:
    return [CaseVersion.objects.filter(case__slug=slug).order_by("-ordinal").first()
            for slug in CaseVersion.objects.values_list("case__slug", flat=True).distinct().order_by("case__slug")]


@pytest.mark.long
@pytest.mark.catalog
def test_the_meter_of_each_cases_kit_counts_what_the_site_stored_for_every_bundled_example(
        client, bundled, shown_site, meter_env, tmp_path):
    """Against what the served site stored for each example (`score_examples`, as `make run` scores
    them), read from its API (experimental cases shown), under the same engine and configuration."""
    _each_example_metered_as_stored(client, shown_site, meter_env, tmp_path)


def _each_example_metered_as_stored(client, served_site, meter_env, tmp_path) -> None:
    compared, statuses = 0, set()
    for version in latest_versions():
        kit = unpack_kit(client, version, tmp_path / version.case.slug)
        inputs, expected, runways = held_out_files(version, kit)
        board = served_site.json(f"/api/v1/cases/{version.case.slug}/leaderboard/"
                                 f"?version={version.version}&all=1&page_size=200")
        entries = {row["name"]: row["submission"] for row in board["results"]}
        for solution in case_solutions(ROOT / "solutions", version.case.slug).for_version(version.version):
            if solution.expected not in EXAMPLE_VERDICTS:
                continue  # the examples: the entries the site shows (the others are wrong on purpose)
            if solution.is_source:
                built = build_source(pack_folder(solution.path, max_bytes=settings.SCORING_MAX_SOURCE_BYTES), version)
                assert built.ok, built.log
                wasm = built.module
            else:
                wasm = solution.module(settings.SCORING_MAX_MODULE_BYTES)
            module = kit / f"{solution.expected}-{solution.stem}.wasm"
            module.write_bytes(wasm)
            site = served_site.json(f"/api/v1/submissions/{entries[EXAMPLE_PREFIX + solution.stem]}/")
            code, metered, _ = run_meter(meter_env, kit, module, inputs, expected, runways, site)
            engine = metered["engine"]
            # The same engine.
            assert site["engine"] == f"{engine['wasmtime']} ({engine['config_digest']})", site["engine"]
            compared += assert_same(site, metered, code, f"{version} {solution.expected}/{solution.stem}")
            statuses |= {result["status"] for result in metered["results"]}
    assert compared > 40 and "passed" in statuses, (compared, statuses)


HOSTILE = {
    "trap": wat.module("unreachable"),
    "fuel-exhaustion": wat.module("(loop $forever (br $forever)) i64.const 0"),
    "out-of-range-output": wat.returning((0xFFFF_0000 << 32) | 64),
    "invalid-json": wat.constant(b'{"sum": 1,'),
    "schema-invalid-answer": wat.constant(b'{"total": 1}'),
    "wrong-answer": wat.constant(b'{"sum": -1}'),
}
REFUSED = {
    "an-import": wat.module(imports='(import "env" "now" (func))'),
    "a-start-function": wat.module(extra="(func $init) (start $init)"),
    "two-memories": wat.module(extra="(memory 1)"),
}


def test_the_meter_reads_hostile_modules_as_score_does_and_refuses_what_it_refuses(
        client, imported, meter_env, tmp_path):
    """On the test catalog's adder (a small pass line, so a module that burns fuel stops soon)."""
    from scoring.tests.helpers import adder_answers

    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    kit = unpack_kit(client, version, tmp_path / "kit")
    inputs, expected, runways = held_out_files(version, kit)
    small = len(bytes(version.held_out_inputs.get(input_path="cases/small.json").input_bytes))
    modules = {
        **HOSTILE,
        # Every answer right; the small input past the pass line, within its runway of 1.15.
        "over-the-pass-line": wat.lookup(adder_answers(imported), iterations=175_000, slow_length=small),
        "every-answer-right": wat.lookup(adder_answers(imported)),
    }
    statuses = set()
    for name, wasm in modules.items():
        module = kit / f"{name}.wasm"
        module.write_bytes(wasm)
        site, _ = scored(version, module, name)
        code, metered, _ = run_meter(meter_env, kit, module, inputs, expected, runways, site)
        assert assert_same(site, metered, code, name) >= 1, name
        statuses |= {result["status"] for result in metered["results"]}
    assert {"trapped", "fuel_exhausted", "invalid_output", "wrong_answer", "over_limit", "passed"} <= statuses, statuses
    for name, wasm in REFUSED.items():
        module = kit / f"{name}.wasm"
        module.write_bytes(wasm)
        _, submission = scored(version, module, name)
        code, metered, err = run_meter(meter_env, kit, module, inputs, expected, runways)
        assert submission.status == Submission.State.INVALID_MODULE, name
        assert code == 2 and metered["results"] == [] and metered["error"]["message"] == submission.message, name
        assert err.strip().endswith(submission.message), name


def readme_commands(kit: Path) -> list[str]:
    """The commands of the README's "Measuring at home" section, as a solver would type them."""
    text = (kit / "README.md").read_text()
    section = text.split("## Measuring at home", 1)[1].split("\n## ", 1)[0]
    block = section.split("From this folder:\n\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines()]


def documented_output() -> str:
    text = (ROOT / "docs/submitting.md").read_text()
    section = text.split("## The fuel meter in a run", 1)[1]
    return section.split("```text\n", 1)[1].split("```", 1)[0]


def without_wall(output: str) -> str:
    """The meter's table with its wall times (the one figure that is the machine's) blanked, and
    the columns' padding (a longer time widens its column) made one space."""
    return re.sub(r" +", " ", re.sub(r"\S+ ms$", "… ms", output, flags=re.MULTILINE))


def test_a_module_built_from_the_kits_starter_with_its_build_command_is_metered_as_score_reads_it(
        client, bundled, meter_env, tmp_path):
    """The README's own commands from the unpacked kit: the environment (here the one made above,
    with the same requirements), the build, the meter on the kit's sample input."""
    version = CaseVersion.objects.get(case__slug="components", version="v1")
    kit = unpack_kit(client, version, tmp_path / "kit")
    make_env, install, build, measure = readme_commands(kit)
    assert (make_env, install) == ("python3 -m venv .meter", ".meter/bin/pip install -r meter/requirements.txt")
    (kit / ".meter").symlink_to(meter_env)  # such an environment, made once for this file's tests
    env = clean_env(tmp_path)
    done = subprocess.run(build, shell=True, cwd=kit, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (build, done.stderr[-3000:])
    assert re.fullmatch(r"\.meter/bin/python meter run/\S+\.wasm my-input\.json", measure), measure
    module = kit / measure.split()[2]
    sample = subprocess.run(f"{measure.replace('my-input.json', 'run/specs/sample.json')} "
                            "--expected run/specs/sample.out", shell=True, cwd=kit, env=env, capture_output=True,
                            text=True, timeout=600)
    assert "Traceback" not in sample.stderr and sample.returncode in (0, 1), sample.stderr
    assert re.search(r"^run/specs/sample\.json +(passed|wrong_answer) ", sample.stdout, re.MULTILINE), sample.stdout

    # The harness operators' worked example (docs/submitting.md): the agent's call from its workspace.
    call = subprocess.run([str(kit / ".meter/bin/python"), str(kit / "meter"), str(module.relative_to(kit / "run")),
                           "specs/sample.json", "--expected", "specs/sample.out"], cwd=kit / "run", env=env,
                          capture_output=True, text=True, timeout=600)
    assert call.returncode == 1 and without_wall(call.stdout) == without_wall(documented_output()), call.stdout

    inputs, expected, runways = held_out_files(version, kit)
    site, _ = scored(version, module, "starter")
    code, metered, _ = run_meter(meter_env, kit, module, inputs, expected, runways, site)
    assert assert_same(site, metered, code, "the starter") >= 3


@pytest.mark.long
@pytest.mark.catalog
def test_one_command_checks_a_workspace_on_every_sample_as_the_site_measured_it(client, bundled, shown_site,
                                                                                 meter_env, tmp_path):
    """Each bundled case's latest kit, downloaded from the site: `python3 meter check` builds the
    kit's starter (it runs, passing or not) and the case's accepted solution with the kit's build
    command, and meters the solution on every public sample: it passes each, with the fuel the
    site stored for the same example on that sample."""
    served_site = shown_site
    checked = 0
    for version in latest_versions():
        kit = unpack_kit(client, version, tmp_path / version.case.slug)
        (kit / ".meter").symlink_to(meter_env)
        samples = sorted(path.name for path in (kit / "run/samples").glob("*.json"))
        assert samples, f"{version}: no samples in its kit"
        assert ".meter/bin/python meter check" in (kit / "README.md").read_text()
        starter = _check(kit, [])
        assert starter.returncode in (0, 1) and "Traceback" not in starter.stderr, starter.stderr[-2000:]
        board = served_site.json(f"/api/v1/cases/{version.case.slug}/leaderboard/"
                                 f"?version={version.version}&all=1&page_size=200")
        entries = {row["name"]: row["submission"] for row in board["results"]}
        for solution in case_solutions(ROOT / "solutions", version.case.slug).for_version(version.version):
            if solution.expected != "accepted" or not solution.is_source:
                continue
            workspace = kit / f"solution-{solution.stem}"
            subprocess.run(["cp", "-r", str(solution.path), str(workspace)], check=True)
            done = _check(kit, [str(workspace.relative_to(kit)), "--json"])
            assert done.returncode == 0, (version, solution.stem, done.stdout[-2000:], done.stderr[-2000:])
            metered = {row["input"]: row for row in json.loads(done.stdout)["results"]}
            site = served_site.json(f"/api/v1/submissions/{entries[EXAMPLE_PREFIX + solution.stem]}/")
            stored = {row["input"]: row for row in site["samples"]}
            assert sorted(stored) == sorted(metered) == [f"samples/{name}" for name in samples]
            for name, row in stored.items():
                assert (metered[name]["status"], metered[name]["fuel"]) == (row["status"], row["fuel"]), name
                assert row["status"] == "passed"
                checked += 1
    assert checked >= 10


def _check(kit: Path, arguments: list[str]) -> subprocess.CompletedProcess:
    """The README's one command, from the unpacked kit, in a solver's shell (Debian's cargo on PATH)."""
    return subprocess.run([".meter/bin/python", "meter", "check", *arguments], cwd=kit, env=clean_env(kit),
                          capture_output=True, text=True, timeout=900)


def producers_section(rustc: str) -> bytes:
    """A `producers` custom section naming `rustc` as what processed the module."""
    def name(text: str) -> bytes:
        data = text.encode()
        return bytes([len(data)]) + data

    body = name("producers") + b"\x01" + name("processed-by") + b"\x01" + name("rustc") + name(rustc)
    return b"\x00" + bytes([len(body)]) + body


def test_the_meter_names_the_compiler_a_module_says_built_it_and_warns_when_it_is_not_the_sites(
        client, imported, meter_env, tmp_path):
    """A module whose producers section names another rustc than the site's: the meter measures it
    and warns that fuel can differ; one naming the site's release is said to match."""
    from engine.toolchain import RUST_RELEASE
    from scoring.tests.helpers import adder_answers

    version = CaseVersion.objects.get(case__slug="adder", version="v1")
    kit = unpack_kit(client, version, tmp_path / "kit")
    inputs, expected, runways = held_out_files(version, kit)
    right = wat.lookup(adder_answers(imported))
    for rustc, said in (("1.50.0 (cb75ad5db 2021-02-10)",
                         f"warning: fuel can differ: the site builds with rustc {RUST_RELEASE}; this module was "
                         "built by rustc 1.50.0 (cb75ad5db 2021-02-10)"),
                        (f"{RUST_RELEASE} (ac68faa20 2026-05-25)",
                         f"built by rustc {RUST_RELEASE} (ac68faa20 2026-05-25), as the site builds")):
        module = kit / "forged.wasm"
        module.write_bytes(bytes(right) + producers_section(rustc))
        done = subprocess.run([str(meter_env / "bin/python"), "meter", str(module), inputs[-1], "--expected",
                               expected[-1]], cwd=kit, env=clean_env(kit), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0 and said in done.stderr, done.stderr


def _reverify(kit: Path, url: str, number: int) -> subprocess.CompletedProcess:
    """`python3 meter reverify BASE_URL SUBMISSION`, from the unpacked kit, in a solver's shell."""
    done = subprocess.run([".meter/bin/python", "meter", "reverify", url, str(number)], cwd=kit, env=clean_env(kit),
                          capture_output=True, text=True, timeout=900)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done


def test_anyone_measures_an_entry_of_a_retired_version_again_from_what_the_site_publishes(
        client, bundled, site_template, meter_env, tmp_path):
    """From an unpacked kit and the meter's requirements alone: while the version is current its
    data is refused (and the site answers 404); once `retire` has run, `reverify` fetches the
    entry's module, the version's held-out data and contract over HTTP and finds every input's
    status and fuel as the site stored them; an entry whose stored fuel is not what its module
    counts is named at its first difference."""
    from tests import served

    served_site = served.serve(site_template)
    try:
        version = CaseVersion.objects.filter(case__slug="range-sums").order_by("-ordinal").first()
        kit = unpack_kit(client, version, tmp_path / "kit")
        (kit / ".meter").symlink_to(meter_env)
        fast, naive = (served_site.submission("range-sums", EXAMPLE_PREFIX + stem) for stem in ("fast", "naive"))

        current = _reverify(kit, served_site.url, fast)
        assert current.returncode == 2 and f"range-sums {version.version} is current" in current.stderr, current.stderr
        for path in (f"/cases/range-sums/{version.version}/held-out.zip", f"/submissions/{fast}/module.wasm"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(served_site.url + path, timeout=30)
            assert refused.value.code == 404, path

        # Its versions hold out the same files: retiring one alone is refused, naming the others.
        versions = served_site.json("/api/v1/cases/range-sums/")["versions"]
        with pytest.raises(RuntimeError, match="hold out some of the same inputs or answers"):
            served_site.manage("retire", "range-sums", version.version)
        said = served_site.manage("retire", "range-sums", *versions)
        assert f"retired range-sums {version.version}" in said, said
        done = _reverify(kit, served_site.url, fast)
        assert (done.returncode, done.stdout) == (0, "identical\n"), (done.stdout, done.stderr[-2000:])

        # The site's record of the naive entry altered behind its back: one input's fuel is off by one.
        served_site.manage("shell", "-c", ALTER_FUEL.replace("NUMBER", str(naive)))
        altered = _reverify(kit, served_site.url, naive)
        assert altered.returncode == 1, (altered.stdout, altered.stderr[-2000:])
        assert re.fullmatch(r"different: \S+: the site stored passed with [\d,]+ fuel, here passed with [\d,]+ fuel\n",
                            altered.stdout), altered.stdout
    finally:
        served_site.stop()


# One stored result of an entry made one unit of fuel more than its module counts, and the
# pages' generations moved on as any change of an entry moves them.
ALTER_FUEL = """
from scoring.boards.updates import announce_versions
from scoring.models import Result, Submission
entry = Submission.objects.get(pk=NUMBER)
row = entry.results.filter(status="passed", kind="stress").order_by("position").first()
Result.objects.filter(pk=row.pk).update(fuel=row.fuel + 1)
announce_versions({entry.version_id})
"""
