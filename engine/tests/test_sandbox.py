"""The sandbox (docs/taking-part.md, docs/method.md) with small WAT modules: every status, every invalid-module
reason."""

from __future__ import annotations

import json

import pytest
import wasmtime

from engine.judging import Judge
from engine.sandbox import (
    ENGINE_DIGEST,
    InvalidModule,
    ModuleCache,
    Status,
    load_solution,
    module_digest,
    trap_message,
)
from engine.tests import wat
from engine.tests.hostile import INVALID_MODULES, slow_to_compile

ANY_OBJECT = b'{"type": "object"}'
SUM_SCHEMA = b'{"type": "object", "required": ["sum"], "properties": {"sum": {"type": "integer"}}}'
ANSWER_LIMIT = 1 << 20
PAGE = 65_536


def solution(wasm: bytes, *, entry: str = "solve", max_memory_bytes: int = 4 * PAGE, cache: ModuleCache | None = None):
    return load_solution(wasm, entry=entry, max_memory_bytes=max_memory_bytes, cache=cache or ModuleCache())


def run(wasm: bytes, input_bytes: bytes = b"{}", *, expected=None, fuel_limit: int = 1_000_000,
        ceiling: int | None = None, validator: bytes = ANY_OBJECT, wall_seconds: float = 10.0,
        max_memory_bytes: int = 4 * PAGE, answer_limit: int = ANSWER_LIMIT, cache: ModuleCache | None = None):
    expected_bytes = input_bytes if expected is None else json.dumps(expected).encode()
    judge = Judge(validator, memory_bytes=1 << 30)
    return solution(wasm, max_memory_bytes=max_memory_bytes, cache=cache).run(
        input_bytes, fuel_limit=fuel_limit, ceiling=ceiling if ceiling is not None else fuel_limit,
        wall_seconds=wall_seconds, answer_limit=answer_limit,
        judge=lambda output, deadline: judge.check(output, expected_bytes, deadline=deadline),
    )


# --- passed, and what fuel counts ----------------------------------------------------------------


def test_a_correct_answer_within_the_limit_passes_with_its_fuel():
    outcome = run(wat.constant(b'{"sum": 6}'), b'{"numbers": [1, 2, 3]}', expected={"sum": 6}, validator=SUM_SCHEMA)
    assert outcome.status is Status.PASSED
    assert outcome.fuel == 4  # alloc (i32.const, end) + entry (i64.const, end) under wasmtime 51.0.0
    assert (outcome.overshoot, outcome.message, outcome.output_size) == (0, "", 10)


def test_the_input_bytes_are_written_exactly_as_stored():
    document = '{"text": "caf\u00e9 \\u0000", "n": [1, 2.5e3, -0]}'.encode()
    outcome = run(wat.module(), document)  # the echo module answers with its input
    assert outcome.status is Status.PASSED
    assert outcome.output_size == len(document)


def test_fuel_counts_alloc_and_entry_and_grows_with_the_work():
    fuel = [run(wat.constant(b"{}", iterations=n)).fuel for n in (0, 10, 20, 30)]
    assert fuel[0] < fuel[1]
    assert fuel[2] - fuel[1] == fuel[3] - fuel[2] > 0  # linear in the loop count


def test_instantiation_costs_no_fuel():
    """Data-segment initialisation is excluded: the count starts after instantiation."""
    small = run(wat.constant(b"{}"))
    big_segment = wat.module("i64.const 2", extra=f'(data (i32.const 4096) "{wat.wat_bytes(bytes(60_000))}")')
    big = run(big_segment)
    assert big.fuel == small.fuel


def test_instantiation_has_an_allowance_of_its_own_whatever_the_ceiling():
    """Under a ceiling of 1, a module with 6 MB of data segments instantiates (on a host where
    copying them costs fuel, the ceiling would have been used up there) and its count starts
    after: the same as a module with none."""
    segment = f'(data (i32.const 4096) "{wat.wat_bytes(bytes(6_000_000))}")'
    big = run(wat.module("i64.const 2", memory='(memory (export "memory") 200)', extra=segment), fuel_limit=1,
              max_memory_bytes=200 * PAGE)
    plain = run(wat.module("i64.const 2"), fuel_limit=1)
    assert big.status is plain.status is Status.FUEL_EXHAUSTED and "instantiation" not in big.message
    assert big.fuel == plain.fuel == 1


