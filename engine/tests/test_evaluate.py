"""The smoke phase gates the stress phase; parallel runs give the results of serial ones."""

from __future__ import annotations

import json

from engine.evaluate import EvaluationInput, evaluate
from engine.judging import Judge
from engine.kinds import Kind
from engine.sandbox import ModuleCache, Status, load_solution
from engine.tests import wat

ANY = Judge(b"true", memory_bytes=1 << 30)


def held_out(kind: str, document: dict, *, expected: dict | None = None, ceiling: int = 10**9) -> EvaluationInput:
    return EvaluationInput(kind, f"{kind}/{len(json.dumps(document))}.json", json.dumps(document).encode(),
                   json.dumps(document if expected is None else expected).encode(), ceiling, 1 << 20)


def echo_solution():
    return load_solution(wat.module(), entry="solve", max_memory_bytes=1 << 20, cache=ModuleCache())


def run(items, *, threads: int = 1, fuel_limit: int = 10**9, solution=None):
    return evaluate(solution or echo_solution(), items, fuel_limit=fuel_limit, judge=ANY,
                    wall_seconds=10, threads=threads)


def test_all_correct_is_passed_with_the_stress_fuel_total():
    items = [held_out(Kind.SMOKE, {"a": 1}), held_out(Kind.STRESS, {"b": 2}), held_out(Kind.STRESS, {"c": [3]})]
    evaluation = run(items)
    assert [outcome.status for outcome in evaluation.outcomes] == [Status.PASSED] * 3
    assert evaluation.passed
    # The smoke case's fuel is recorded but not scored.
    assert evaluation.total_fuel == evaluation.outcomes[1].fuel + evaluation.outcomes[2].fuel


def test_a_failed_smoke_case_skips_every_stress_case_and_every_smoke_case_still_runs():
    items = [
        held_out(Kind.SMOKE, {"a": 1}, expected={"a": 2}),  # fails
        held_out(Kind.SMOKE, {"b": 1}, expected={"b": 3}),  # fails too, and is still reported
        held_out(Kind.SMOKE, {"ok": 1}),
        held_out(Kind.STRESS, {"c": 1}),
    ]
    evaluation = run(items)
    assert [outcome.status for outcome in evaluation.outcomes] == [
        Status.WRONG_ANSWER, Status.WRONG_ANSWER, Status.PASSED, Status.SKIPPED,
    ]
    skipped = evaluation.outcomes[3]
    assert (skipped.fuel, skipped.overshoot) == (None, 0)
    assert not evaluation.passed
    assert evaluation.total_fuel is None


def test_an_over_limit_smoke_case_succeeds_but_an_over_limit_stress_case_fails_the_submission():
    solution = echo_solution()
    fuel = run([held_out(Kind.STRESS, {"x": 1})], solution=solution).outcomes[0].fuel
    items = [held_out(Kind.SMOKE, {"x": 1}), held_out(Kind.STRESS, {"x": 1})]
    evaluation = run(items, fuel_limit=fuel - 1, solution=solution)
    assert [outcome.status for outcome in evaluation.outcomes] == [Status.OVER_LIMIT, Status.OVER_LIMIT]
    assert not evaluation.passed
    assert evaluation.total_fuel == fuel  # correct, so the total is known
    assert evaluation.overshoot == 1


def test_a_wrong_stress_answer_leaves_no_total():
    evaluation = run([held_out(Kind.STRESS, {"x": 1}), held_out(Kind.STRESS, {"y": 1}, expected={"y": 2})])
    assert evaluation.total_fuel is None
    assert evaluation.passed_count == 1


def test_parallel_evaluation_equals_serial_evaluation():
    solution = load_solution(
        wat.module(wat.burn(5000) + " " + wat.ECHO), entry="solve", max_memory_bytes=1 << 20, cache=ModuleCache()
    )
    items = [held_out(Kind.SMOKE, {"smoke": 0})] + [held_out(Kind.STRESS,
                                                             {"n": list(range(index))}) for index in range(16)]
    serial = run(items, threads=1, solution=solution)
    parallel = run(items, threads=4, solution=solution)
    strip = lambda evaluation: [(o.status, o.fuel, o.overshoot, o.message) for o in evaluation.outcomes]  # noqa: E731
    assert strip(serial) == strip(parallel)
    assert serial.total_fuel == parallel.total_fuel


def test_progress_reports_every_input():
    seen = []
    items = [held_out(Kind.SMOKE, {"a": 1}, expected={"a": 0}), held_out(Kind.STRESS, {"b": 1})]
    evaluate(echo_solution(), items, fuel_limit=10**9, judge=ANY, wall_seconds=10,
             progress=lambda index, item, outcome: seen.append((index, outcome.status)))
    assert sorted(seen) == [(0, Status.WRONG_ANSWER), (1, Status.SKIPPED)]
