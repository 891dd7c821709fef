"""How scoring works (`/about/`), with every figure read from the code and the settings."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from engine.sandbox.engine import ENGINE_SETTINGS, MAX_WASM_STACK, TABLE_ELEMENTS_LIMIT
from lib.stats import wilson_interval
from scoring.epochs import site_engine
from scoring.speedups import FAST_K, FAST_P, p_key


def about(request: HttpRequest) -> HttpResponse:
    """How scoring works, with every figure read from the code and the settings."""
    wasmtime_version, engine_digest = site_engine()
    context = {
        "wasmtime_version": wasmtime_version,
        "engine_digest": engine_digest,
        "engine_on": [name for name, value in ENGINE_SETTINGS.items() if value is True],
        "engine_off": [name for name, value in ENGINE_SETTINGS.items() if value is False],
        "engine_values": [(name, value) for name, value in ENGINE_SETTINGS.items() if not isinstance(value, bool)],
        "max_wasm_stack": MAX_WASM_STACK,
        "table_elements": TABLE_ELEMENTS_LIMIT,
        "settings": {name: getattr(settings, name) for name in (
            "SCORING_WALL_SECONDS", "SCORING_BUILD_TIMEOUT", "SCORING_BUILD_CPU_SECONDS", "SCORING_BUILD_MEMORY_BYTES",
            "SCORING_BUILD_DISK_BYTES", "SCORING_BUILD_PROCESSES", "SCORING_BUILD_FILE_BYTES",
            "SCORING_MAX_MODULE_BYTES", "SCORING_MAX_SOURCE_BYTES", "SCORING_COMPILE_SECONDS",
            "SCORING_ANSWER_MIN_BYTES", "SCORING_ANSWER_SIZE_FACTOR", "SCORING_JUDGE_MEMORY_BYTES",
            "CARRY_FORWARD_TOP", "STANDINGS_REFRESH_SECONDS", "API_SUBMISSIONS_IN_FLIGHT", "API_SUBMISSIONS_PER_HOUR",
            "API_UPLOAD_MAX_BYTES", "VERIFY_NEW_RECORDS",
        )},
        "statuses": STATUS_MEANINGS,
        "speedup_example": (48_000, 12_000, 48_000 / 12_000),
        "fast_p": [p_key(p) for p in FAST_P],
        "fast_k": FAST_K,
        "wilson_examples": [(solved, trials, *wilson_interval(solved, trials)) for solved, trials in ((3, 4), (30,
                                                                                                               40))],
        "nav": "about",
    }
    return render(request, "scoring/about.html", context)


# The per-input statuses in the order they are checked (docs/method.md), as the about page explains them.
STATUS_MEANINGS = (
    ("fuel_exhausted", "the input's ceiling ran out (recorded as the ceiling; no answer)"),
    ("timeout", "the wall-clock guard fired"),
    ("trapped", "any other trap: unreachable, out of bounds, stack overflow… (wasmtime's message)"),
    ("invalid_output", "the answer is outside memory, not UTF-8, not strict JSON, too large, or not valid "
                       "against the output schema"),
    ("wrong_answer", "a valid answer not equal to the expected one (the message names the first differing "
                     "JSON pointer, never values)"),
    ("over_limit", "correct, but it used more fuel than the pass line (the overshoot is recorded)"),
    ("passed", "correct, within the pass line"),
    ("skipped", "a stress input not run because a smoke input failed; counts as failed"),
)