def test_a_data_segment_high_in_memory_instantiates_under_the_guard():
    """Copying it checks the epoch: against the store's default deadline (0) that was a trap."""
    import time

    time.sleep(0.05)  # the epoch has moved on since the engine started
    address = 36_000_000
    wasm = wat.module(f"i64.const {(address << 32) | 2}", memory='(memory (export "memory") 1024)',
                      extra=f'(data (i32.const {address}) "{{}}")')
    outcome = run(wasm, max_memory_bytes=1024 * PAGE)
    assert outcome.status is Status.PASSED, outcome.message


def test_fuel_is_deterministic_across_runs():
    wasm = wat.constant(b"{}", iterations=1000)
    assert len({run(wasm).fuel for _ in range(5)}) == 1


# --- over the limit, out of fuel --------------------------------------------------------------------


def test_a_correct_answer_between_limit_and_ceiling_is_over_limit_with_its_overshoot():
    wasm = wat.constant(b"{}", iterations=100)
    used = run(wasm).fuel
    outcome = run(wasm, fuel_limit=used - 50, ceiling=used * 2)
    assert outcome.status is Status.OVER_LIMIT
    assert outcome.fuel == used
    assert outcome.overshoot == 50


def test_exactly_at_the_limit_passes():
    wasm = wat.constant(b"{}", iterations=100)
    used = run(wasm).fuel
    assert run(wasm, fuel_limit=used, ceiling=used + 1).status is Status.PASSED


def test_using_the_whole_ceiling_reads_as_fuel_exhausted():
    """0 fuel left cannot be told apart from an overrun, so it counts as one (docs/method.md)."""
    wasm = wat.constant(b"{}", iterations=100)
    used = run(wasm).fuel
    outcome = run(wasm, fuel_limit=used)
    assert (outcome.status, outcome.fuel) == (Status.FUEL_EXHAUSTED, used)


def test_running_out_of_fuel_is_fuel_exhausted_with_the_ceiling_recorded():
    outcome = run(wat.module("(loop $forever (br $forever)) unreachable"), fuel_limit=1000, ceiling=1500)
    assert outcome.status is Status.FUEL_EXHAUSTED
    assert (outcome.fuel, outcome.overshoot) == (1500, 0)


def test_running_out_of_fuel_in_alloc_is_fuel_exhausted():
    looping_alloc = '(func (export "alloc") (param i32) (result i32) (loop $l (br $l)) i32.const 0)'
    outcome = run(wat.module(alloc=looping_alloc), fuel_limit=500)
    assert (outcome.status, outcome.fuel) == (Status.FUEL_EXHAUSTED, 500)


def test_straight_line_code_that_overruns_the_ceiling_is_fuel_exhausted():
    """No trap fires (no loop, no call), but the store reads 0 fuel after the entry returns."""
    body = " ".join(["i32.const 1 drop"] * 200) + " " + wat.ECHO
    outcome = run(wat.module(body), fuel_limit=50)
    assert outcome.status is Status.FUEL_EXHAUSTED
    assert outcome.fuel == 50
    assert run(wat.module(body), fuel_limit=1000).status is Status.PASSED


def test_zero_fuel_left_after_alloc_is_fuel_exhausted():
    straight_alloc = '(func (export "alloc") (param i32) (result i32) ' + "i32.const 1 drop " * 100 + "i32.const 1024)"
    outcome = run(wat.module(alloc=straight_alloc), fuel_limit=20)
    assert (outcome.status, outcome.fuel) == (Status.FUEL_EXHAUSTED, 20)


# --- timeout and traps ----------------------------------------------------------------------------


def test_the_wall_clock_guard_fires_as_timeout():
    outcome = run(wat.module("(loop $forever (br $forever)) unreachable"), fuel_limit=10**15, wall_seconds=0.2)
    assert outcome.status is Status.TIMEOUT
    assert 0 < outcome.fuel < 10**15
    assert outcome.wall_ms >= 150


