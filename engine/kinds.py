"""What the manifest and the evaluation share: the two kinds of held-out input (the manifest's
`kind`; smoke inputs gate the stress inputs) and the ceiling a runway gives an input."""

from __future__ import annotations

from decimal import Decimal, localcontext
from enum import StrEnum


class Kind(StrEnum):
    """A held-out input's kind: smoke inputs gate the stress inputs, which are ranked."""

    SMOKE = "smoke"
    STRESS = "stress"

    @classmethod
    def choices(cls) -> list[tuple[str, str]]:
        """For a model field: value and label."""
        return [(kind.value, kind.name.title()) for kind in cls]


def fuel_ceiling(fuel_limit: int, fuel_runway: Decimal) -> int:
    """floor(fuel_limit × fuel_runway), exactly: 100 × 1.15 is 115, not 114."""
    with localcontext() as context:
        context.prec = 200  # far beyond any product of two TOML numbers: never rounds
        return int((Decimal(fuel_limit) * fuel_runway).to_integral_value(rounding="ROUND_FLOOR"))
