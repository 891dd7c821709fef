"""The declared shapes of the results' documents: Ninja validates every document sent against
them, and the OpenAPI schema is generated from them. What fills them is built once, in
scoring/documents.py."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from ninja import Field, Schema
from pydantic import BaseModel

# Figures against the reference entries (the standings and the agents matrix).
FAST_DESCRIPTION = ("fast_p for p in 0.5, 0.8, 1, 1.5, 2, 5, 10 (keyed \"0.5\", \"1\", …): the share of the scope's "
                    "cases with a reference entry that their best entry solved using at most 1/p of the reference's "
                    "fuel (speedup ≥ p; fast_1: no more than the reference); null when no case of the scope has a "
                    "reference")
AGENT_FAST_DESCRIPTION = ("fast_p over trials for p in 0.5, 0.8, 1, 1.5, 2, 5, 10 (keyed \"0.5\", \"1\", …): for "
                          "each case of the scope with a reference entry, the share of the agent's trials on it that "
                          "solved it with a speedup ≥ p (an untried case: 0), averaged over those cases; null when "
                          "no case of the scope has a reference")
HARMONIC_DESCRIPTION = ("the harmonic mean, over every case of the scope with a reference entry, of the speedup of "
                        "the best entry (reference fuel ÷ its fuel), a case not solved or not tried counting as 1; "
                        "null when no case of the scope has a reference")
SPEEDUP_DESCRIPTION = ("the geometric mean, over the solved cases that have a reference entry, of the reference's "
                       "fuel ÷ theirs (above 1: less fuel than the references); null when there is no such case")


class LeaderboardRow(Schema):
    rank: int | None = Field(..., description="null unless the entry passed every input within the pass line; its "
                                              "own position (equal total fuel: the earlier submission first)")
    shared_rank: int | None = Field(..., description="the place it shares with every ranked entry of the same total "
                                                     "fuel (\"=1\" on the page); null when unranked")
    speedup: float | None = Field(..., description="the version's reference entry's total fuel ÷ this entry's (above "
                                                   "1: it used less); null without a reference, or when some answer "
                                                   "was wrong")
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
    current_engine: bool = Field(..., description="measured by the engine the board counts with: the site's current "
                                                 "one, or for a retired version the one current when it was retired")
    carried_from: int | None = Field(..., description="the submission on an earlier version it was rescored from")
    model: str = Field(..., description="the model its run record names (empty when not recorded)")
    annotation: str = Field(..., description="staff's public note; an excluded entry's reason")
    verification: Literal["identical", "different"] | None = Field(
        ..., description="its latest re-measurement: identical (reproduced to the unit) or different (not "
                         "reproduced); null if never measured again")
    build: Literal["confined", "unconfined", "unsandboxed", ""] = Field(
        ..., description="how its build was held: confined (a sandbox, an account and a cgroup of its own), "
                         "unconfined (the sandbox only: a development site), unsandboxed (no sandbox: a development "
                         "site); empty when a module was submitted")
    url: str
    api_url: str
    reviews: dict[str, str] = Field(..., description="its latest review verdict on each review item read (item's "
                                                     "slug → verdict), of the module it is")


class Leaderboard(Schema):
    case: str
    version: str
    variant: str | None
    all: bool = Field(..., description="every submission, not only each submitter's best")
    model: str | None = Field(..., description="the model filter, if any")
    reference_fuel: int | None = Field(..., description="the total fuel of the version's reference entry (chosen by "
                                                        "staff), which every speedup divides; null without one")
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


class SampleResult(Schema):
    input: str = Field(..., description="the sample's path in the run root (samples/NAME.json)")
    status: str
    fuel: int | None
    fuel_limit: int
    ceiling: int
    message: str


class QueuePlace(Schema):
    state: Literal["waiting", "queued", "running"] = Field(
        ..., description="waiting: for its operator's turn (at most SCORING_OPERATOR_JOBS of one operator's entries "
                         "are queued or scored at once); queued: in the task queue; running: being built and scored")
    ahead: int = Field(..., description="waiting: the operator's own entries that go first; queued: entries queued "
                                        "before it; running: 0")


class Verification(Schema):
    outcome: Literal["identical", "different"] = Field(
        ..., description="identical: every input's status, fuel and answer as stored; different: not reproduced")
    at: datetime | None = Field(..., description="when it was measured again")
    message: str = Field(..., description="what it found, in words (\"not reproduced: fuel differs on 2 inputs\")")


class Compiler(Schema):
    rustc: str = Field(..., description="as `rustc -V` names it: \"rustc 1.96.0 (ac68faa20 2026-05-25)\"")
    release: str = Field(..., description="the Rust release, \"1.96.0\"")
    commit: str = Field(..., description="the full commit hash of the compiler's sources (empty if it did not say)")
    cargo: str = Field(..., description="as `cargo -V` names it")


class ReviewRequest(Schema):
    item: str = Field(..., min_length=1, max_length=100, description="the review item's slug, as the version declares "
                                                                     "it")
    verdict: str = Field(..., min_length=1, max_length=40, description="one of the item's scale (default: pass, fail, "
                                                                       "not applicable)")
    text: str = Field("", max_length=2000, description="what the reader saw (plain text, lines allowed)")


class ReviewDocument(Schema):
    item: str
    question: str = Field(..., description="the item's question, as the version asks it")
    verdict: str
    text: str
    reviewer: str = Field(..., description="the account that recorded the read")
    recorded_at: datetime


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
    verification: Verification | None = Field(...,
                                              description="its latest re-measurement, null if never measured again")
    build: Literal["confined", "unconfined", "unsandboxed", ""] = Field(
        ..., description="how its build was held: confined (a sandbox, an account and a cgroup of its own), "
                         "unconfined (the sandbox only: a development site), unsandboxed (no sandbox: a development "
                         "site); empty when a module was submitted")
    compiler: Compiler | None = Field(..., description="the compiler its build ran with, beside the module it gave; "
                                                       "null when a module was submitted or it was not recorded")
    samples: list[SampleResult] = Field(..., description="its results on the version's public samples (unscored), "
                                                          "as a kit's `python3 meter check` gives them at home")
    queue: QueuePlace | None = Field(..., description="where it stands while it is not done; null once it is")
    reviews: list[ReviewDocument] = Field(..., description="review reads of the module it is, oldest first: a "
                                                           "verdict on each review item its version declares")
    module_sha256: str | None = Field(..., description="the SHA-256 of the module it ran (built or sent); null when "
                                                       "none was built")
    module_url: str | None = Field(..., description="where that module is published, once its version is retired; "
                                                    "null while the version is current")
    results: list[Result]
    url: str
    detail_url: str = Field(..., description="its operator's view (with their token): the build log's tail and each "
                                             "failure in the submission's own words, such as the compiler's message")


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


class FastAtK(Schema):
    k: int = Field(..., description="the trials the estimate is for")
    shares: dict[str, float | None] = Field(..., description=(
        "fast_p@k for each p (keyed as fast): for each case of the scope with a reference entry, the chance that at "
        "least one of k trials solves it with a speedup ≥ p, estimated without bias from the agent's n trials of "
        "which c did (1 − C(n−c, k) ÷ C(n, k); fewer than k trials: the missing ones count as failed), averaged "
        "over those cases"))


class StandingsLine(Schema):
    rank: int = Field(..., description="its own position: score, then cases solved, then name")
    shared_rank: int = Field(..., description="the place it shares with every line of the same score and cases "
                                              "solved (\"=3\" on the page)")
    name: str
    solved: int
    entered: int
    score: float = Field(..., description="the sum over cases of best fuel ÷ own fuel (0 if unsolved)")
    geometric_mean: float | None
    difficulties: dict[str, DifficultyPart]
    models: list[str] = Field(..., description="the models their run records name, over the scope's cases")
    annotations: list[StandingsNote] = Field(..., description="staff's notes on their entries")
    fast: dict[str, float | None] = Field(..., description=FAST_DESCRIPTION)
    speedup: float | None = Field(..., description=SPEEDUP_DESCRIPTION)
    speedup_cases: int = Field(..., description="the cases with a reference entry that they solved")
    harmonic_speedup: float | None = Field(..., description=HARMONIC_DESCRIPTION)


class StandingsDocument(Schema):
    difficulty: str | None
    tag: str | None
    since: date | None = Field(None, description="only the cases first published on or after this date")
    cases: int
    reference_cases: int = Field(..., description="the cases with a reference entry (staff's choice): what each "
                                                   "fast_p is a share of")
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


# Plain models, not Schemas: a document holds up to 20,000 cells and 200 lines, made from dicts,
# and a Schema's reading of ORM objects (which none of them is) cost more than the rest of the
# document together.
class AgentCell(BaseModel):
    case: str
    version: str
    trials: int = Field(..., description="the agent's scored entries on the case's latest published version")
    solved: int = Field(..., description="trials that passed")
    best_fuel: int | None = Field(..., description="the fewest fuel of a trial that passed")
    share: float | None = Field(..., description="best_fuel ÷ the case's best (1.0: the agent holds the case's best)")
    best_submission: int | None
    verified: bool = Field(..., description="the best entry was re-measured with the same result on every input")
    url: str = Field(..., description="the case's leaderboard, every entry of this model")


class AgentLine(BaseModel):
    rank: int = Field(..., description="the place in the order asked for (over every harness)")
    model: str
    harness: str = Field(..., description="empty when the run records name none")
    score: float = Field(..., description="as the standings: the sum over cases of the case's best fuel ÷ the agent's "
                                          "best (0 if unsolved)")
    cases_solved: int
    cases_entered: int
    solved_share: float = Field(..., description="cases_solved ÷ the filter's cases (a case with no trial is an "
                                                 "unsolved case): the share of the whole set")
    solved_share_low: float = Field(..., description="the 95% Wilson interval of solved_share, from")
    solved_share_high: float = Field(..., description="… to")
    fast: dict[str, float | None] = Field(..., description=AGENT_FAST_DESCRIPTION)
    fast_at_k: FastAtK
    speedup: float | None = Field(..., description=SPEEDUP_DESCRIPTION)
    speedup_cases: int = Field(..., description="the cases with a reference entry that it solved")
    harmonic_speedup: float | None = Field(..., description=HARMONIC_DESCRIPTION)
    trials: int
    solved_trials: int
    pass_rate: float = Field(..., description="the trial pass rate: solved_trials ÷ trials (over the trials it made, "
                                              "not the whole set: see solved_share)")
    pass_rate_low: float = Field(..., description="the 95% Wilson interval of the pass rate, from")
    pass_rate_high: float = Field(..., description="… to")
    cost_trials: int = Field(..., description="trials that recorded their cost")
    total_cost_usd: float | None
    mean_cost_usd: float | None = Field(..., description="total_cost_usd ÷ cost_trials")
    input_tokens_per_trial: float | None
    output_tokens_per_trial: float | None
    verified_cases: int = Field(..., description="cases whose best entry was re-measured identically")
    url: str = Field(..., description="the agent's page: its trials")
    cells: list[AgentCell] = Field(..., description="its cells on this document's columns, where it has trials")


class AgentsColumn(BaseModel):
    case: str
    version: str
    name: str
    difficulty: str


class AgentsDocument(BaseModel):
    difficulty: str | None
    tag: str | None
    since: date | None = Field(None, description="only the cases first published on or after this date")
    harness: str | None
    sort: Literal["solved", "score", "pass_rate", "cost"]
    cases: int = Field(..., description="the filter's cases in all (the columns are a page of them)")
    reference_cases: int = Field(..., description="the filter's cases with a reference entry: what each fast_p is a "
                                                   "share of")
    columns: list[AgentsColumn] = Field(..., description="a page of the filter's cases, by name: `cases_page`")
    columns_next: str | None
    columns_previous: str | None
    as_of: datetime | None
    computing: bool = Field(..., description="the first matrix is still being computed")
    count: int
    next: str | None
    previous: str | None
    results: list[AgentLine]