def test_the_epoch_advances_only_while_runs_are_under_way_and_each_ends_its_share():
    """The guard's ticks stop once no run is under way (an idle process does not wake a hundred
    times a second), whatever way a run ends: two at once, one stopped by the guard, one whose
    judge fails; after them the next run's guard fires again."""
    import importlib
    from concurrent.futures import ThreadPoolExecutor

    engine_module = importlib.import_module("engine.sandbox.engine")  # the package names its function `engine`

    forever = wat.module("(loop $forever (br $forever)) unreachable")
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(lambda _: run(forever, fuel_limit=10**15, wall_seconds=0.2), range(2)))
    assert [outcome.status for outcome in outcomes] == [Status.TIMEOUT] * 2
    with pytest.raises(ZeroDivisionError):
        solution(wat.module("i64.const 0")).run(b"{}", fuel_limit=1000, ceiling=1000, wall_seconds=1,
                                                answer_limit=ANSWER_LIMIT, judge=lambda output, deadline: 1 / 0)
    assert engine_module._runs == 0
    assert run(forever, fuel_limit=10**15, wall_seconds=0.2).status is Status.TIMEOUT


@pytest.mark.parametrize(
    "body, message",
    [
        ("unreachable", "wasm trap: wasm `unreachable` instruction executed"),
        ("i32.const 70000 i32.load drop i64.const 0",
         "memory fault at wasm address 0x11170 in linear memory of size 0x10000; "
         "wasm trap: out of bounds memory access"),
        ("i32.const 1 i32.const 0 i32.div_u drop i64.const 0", "wasm trap: integer divide by zero"),
    ],
)
def test_traps_are_trapped_with_the_message_and_no_backtrace(body, message):
    outcome = run(wat.module(body))
    assert outcome.status is Status.TRAPPED
    assert outcome.message == message
    assert "backtrace" not in outcome.message
    assert outcome.fuel is not None and outcome.fuel > 0


def test_stack_overflow_is_trapped():
    recursive = '(func $down (param i32) (result i32) (call $down (i32.add (local.get 0) (i32.const 1))))'
    outcome = run(wat.module("(drop (call $down (i32.const 0))) i64.const 0", extra=recursive), fuel_limit=10**12)
    assert outcome.status is Status.TRAPPED
    assert outcome.message == "wasm trap: call stack exhausted"


def test_alloc_returning_an_out_of_range_buffer_is_trapped():
    bad_alloc = '(func (export "alloc") (param i32) (result i32) i32.const -8)'  # 0xFFFFFFF8 as u32
    outcome = run(wat.module(alloc=bad_alloc))
    assert (outcome.status, outcome.message) == (Status.TRAPPED, "alloc returned an out-of-range buffer")


def test_trap_message_keeps_every_cause_without_numbers():
    text = "error while executing at wasm backtrace:\n    0: 0x6e - f\n\nCaused by:\n    0: first\n    1: second\n"

    class Fake(Exception):
        message = text

    assert trap_message(Fake()) == "first; second"


# --- the memory cap -------------------------------------------------------------------------------

GROW_OR_TRAP = "(if (i32.eq (memory.grow (i32.const {pages})) (i32.const -1)) (then unreachable)) " + wat.ECHO


def test_memory_growth_beyond_the_cap_is_refused():
    outcome = run(wat.module(GROW_OR_TRAP.format(pages=4)), max_memory_bytes=4 * PAGE)  # 1 + 4 > 4 pages
    assert outcome.status is Status.TRAPPED
    assert "unreachable" in outcome.message


def test_memory_growth_within_the_cap_succeeds():
    assert run(wat.module(GROW_OR_TRAP.format(pages=3)), max_memory_bytes=4 * PAGE).status is Status.PASSED


def test_memory_growing_in_a_loop_stops_at_the_cap():
    body = "(loop $more (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))) " + wat.ECHO
    outcome = run(wat.module(body), max_memory_bytes=64 * PAGE)
    assert outcome.status is Status.PASSED  # growth fails quietly at 64 pages; the echo still works


