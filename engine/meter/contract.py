"""What the meter needs to know of a case version to run a module as the site runs it: the
contract (entry, schemas), the sandbox (fuel limit, memory cap), the site's own limits (wall-clock
guard, answer sizes, module size, compiling and judging), each held-out input's runway, the
largest answer the site reads for any of them, how the site builds a submission and with which
compiler.

The site writes it (`catalog/metering.py`) into every kit as `meter/contract.json`; the meter
reads it back. The engine it was written for is named in it too: a meter on another wasmtime
or another engine configuration would count other figures, so it refuses to run.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from engine.kinds import fuel_ceiling, runway_problem
from engine.measure import SiteLimits, Task

FORMAT = 2


class ContractError(Exception):
    """The contract file is missing, damaged, or was written for another engine."""


@dataclass(frozen=True)
class Runway:
    """A held-out input's runway, by the input's name in the manifest: its ceiling on the site."""

    input: str
    kind: str
    runway: str  # a decimal, as the manifest wrote it
    ceiling: int


@dataclass(frozen=True)
class Contract:
    case: str
    version: str
    variant: str
    entry: str
    input_schema: str  # the schema files' text, as the site judges with them
    output_schema: str
    fuel_limit: int
    max_memory_bytes: int
    wall_seconds: float
    answer_min_bytes: int
    answer_size_factor: int
    module_bytes: int
    compile_seconds: float
    compile_memory_bytes: int
    judge_memory_bytes: int
    runways: tuple[Runway, ...]
    wasmtime: str
    config_digest: str
    answer_bytes: int  # the largest answer the site reads for any held-out input (the cap without --expected)
    build_install: str  # how the site builds a submission: the commands, run in its folder, and the module
    build_command: str
    build_module: str
    build_seconds: float
    compiler: str  # "rustc 1.96.0": what the site builds with

    def ceiling(self, runway: Decimal) -> int:
        return fuel_ceiling(self.fuel_limit, runway)

    @property
    def limits(self) -> SiteLimits:
        return SiteLimits(wall_seconds=self.wall_seconds, answer_min_bytes=self.answer_min_bytes,
                          answer_size_factor=self.answer_size_factor, module_bytes=self.module_bytes,
                          compile_seconds=self.compile_seconds, compile_memory_bytes=self.compile_memory_bytes,
                          judge_memory_bytes=self.judge_memory_bytes)

    @property
    def task(self) -> Task:
        return Task(self.entry, self.output_schema.encode("utf-8"), self.fuel_limit, self.max_memory_bytes)

    def runway(self, choice: str) -> Decimal:
        """A runway given as a number (`1.5`) or by a held-out input's name (`cases/large.json`
        or `large`). Raises ValueError with the choices."""
        for runway in self.runways:
            if choice in (runway.input, Path(runway.input).stem, Path(runway.input).name):
                return Decimal(runway.runway)
        try:
            value = Decimal(choice)
        except InvalidOperation:
            value = None
        if value is None or not value.is_finite() or value < 1:
            names = ", ".join(f"{Path(runway.input).stem} ({runway.runway})" for runway in self.runways)
            raise ValueError(f"--runway {choice[:60]!r} is neither a number of at least 1 nor an input's name"
                             + (f"; the inputs: {names}" if names else ""))
        problem = runway_problem(self.fuel_limit, value)  # bounded as the manifest bounds a runway
        if problem is not None:
            raise ValueError(f"--runway {choice[:60]}: a runway {problem}")
        return value

    def as_json(self) -> dict:
        document = asdict(self)
        document["runways"] = [asdict(runway) for runway in self.runways]
        return {"format": FORMAT, **document}

    def dumps(self) -> str:
        """Stable text: the same contract is the same bytes (kits are byte-identical)."""
        return json.dumps(self.as_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load_contract(path: Path) -> Contract:
    """Read a contract file. Raises ContractError with what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContractError(f"{path}: no such contract file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ContractError(f"{path}: not a readable contract ({error})") from None
    return parse_contract(text, str(path))


def parse_contract(text: str, where: str) -> Contract:
    """A contract from its text (`where` names it in errors). Raises ContractError."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ContractError(f"{where}: not a readable contract ({error})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ContractError(f"{where}: not a contract of format {FORMAT}")
    try:
        fields = {key: value for key, value in document.items() if key != "format"}
        fields["runways"] = tuple(Runway(**runway) for runway in fields["runways"])
        contract = Contract(**fields)
    except (KeyError, TypeError) as error:
        raise ContractError(f"{where}: a damaged contract ({error})") from None
    return contract
