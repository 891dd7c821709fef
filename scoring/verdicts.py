"""How an entry fared, in one phrase: the words every page and command uses for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    status: str  # the badge's kind: passed, over_limit, failed, or the submission's own state
    label: str  # the badge's words
    detail: str = ""  # "2/3 inputs passed" when it was scored and did not pass

    @property
    def text(self) -> str:
        return f"{self.label} ({self.detail})" if self.detail else self.label


def verdict_of(*, status: str, passed: bool, total_fuel: int | None, passed_count: int, input_count: int) -> Verdict:
    """Scored and passed; scored, every answer right but over the pass line; scored and not
    passed, with how many inputs did; or not scored (its state: build failed, pending…)."""
    if status != "scored":
        return Verdict(status, status.replace("_", " "))
    if passed:
        return Verdict("passed", "passed")
    if total_fuel is not None:
        return Verdict("over_limit", "over limit")
    return Verdict("failed", "not passed", f"{passed_count}/{input_count} inputs passed")