# --- invalid output -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "packed, fragment",
    [
        ((70_000 << 32) | 10, "output range [70000, 70010) is outside memory"),
        (0xFFFF_FFFF, "output range [0, 4294967295) is outside memory"),  # a 4 GiB length
        ((0x8000_0000 << 32) | 2, "output range [2147483648, 2147483650)"),  # read unsigned
    ],
)
def test_an_output_range_outside_memory_is_invalid_output(packed, fragment):
    outcome = run(wat.returning(packed))
    assert outcome.status is Status.INVALID_OUTPUT
    assert fragment in outcome.message


@pytest.mark.parametrize(
    "output, fragment",
    [
        (b'{"sum": "\xff"}', "not UTF-8"),
        (b"", "empty"),
        (b"   ", "empty"),
        (b'{"sum": 6', "not JSON"),
        (b'{"sum": NaN}', "NaN is not JSON"),
        (b'{"sum": Infinity}', "Infinity is not JSON"),
        (b'\xef\xbb\xbf{"sum": 6}', "byte-order mark"),
        (b'{"sum": 6} x', "not JSON"),
        (b'{"sum": 7, "sum": 6}', "gives the same key twice"),  # one answer to one reader, another to the next
        (b'{"sum": "six"}', "does not match the output schema: at /sum: fails `type`"),
        (b'{"total": 6}', "does not match the output schema: at the document root: fails `required`"),
    ],
)
def test_bad_output_is_invalid_output(output, fragment):
    outcome = run(wat.constant(output), expected={"sum": 6}, validator=SUM_SCHEMA)
    assert outcome.status is Status.INVALID_OUTPUT
    assert fragment in outcome.message
    assert outcome.fuel == 4  # informational: the fuel consumed up to that point


# --- wrong answers ---------------------------------------------------------------------------------


def test_a_wrong_answer_names_the_first_differing_pointer_but_never_the_values():
    outcome = run(wat.constant(b'{"sum": 7}'), expected={"sum": 6}, validator=SUM_SCHEMA)
    assert outcome.status is Status.WRONG_ANSWER
    assert outcome.message == 'answer differs from the expected answer at JSON pointer "/sum"'
    assert "6" not in outcome.message and "7" not in outcome.message


def test_a_wrong_answer_at_the_root():
    outcome = run(wat.constant(b"[]"), expected={}, validator=b"true")
    assert outcome.message == 'answer differs from the expected answer at the document root (JSON pointer "")'


# --- invalid modules -------------------------------------------------------------------------------


@pytest.mark.parametrize("name, wasm, fragment", INVALID_MODULES, ids=[item[0] for item in INVALID_MODULES])
def test_invalid_modules_are_refused_with_a_reason(name, wasm, fragment):
    with pytest.raises(InvalidModule) as refused:
        solution(wasm)
    assert fragment in refused.value.message


def test_every_problem_of_a_module_is_named_at_once():
    wasm = wat.module(alloc="", imports='(import "env" "f" (func))', extra="(func $init) (start $init)")
    with pytest.raises(InvalidModule) as refused:
        solution(wasm)
    assert "import-free" in refused.value.message
    assert "start function" in refused.value.message
    assert "missing export `alloc`" in refused.value.message


def test_a_module_over_the_size_cap_is_refused_before_compiling():
    cache = ModuleCache()
    with pytest.raises(InvalidModule, match="more than the 50-byte limit"):
        load_solution(wat.module(), entry="solve", max_memory_bytes=4 * PAGE, cache=cache, max_module_bytes=50)
    assert cache.compiles == 0


# --- the compile cache -------------------------------------------------------------------------------


def test_a_module_is_compiled_once_and_then_served_from_the_cache(tmp_path):
    cache = ModuleCache(tmp_path)
    wasm = wat.constant(b"{}")
    first = solution(wasm, cache=cache)
    second = solution(wasm, cache=cache)
    assert cache.compiles == 1
    assert first.module is second.module
    cached = f"{first.digest}-wasmtime-{wasmtime_version()}-{ENGINE_DIGEST}.cwasm"
    assert [path.name for path in tmp_path.iterdir()] == [cached]
    # A new process (a new cache object) finds it on disk.
    fresh = ModuleCache(tmp_path)
    outcome = run(wasm, fuel_limit=100, ceiling=100, wall_seconds=5, cache=fresh)
    assert fresh.compiles == 0
    assert outcome.status is Status.PASSED


