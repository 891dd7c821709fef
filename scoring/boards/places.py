"""A submission's place on the boards: its group and key, as Python values and as SQL expressions."""

from __future__ import annotations

from django.db import models
from django.db.models import Case, F, Q, Value, When

RANKED, OVER_LIMIT, UNRANKED, EXCLUDED = 0, 1, 2, 3

# The board over every variant of a version: `variant_key` 0 in Standing, RecordStep and
# BoardSummary alike (a plain key, never NULL: "= 0" reads an index in board order).
ALL_VARIANTS = 0


def variant_key(variant_id: int | None) -> int:
    """The board key of one variant's board, or of every variant's (None)."""
    return variant_id or ALL_VARIANTS


GROUP_NAMES = {RANKED: "ranked", OVER_LIMIT: "over_limit", UNRANKED: "unranked", EXCLUDED: "excluded"}


# Board order, the one rule (docs/reading.md: fuel, then the earlier entry): of submissions, and of the
# standings rows that stand for them (their copies of the same columns; one index each).
BOARD_ORDER = ("board_group", "board_key", "submitted_at", "pk")
STANDING_ORDER = ("board_group", "board_key", "submitted_at", "submission_id")


def engine_label(wasmtime_version: str, engine_digest: str) -> str:
    """How a board names the engine that measured an entry."""
    return f"{wasmtime_version} ({engine_digest or 'configuration not recorded'})"



def board_place(*, status: str, hidden: bool, passed: bool, total_fuel: int | None,
                passed_count: int, final_states, excluded: bool = False) -> tuple[int | None, int | None]:
    """(group, key) of a submission on the boards, or (None, None) when it is not on them.

    An entry staff excluded from ranking stays on the board, below every other group, in the
    order its results would give it."""
    if hidden or status not in final_states:
        return None, None
    if excluded:
        return EXCLUDED, total_fuel if total_fuel is not None else -passed_count
    if passed:
        return RANKED, total_fuel
    if total_fuel is not None:  # every stress input answered correctly, some over the line
        return OVER_LIMIT, total_fuel
    return UNRANKED, -passed_count


def board_place_expressions(final_states) -> dict:
    """`board_place` as SQL expressions, for updating many rows at once."""
    on_board = Q(hidden=False, status__in=final_states)
    return {
        "board_group": Case(
            When(~on_board, then=Value(None)), When(excluded=True, then=Value(EXCLUDED)),
            When(passed=True, then=Value(RANKED)),
            When(total_fuel__isnull=False, then=Value(OVER_LIMIT)), default=Value(UNRANKED),
            output_field=models.SmallIntegerField(),
        ),
        "board_key": Case(
            When(~on_board, then=Value(None)), When(total_fuel__isnull=False, then=F("total_fuel")),
            default=-F("passed_count"), output_field=models.BigIntegerField(),
        ),
    }


def speedup(reference_fuel: int | None, fuel: int | None) -> float | None:
    """A speedup against a reference: its fuel ÷ `fuel` (above 1: `fuel` is less); None without a
    reference, or without a fuel to compare."""
    if reference_fuel is None or fuel is None:
        return None
    return max(reference_fuel, 1) / max(fuel, 1)
