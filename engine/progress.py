"""What scoring reports while it works: a build starting, the run starting, each input scored.

`score(submission, progress=...)` takes any object with these three methods. The base class
reports nothing; `StreamProgress` prints lines (the `score` and `carry_forward` commands), and tests subclass it to act
mid-run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.evaluate import EvaluationInput
    from engine.sandbox import Outcome


class ScoringProgress:
    def building(self, command: str) -> None:
        """The submission's build is starting: `command` is the case's build command."""

    def running(self, inputs: int) -> None:
        """The module built and loaded; `inputs` held-out inputs are about to run."""

    def scored(self, index: int, held_out: EvaluationInput, outcome: Outcome) -> None:
        """Input `index` (manifest order) finished; called once per input, in completion order."""


def fuel_text(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


class StreamProgress(ScoringProgress):
    """Progress on a stream: one rewritten line on a terminal, plain lines otherwise."""

    def __init__(self, output, total_inputs: int):
        self.output = output  # a command's OutputWrapper
        self.live = output.isatty()
        self.total = total_inputs
        self.done = 0

    def write(self, text: str) -> None:
        self.output.write(text, style_func=lambda plain: plain, ending="")
        self.output.flush()

    def line(self, text: str) -> None:
        self.write(("\r\033[K" if self.live else "") + text + "\n")

    def building(self, command: str) -> None:
        self.line(f"building: {command}")
        if self.live:
            self.write("building…")

    def running(self, inputs: int) -> None:
        self.total = inputs
        if self.live:
            self.write(f"\r\033[Krunning {self.total} input(s)…")

    def scored(self, index, held_out, outcome) -> None:
        self.done += 1
        text = (f"[{self.done}/{self.total}] {held_out.kind:<6} {held_out.input_path:<32} "
                f"{outcome.status.value:<15} {fuel_text(outcome.fuel):>16} fuel")
        if self.live:
            self.write(f"\r\033[K{text}" + ("\n" if self.done == self.total else ""))
        else:
            self.line(text)