def test_a_damaged_cache_file_is_compiled_again(tmp_path):
    wasm = wat.constant(b"{}")
    digest = solution(wasm, cache=ModuleCache(tmp_path)).digest
    next(tmp_path.iterdir()).write_bytes(b"garbage")
    cache = ModuleCache(tmp_path)
    assert solution(wasm, cache=cache).digest == digest
    assert cache.compiles == 1


def test_a_cache_folder_or_file_someone_else_could_write_is_never_read(tmp_path):
    """An artifact is machine code run as it is: a folder of another account (the site's, when
    this process is root), a folder others may write to, or a file another account owns is
    never loaded; the module is compiled instead (and nothing is written there)."""
    import os

    wasm, other = wat.constant(b"{}"), wat.constant(b'{"x": 1}')
    writer = ModuleCache(tmp_path / "mine")
    digest = solution(wasm, cache=writer).digest
    impostor_digest = solution(other, cache=writer).digest
    folder = tmp_path / "mine"
    # Another module's artifact under this module's name: the swap a writer of the folder could make.
    name = lambda d: f"{d}-wasmtime-{wasmtime_version()}-{ENGINE_DIGEST}.cwasm"  # noqa: E731
    (folder / name(digest)).write_bytes((folder / name(impostor_digest)).read_bytes())
    for change in ("group-writable folder", "file of another account", "folder of another account"):
        if change == "group-writable folder":
            folder.chmod(0o770)
        elif change == "file of another account":
            folder.chmod(0o700)
            os.chown(folder / name(digest), 65534, 65534)
        else:
            os.chown(folder, 65534, 65534)
        cache = ModuleCache(folder)
        loaded = solution(wasm, cache=cache)
        assert cache.compiles == 1, change
        assert loaded.run(b"{}", fuel_limit=100, ceiling=100, wall_seconds=5, answer_limit=ANSWER_LIMIT,
                          judge=lambda output, deadline: Judge(ANY_OBJECT, memory_bytes=1 << 30).check(
                              output, b"{}", deadline=deadline)).status is Status.PASSED, change
    made = ModuleCache(tmp_path / "fresh")
    solution(wasm, cache=made)
    assert oct((tmp_path / "fresh").stat().st_mode & 0o777) == "0o700"


def wasmtime_version() -> str:
    from importlib.metadata import version

    return version("wasmtime")


def test_the_engine_meters_fuel():
    """Guard for every test above: without consume_fuel set_fuel would fail."""
    from engine.sandbox import engine

    store = wasmtime.Store(engine())
    store.set_fuel(10)
    assert store.get_fuel() == 10


# --- hostile modules --------------------------------------------------------------------------------


def test_a_module_that_takes_too_long_to_compile_is_invalid_and_the_compiler_is_stopped(tmp_path):
    import time

    cache = ModuleCache(tmp_path, compile_seconds=1)
    wasm = slow_to_compile()
    started = time.monotonic()
    with pytest.raises(InvalidModule, match="module did not compile within 1 s"):
        load_solution(wasm, entry="solve", max_memory_bytes=4 * PAGE, cache=cache)
    assert time.monotonic() - started < 5
    assert cache.compiles == 0 and list(tmp_path.iterdir()) == []


def test_compiling_in_a_child_gives_the_same_module_and_fuel(tmp_path):
    wasm = wat.constant(b"{}", iterations=500)
    in_child = load_solution(wasm, entry="solve", max_memory_bytes=4 * PAGE, cache=ModuleCache(tmp_path,
                                                                                               compile_seconds=30))
    in_process = solution(wasm)
    judge = Judge(ANY_OBJECT, memory_bytes=1 << 30)
    arguments = dict(fuel_limit=10**6, ceiling=10**6, wall_seconds=5, answer_limit=ANSWER_LIMIT,
                     judge=lambda output, deadline: judge.check(output, b"{}", deadline=deadline))
    assert in_child.run(b"{}", **arguments).fuel == in_process.run(b"{}", **arguments).fuel
    with pytest.raises(InvalidModule, match="module does not compile"):
        load_solution(b"\0asm\x01\x00\x00\x00\xff\xff", entry="solve", max_memory_bytes=4 * PAGE,
                      cache=ModuleCache(tmp_path, compile_seconds=30))


