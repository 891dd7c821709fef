"""What the manifest and the evaluation share: the two kinds of held-out input (the manifest's
`kind`; smoke inputs gate the stress inputs) and the ceiling a runway gives an input."""

from __future__ import annotations

from decimal import Decimal, localcontext
from enum import StrEnum

# Fuel counts are signed 64-bit integers (the TOML integer range, the database's columns).
INT64_MAX = 2**63 - 1
MAX_DECIMAL_LENGTH = 50  # the text of a decimal literal (fuel_runway, max_runtime_hours)


class Kind(StrEnum):
    """A held-out input's kind: smoke inputs gate the stress inputs, which are ranked."""

    SMOKE = "smoke"
    STRESS = "stress"

    @classmethod
    def choices(cls) -> list[tuple[str, str]]:
        """For a model field: value and label."""
        return [(kind.value, kind.name.title()) for kind in cls]


def runway_problem(fuel_limit: int, fuel_runway: Decimal) -> str | None:
    """Why a runway cannot be a runway of an input with this pass line (the manifest's rule), or None."""
    if not fuel_runway.is_finite() or fuel_runway < 1:
        return "must be a number of at least 1"
    if len(str(fuel_runway)) > MAX_DECIMAL_LENGTH:
        return f"must be written in at most {MAX_DECIMAL_LENGTH} characters"
    if fuel_ceiling(fuel_limit, fuel_runway) > INT64_MAX:
        return f"fuel_limit × fuel_runway exceeds {INT64_MAX} (a signed 64-bit integer)"
    return None


def fuel_ceiling(fuel_limit: int, fuel_runway: Decimal) -> int:
    """floor(fuel_limit × fuel_runway), exactly: 100 × 1.15 is 115, not 114."""
    with localcontext() as context:
        context.prec = 200  # far beyond any product of two TOML numbers: never rounds
        return int((Decimal(fuel_limit) * fuel_runway).to_integral_value(rounding="ROUND_FLOOR"))
