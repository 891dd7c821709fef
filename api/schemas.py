"""The declared shapes of the results' documents: Ninja validates every document sent against
them, and the OpenAPI schema is generated from them. What fills them is built once, in
scoring/documents.py."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Field, Schema


class LeaderboardRow(Schema):
    rank: int | None = Field(..., description="null unless the entry passed every input within the pass line")
    group: Literal["ranked", "over_limit", "unranked", "excluded"]
    name: str
    submission: int
    variant: str
    status: str
    passed: bool
    total_fuel: int | None
    overshoot: int = Field(..., description="fuel used past the inputs' pass lines, within their runway")
    passed_inputs: int
    inputs: int
    submitted_at: datetime
    engine: str = Field(..., description="the wasmtime version and engine configuration that measured it")
    current_engine: bool = Field(..., description="measured by the engine the site scores with today")
    carried_from: int | None = Field(..., description="the submission on an earlier version it was rescored from")
    model: str = Field(..., description="the model its run record names (empty when not recorded)")
    annotation: str = Field(..., description="staff's public note; an excluded entry's reason")
    url: str
    api_url: str


class Leaderboard(Schema):
    case: str
    version: str
    variant: str | None
    all: bool = Field(..., description="every submission, not only each submitter's best")
    model: str | None = Field(..., description="the model filter, if any")
    count: int
    next: str | None
    previous: str | None
    results: list[LeaderboardRow]


class Result(Schema):
    kind: Literal["smoke", "stress"]
    input: str
    status: str
    fuel: int | None
    fuel_limit: int
    ceiling: int
    overshoot: int
    wall_ms: float | None = Field(..., description="wall-clock milliseconds (not the measure)")
    message: str


class SubmissionDocument(Schema):
    submission: int
    case: str
    version: str
    variant: str
    name: str
    status: str
    job: Literal["queued", "running", "done", "failed"]
    message: str = Field(..., description="why the build failed or the module was refused, if it was")
    passed: bool
    total_fuel: int | None
    overshoot: int
    passed_inputs: int
    inputs: int
    wasmtime: str
    engine: str
    submitted_at: datetime
    created_at: datetime = Field(..., description="the same as submitted_at (kept for the clients of API v1)")
    scored_at: datetime | None
    carried_from: int | None
    run: dict[str, str | int | float] = Field(..., description="provenance: the run record's `run` fields (or score "
                                                                 "--meta); `cost_usd`, `input_tokens`, `output_tokens` "
                                                                 "and `wall_seconds` are numbers, the rest text")
    annotation: str = Field(..., description="staff's public note")
    excluded: bool = Field(..., description="excluded from ranking by staff (listed below the ranked entries)")
    results: list[Result]
    url: str


class ResultDetail(Result):
    detail: str = Field(..., description="the failure in the submission's own words (import names, its trap's frames)")


class SubmissionDetail(SubmissionDocument):
    build_log: str = Field(..., description="the tail of the build's output")
    detail: str = Field(..., description="why the build failed or the module was refused, in its own words")
    results: list[ResultDetail]


class OperatorSubmissions(Schema):
    count: int
    next: str | None
    previous: str | None
    results: list[SubmissionDocument]


class Side(Schema):
    submission: int
    name: str
    variant: str
    status: str
    passed: bool
    total_fuel: int | None
    carried_from: int | None


class InputFuel(Schema):
    status: str
    fuel: int | None


class InputPair(Schema):
    kind: str
    input: str
    a: InputFuel | None
    b: InputFuel | None
    ratio: float | None = Field(..., description="A's fuel ÷ B's, when both passed")


class ComparisonDocument(Schema):
    case: str
    version: str
    a: Side
    b: Side
    total_ratio: float | None
    geometric_mean: float | None
    inputs: list[InputPair]
    url: str


class DifficultyPart(Schema):
    solved: int
    score: float


class StandingsNote(Schema):
    case: str
    submission: int
    text: str


class StandingsLine(Schema):
    rank: int
    name: str
    solved: int
    entered: int
    score: float = Field(..., description="the sum over cases of best fuel ÷ own fuel (0 if unsolved)")
    geometric_mean: float | None
    difficulties: dict[str, DifficultyPart]
    models: list[str] = Field(..., description="the models their run records name, over the scope's cases")
    annotations: list[StandingsNote] = Field(..., description="staff's notes on their entries")


class StandingsDocument(Schema):
    difficulty: str | None
    tag: str | None
    cases: int
    as_of: datetime | None
    computing: bool = Field(..., description="the first standings are still being computed")
    count: int
    next: str | None
    previous: str | None
    results: list[StandingsLine]


class RecordStepRow(Schema):
    submission: int
    name: str
    model: str
    variant: str
    total_fuel: int
    scored_at: datetime
    previous_fuel: int | None = Field(..., description="the record it beat (null for the first)")
    url: str


class History(Schema):
    case: str
    version: str
    variant: str | None
    count: int
    next: str | None
    previous: str | None
    results: list[RecordStepRow]