# --- what a module chooses is never shown to the public -------------------------------------------

MARKER = "SECRETNAME"


def test_import_names_are_shown_to_staff_only():
    with pytest.raises(InvalidModule) as refused:
        solution(wat.module(imports=f'(import "env" "{MARKER}" (func)) (import "{MARKER}2" "x" (func))'))
    assert refused.value.message == "module must be import-free but imports 2 items"
    assert MARKER not in refused.value.message
    assert f"`env.{MARKER}`" in refused.value.detail


def test_a_trap_never_shows_the_modules_function_names():
    """wasmtime's backtrace names functions from the module's name section: only staff see it."""
    text = f"""(module {wat.MEMORY} {wat.ALLOC}
      (func ${MARKER} (result i64) unreachable)
      (func (export "solve") (param i32 i32) (result i64) (call ${MARKER})))"""
    outcome = run(wasmtime.wat2wasm(text))
    assert outcome.status is Status.TRAPPED
    assert outcome.message == "wasm trap: wasm `unreachable` instruction executed"
    assert MARKER in outcome.detail


def test_a_compiler_message_that_quotes_the_module_is_cut_to_a_plain_form():
    duplicated = wat.module(extra=f'(func (export "{MARKER}")) (func (export "{MARKER}"))')
    with pytest.raises(InvalidModule) as refused:
        solution(bytes(duplicated))
    assert refused.value.message == "module does not compile"
    assert MARKER in refused.value.detail


def test_a_schema_violation_under_a_key_of_the_answers_own_hides_the_key():
    schema = b'{"type": "object", "additionalProperties": {"type": "integer"}}'
    outcome = run(wat.constant(f'{{"sum": 6, "{MARKER}": "x"}}'.encode()), expected={"sum": 6}, validator=schema)
    assert outcome.status is Status.INVALID_OUTPUT
    assert outcome.message == ("output does not match the output schema: at /…: fails `type` "
                               "(schema path /additionalProperties/type)")
    assert f"/{MARKER}" in outcome.detail


def test_a_wrong_answer_with_an_extra_key_names_its_place_but_not_the_key():
    outcome = run(wat.constant(f'{{"sum": 6, "nested": {{"{MARKER}": 1}}}}'.encode()),
                  expected={"sum": 6, "nested": {}}, validator=b"true")
    assert outcome.message == 'answer differs from the expected answer at JSON pointer "/nested/…"'
    assert f"/nested/{MARKER}" in outcome.detail


def test_keys_and_indexes_the_expected_answer_has_are_shown_in_full():
    outcome = run(wat.constant(b'{"rows": [1, {"x": 2}]}'), expected={"rows": [1, {"x": 3}]}, validator=b"true")
    assert outcome.message == 'answer differs from the expected answer at JSON pointer "/rows/1/x"'
    assert outcome.detail == ""


# --- judging is bounded like running ----------------------------------------------------------------


def test_an_answer_over_the_size_cap_is_invalid_output_before_it_is_read():
    outcome = run(wat.filled(b"[", b"0", 2_000_000, b"0]", pages=64), answer_limit=1_000_000,
                  max_memory_bytes=64 * PAGE, fuel_limit=10**9)
    assert outcome.status is Status.INVALID_OUTPUT
    assert outcome.message == "output is 4,000,003 bytes, more than the 1,000,000-byte limit for this input"
    assert outcome.output_size == 4_000_003 and outcome.fuel > 0


def test_an_answer_that_takes_too_long_to_judge_is_invalid_output_within_the_budget():
    """A catastrophic `pattern` cannot be interrupted in Python: the judge process is killed."""
    import time

    schema = b'{"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}}'
    started = time.monotonic()
    outcome = run(wat.constant(b'["' + b"a" * 40 + b'!"]'), expected=["a"], validator=schema, wall_seconds=1.0)
    assert outcome.status is Status.INVALID_OUTPUT
    assert outcome.message == "judging the answer did not finish within the input's wall-clock budget"
    assert time.monotonic() - started < 10


