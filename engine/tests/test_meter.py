"""The fuel meter's command line on real modules (engine/meter/): what it prints, what it refuses,
its exit codes. That its figures are the site's is proved from outside, from a downloaded kit, in
tests/test_meter_kit.py."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from engine.meter.cli import parser, run
from engine.meter.contract import Contract, Runway, load_contract
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from engine.tests.wat import constant, module

INPUT_SCHEMA = json.dumps({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}})
OUTPUT_SCHEMA = json.dumps({"type": "object", "required": ["sum"], "additionalProperties": False,
                            "properties": {"sum": {"type": "integer"}}})
LIMIT = 100_000


def contract(**changes) -> Contract:
    fields = dict(
        case="adder", version="v1", variant="default", entry="solve", input_schema=INPUT_SCHEMA,
        output_schema=OUTPUT_SCHEMA, fuel_limit=LIMIT, max_memory_bytes=1 << 20, wall_seconds=5.0,
        answer_min_bytes=1024, answer_size_factor=4, module_bytes=1 << 20, compile_seconds=30.0,
        compile_memory_bytes=1 << 30, judge_memory_bytes=1 << 30,
        runways=(Runway("smoke/one.json", "smoke", "1", LIMIT), Runway("cases/large.json", "stress", "2.5", 250_000)),
        wasmtime=WASMTIME_VERSION, config_digest=ENGINE_DIGEST, answer_bytes=4096, build_install="",
        build_command="cp solution.wasm out.wasm", build_module="out.wasm", build_seconds=60.0,
        compiler="rustc 1.96.0",
    )
    return Contract(**{**fields, **changes})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "contract.json").write_text(contract().dumps())
    (tmp_path / "input.json").write_text('{"n": 3}')
    (tmp_path / "right.json").write_text('{"sum": 6}')
    (tmp_path / "wrong.json").write_text('{"sum": 7}')
    return tmp_path


def meter(folder: Path, wasm: bytes, *arguments: str) -> tuple[int, str, str]:
    (folder / "module.wasm").write_bytes(wasm)
    # Files named in the folder; a runway named after an input stays a name.
    paths = [str(folder / argument) if argument.endswith(".json") and before != "--runway" else argument
             for before, argument in zip(("", *arguments), arguments)]
    args = parser("meter", folder / "contract.json").parse_args([str(folder / "module.wasm"), *paths])
    out, err = io.StringIO(), io.StringIO()
    code = run(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_contract_reads_back_as_it_was_written(folder):
    assert load_contract(folder / "contract.json") == contract()
    assert contract().dumps() == contract().dumps()  # stable bytes: kits are byte-identical


def test_a_correct_answer_passes_with_its_fuel_the_pass_line_and_the_share(folder):
    code, out, _ = meter(folder, constant(b'{"sum": 6}', iterations=1_000), "input.json", "--expected", "right.json")
    assert code == 0
    header, columns, row, summary = out.splitlines()
    assert header.startswith(f"adder v1 (default) · wasmtime {WASMTIME_VERSION}, engine configuration {ENGINE_DIGEST}")
    assert columns.split() == ["input", "status", "fuel", "pass", "line", "share", "ceiling", "wall"]
    cells = row.split()
    fuel = int(cells[2].replace(",", ""))
    assert cells[1] == "passed" and 1_000 < fuel < 10_000
    assert cells[3] == "100,000" and cells[4] == f"{100 * fuel / LIMIT:.1f}%" and cells[5] == "100,000"
    assert summary == "1 of 1 input(s) passed."


def test_the_json_document_has_the_keys_of_score_json_and_names_the_engine_and_module(folder):
    import hashlib

    wasm = constant(b'{"sum": 7}')
    code, out, _ = meter(folder, wasm, "input.json", "--expected", "wrong.json", "--json")
    assert code == 0 and out.count("\n") == 1
    code, out, _ = meter(folder, wasm, "input.json", "--expected", "right.json", "--json")
    document = json.loads(out)
    assert code == 1
    assert document["engine"] == {"wasmtime": WASMTIME_VERSION, "config_digest": ENGINE_DIGEST}
    assert document["module"] == hashlib.sha256(wasm).hexdigest() and document["compared"] is True
    [result] = document["results"]
    assert set(result) == {"input", "status", "fuel", "fuel_limit", "ceiling", "overshoot", "wall_ms", "message"}
    assert result["status"] == "wrong_answer" and result["fuel_limit"] == LIMIT and result["ceiling"] == LIMIT
    assert result["message"] == 'answer differs from the expected answer at JSON pointer "/sum"'


def test_without_an_expected_answer_only_the_json_and_the_schema_are_judged(folder):
    code, out, _ = meter(folder, constant(b'{"sum": 99}'), "input.json")
    assert code == 0 and out.endswith("answers were checked against the output schema only.\n")
    code, out, _ = meter(folder, constant(b'{"total": 6}'), "input.json", "--json")
    [result] = json.loads(out)["results"]
    assert code == 1 and result["status"] == "invalid_output"
    assert result["message"].startswith("output does not match the output schema: at the document root: fails")
    code, out, _ = meter(folder, constant(b'{"sum": NaN}'), "input.json", "--json")
    assert json.loads(out)["results"][0]["status"] == "invalid_output"
    code, out, _ = meter(folder, constant(b'{"sum": 0, "sum": 6}'), "input.json", "--expected", "right.json", "--json")
    [result] = json.loads(out)["results"]
    assert (code, result["status"]) == (1, "invalid_output") and "the same key twice" in result["message"]


def test_a_runway_by_number_or_by_an_inputs_name_sets_the_ceiling(folder):
    slow = constant(b'{"sum": 6}', iterations=40_000)  # between the pass line and 2.5 × it
    code, out, _ = meter(folder, slow, "input.json", "--json")
    [result] = json.loads(out)["results"]
    assert code == 1 and result["status"] == "fuel_exhausted" and result["fuel"] == LIMIT
    for runway in ("large", "cases/large.json", "2.5"):
        code, out, _ = meter(folder, slow, "input.json", "--expected", "right.json", "--runway", runway, "--json")
        [result] = json.loads(out)["results"]
        assert code == 1 and result["status"] == "over_limit" and result["ceiling"] == 250_000
        assert result["overshoot"] == result["fuel"] - LIMIT > 0
    code, out, _ = meter(folder, slow, "input.json", "input.json", "--runway", "1", "--runway", "1.15", "--json")
    assert [result["ceiling"] for result in json.loads(out)["results"]] == [LIMIT, 115_000]  # exact: not 114,999


@pytest.mark.parametrize("arguments, says", [
    (("input.json", "--runway", "0.5"), "--runway '0.5' is neither a number of at least 1 nor an input's name; "
                                        "the inputs: one (1), large (2.5)"),
    (("input.json", "--runway", "huge"), "is neither a number"),
    (("input.json", "input.json", "--runway", "1", "--runway", "2", "--runway", "3"), "3 --runway values"),
    (("input.json", "--expected", "right.json", "--expected", "right.json"), "1 input(s) but 2 --expected"),
    (("right.json",), "right.json: the input does not match the input schema, at the document root: fails "
                      "`required`"),
    (("missing.json",), "missing.json: cannot read the input"),
    (("input.json", "--threads", "0"), "--threads must be at least 1"),
])
def test_a_mistake_in_the_command_is_said_and_nothing_runs(folder, arguments, says):
    code, out, err = meter(folder, constant(b'{"sum": 6}'), *arguments)
    assert code == 2 and out == "" and says in err and "Traceback" not in err


def test_a_module_the_site_refuses_is_refused_with_the_sites_message(folder):
    imports = module(imports='(import "env" "now" (func))')
    code, out, err = meter(folder, imports, "input.json", "--json")
    document = json.loads(out)
    assert code == 2 and document["results"] == [] and document["error"]["code"] == "abi"
    assert err.startswith("meter: the module is refused (abi): ")
    code, _, err = meter(folder, module(extra="(func $init) (start $init)"), "input.json")
    assert code == 2 and "module has a start function (section 8), which is not allowed" in err


def test_a_contract_for_another_engine_is_refused(folder):
    (folder / "contract.json").write_text(dataclasses.replace(contract(), wasmtime="1.0.0").dumps())
    code, _, err = meter(folder, constant(b'{"sum": 6}'), "input.json")
    assert code == 2 and "written for wasmtime 1.0.0" in err and "pip install -r meter/requirements.txt" in err
    (folder / "contract.json").write_text("{")
    code, _, err = meter(folder, constant(b'{"sum": 6}'), "input.json")
    assert code == 2 and "not a readable contract" in err


def test_answers_are_written_to_a_file_or_one_per_input_into_a_folder(folder, tmp_path):
    wasm = constant(b'{"sum": 6}')
    code, _, _ = meter(folder, wasm, "input.json", "--answer", str(tmp_path / "answer.out"))
    assert code == 0 and (tmp_path / "answer.out").read_bytes() == b'{"sum": 6}'
    (folder / "other").mkdir()
    (folder / "other" / "input.json").write_text('{"n": 4}')
    code, _, err = meter(folder, wasm, "input.json", "other/input.json", "--answer", str(tmp_path / "answers"))
    assert code == 2 and "two inputs share a name" in err
    code, _, err = meter(folder, constant(b'{"sum": 6}', iterations=1_000_000), "input.json", "--answer",
                         str(tmp_path / "none.out"))
    assert code == 1 and "no answer to write (fuel_exhausted)" in err and not (tmp_path / "none.out").exists()


def test_from_a_checkout_it_runs_as_python_m_engine_meter(folder):
    import subprocess
    import sys

    (folder / "module.wasm").write_bytes(constant(b'{"sum": 6}'))
    done = subprocess.run([sys.executable, "-m", "engine.meter", "--contract", str(folder / "contract.json"),
                           str(folder / "module.wasm"), str(folder / "input.json"), "--expected",
                           str(folder / "right.json"), "--json"], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [result["status"] for result in json.loads(done.stdout)["results"]] == ["passed"]
    usage = subprocess.run([sys.executable, "-m", "engine.meter", str(folder / "module.wasm")],
                           cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 2 and "--contract" in usage.stderr  # argparse's usage error: exit 2 too


def test_only_no_expected_answer_skips_the_comparison_an_empty_one_is_not_a_pass():
    """The judge compares unless told there is no expected answer (None, the meter's alone): an
    empty stored answer, which import refuses anyway, never lets an answer through."""
    import time

    from engine.judging import CORRECT, Judge

    judge = Judge(OUTPUT_SCHEMA.encode(), memory_bytes=1 << 30)
    deadline = time.monotonic() + 30
    assert judge.check(b'{"sum": 6}', None, deadline=deadline).status == CORRECT
    assert judge.check(b'{"sum": 6}', b'{"sum": 7}', deadline=deadline).status == "wrong_answer"
    assert judge.check(b'{"sum": 6}', b"", deadline=deadline).status != CORRECT


def test_an_answer_that_cannot_be_written_is_one_line_and_exit_2(folder, tmp_path):
    (tmp_path / "a-file").write_text("")
    code, _, err = meter(folder, constant(b'{"sum": 6}'), "input.json", "--answer", str(tmp_path / "a-file" / "x"))
    assert code == 2 and err.splitlines()[-1].startswith(f"meter: the answer cannot be written to {tmp_path}")
    assert "Traceback" not in err


def test_a_runway_is_bounded_as_the_manifest_bounds_one(folder):
    code, out, err = meter(folder, constant(b'{"sum": 6}'), "input.json", "--runway", "1e30")
    assert code == 2 and out == "" and "--runway 1e30: a runway fuel_limit × fuel_runway exceeds" in err


def test_without_an_expected_answer_the_cap_is_the_cases_own_not_a_fixed_one(folder):
    """The contract carries the largest answer the site reads for any of the version's inputs: a
    correct answer that size passes the schema check, one byte over is invalid_output."""
    answer = b'{"sum": 6' + b" " * (8000 - 10) + b"}"
    (folder / "contract.json").write_text(contract(answer_bytes=8000).dumps())
    code, out, _ = meter(folder, constant(answer, address=20_000), "input.json", "--json")
    assert code == 0 and json.loads(out)["results"][0]["status"] == "passed"
    (folder / "contract.json").write_text(contract(answer_bytes=7999).dumps())
    code, out, _ = meter(folder, constant(answer, address=20_000), "input.json", "--json")
    assert code == 1 and json.loads(out)["results"][0]["status"] == "invalid_output"


def test_inputs_and_their_expected_answers_may_be_interleaved(folder, capsys):
    from engine.meter.cli import main

    (folder / "module.wasm").write_bytes(constant(b'{"sum": 6}'))
    code = main([str(folder / "module.wasm"), str(folder / "input.json"), "--expected", str(folder / "right.json"),
                 "--json", str(folder / "input.json"), "--expected", str(folder / "wrong.json")],
                contract=folder / "contract.json")
    assert code == 1
    assert [result["status"] for result in json.loads(capsys.readouterr().out)["results"]] == ["passed",
                                                                                                 "wrong_answer"]


def test_meter_check_refuses_a_workspace_that_chooses_how_cargo_builds_it_as_the_site_does(tmp_path):
    """At home as on the site (lib/cargoconfig.py): nothing is run, and the reason is the site's."""
    import io
    from types import SimpleNamespace

    from engine.meter.check import build
    from lib.cargoconfig import REFUSED

    marker = tmp_path / "ran"
    contract = SimpleNamespace(build_install="", build_command=f"touch {marker}", build_seconds=60)
    workspace = tmp_path / "workspace"
    (workspace / ".cargo").mkdir(parents=True)
    (workspace / ".cargo" / "config.toml").write_text('[build]\nrustc-wrapper = "fake/wrap.sh"\n')
    (workspace / "target" / "x" / ".cargo").mkdir(parents=True)  # build products are not read
    assert build(workspace, contract, io.StringIO()) == REFUSED["cargo_config"] and not marker.exists()
    (workspace / ".cargo" / "config.toml").unlink()
    (workspace / "target" / "x" / ".cargo" / "config.toml").write_text("")
    assert build(workspace, contract, io.StringIO()) is None and marker.exists()
