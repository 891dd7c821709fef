"""What scoring reports while it works: a build starting, the run starting, each input scored.

`score(submission, progress=...)` takes any object with these three methods. The base class
reports nothing; the `score` command prints lines, and tests subclass it to act mid-run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scoring.evaluate import HeldOutInput
    from scoring.sandbox import Outcome


class ScoringProgress:
    def building(self, command: str) -> None:
        """The submission's build is starting: `command` is the case's build command."""

    def running(self, inputs: int) -> None:
        """The module built and loaded; `inputs` held-out inputs are about to run."""

    def scored(self, index: int, held_out: HeldOutInput, outcome: Outcome) -> None:
        """Input `index` (manifest order) finished; called once per input, in completion order."""