def test_an_answer_that_needs_too_much_memory_to_judge_is_invalid_output():
    from engine.judging import Judge

    wasm = wat.filled(b"[", b"{}", 5_000_000, b"0]", pages=256)  # 15 MB of empty objects: gigabytes as dicts
    judge = Judge(b'{"type": "array"}', memory_bytes=256 << 20)
    outcome = solution(wasm, max_memory_bytes=256 * PAGE).run(
        b"{}", fuel_limit=10**10, ceiling=10**10, wall_seconds=60, answer_limit=1 << 30,
        judge=lambda output, deadline: judge.check(output, b"[]", deadline=deadline),
    )
    assert outcome.status is Status.INVALID_OUTPUT
    assert "bytes of memory" in outcome.message


def test_a_judge_process_that_was_killed_is_replaced():
    from engine.judging import POOL

    POOL.close()  # no idle judge left: the next request starts one, and it is killed
    started = POOL.started
    test_an_answer_that_takes_too_long_to_judge_is_invalid_output_within_the_budget()
    assert POOL.started == started + 1
    assert run(wat.constant(b'{"sum": 6}'), expected={"sum": 6}).status is Status.PASSED
    assert POOL.started == started + 2  # a fresh one replaced it


# --- the engine's configuration ----------------------------------------------------------------------


def test_nans_are_canonical_whatever_the_hardware_gives():
    """0/0 is a NaN whose sign bit x86 sets; canonicalised, it reads 0x7ff8000000000000."""
    outcome = run(wat.module("f64.const 0 f64.const 0 f64.div i64.reinterpret_f64"))
    assert outcome.status is Status.INVALID_OUTPUT
    assert "output range [2146959360, 2146959360)" in outcome.message


def test_the_engine_configuration_is_spelled_out_and_named_by_a_digest():
    from engine.sandbox import ENGINE_DIGEST, ENGINE_SETTINGS

    assert ENGINE_SETTINGS["cranelift_nan_canonicalization"] and ENGINE_SETTINGS["wasm_relaxed_simd_deterministic"]
    assert not any(ENGINE_SETTINGS[name] for name in ("wasm_threads", "wasm_gc", "wasm_exceptions", "wasm_memory64",
                                                      "wasm_component_model", "wasm_stack_switching",
                                                      "wasm_multi_memory"))
    assert len(ENGINE_DIGEST) == 12


def test_the_disk_cache_stays_under_its_byte_cap_and_keeps_what_was_used_last(tmp_path):
    import time

    modules = [wat.constant(b"{}", iterations=index + 1) for index in range(5)]
    writer = ModuleCache(tmp_path)
    for wasm in modules[:3]:
        solution(wasm, cache=writer)
        time.sleep(0.01)
    artifact = max(path.stat().st_size for path in tmp_path.glob("*.cwasm"))
    # Another process (a fresh cache on the same folder) uses the first one again, then adds more.
    shared = ModuleCache(tmp_path, max_bytes=int(artifact * 3.5))
    solution(modules[0], cache=shared)
    for wasm in modules[3:]:
        time.sleep(0.01)
        solution(wasm, cache=ModuleCache(tmp_path, max_bytes=int(artifact * 3.5)))
    kept = {path.name.split("-")[0] for path in tmp_path.glob("*.cwasm")}
    assert sum(path.stat().st_size for path in tmp_path.glob("*.cwasm")) <= artifact * 3.5
    digests = [module_digest(wasm) for wasm in modules]
    # 1 and 2 were the least recently used; 0 was used again after them.
    assert kept == {digests[0], digests[3], digests[4]}


def test_a_module_that_needs_too_much_memory_to_compile_is_invalid(tmp_path):
    """The compiler child's address space is capped, as a judge's is."""
    cache = ModuleCache(tmp_path, compile_seconds=60, compile_memory_bytes=400 << 20)
    with pytest.raises(InvalidModule, match="module needs more than 419,430,400 bytes of memory to compile") as error:
        load_solution(slow_to_compile(functions=1, groups=150_000), entry="solve", max_memory_bytes=4 * PAGE,
                      cache=cache)
    assert error.value.code == "compile_memory"
    # The same cap leaves room for an ordinary module.
    load_solution(wat.constant(b"{}"), entry="solve", max_memory_bytes=4 * PAGE, cache=cache)
