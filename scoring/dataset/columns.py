"""The dataset's tables and their columns, each named, typed and explained once.

The Parquet schemas, the dataset card's features and column list, and the Croissant record sets
are all made from these, so no file can describe a column another does not. Counts and fuel are
64-bit integers (null only where the API gives null), ratios 64-bit floats, times UTC.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from scoring.speedups import FAST_K, FAST_KEYS


@dataclass(frozen=True)
class Kind:
    """How a column's values are stored: as Arrow, as the Hub's features and as Croissant read them."""

    arrow: pa.DataType
    feature: dict  # the Hub's feature, without its name: {"dtype": "int64"} or {"list": "string"}
    croissant: str  # the Croissant dataType
    repeated: bool = False  # a list of values


TEXT = Kind(pa.string(), {"dtype": "string"}, "sc:Text")
URL = Kind(pa.string(), {"dtype": "string"}, "sc:URL")
TEXTS = Kind(pa.list_(pa.string()), {"list": "string"}, "sc:Text", repeated=True)
INTEGER = Kind(pa.int64(), {"dtype": "int64"}, "sc:Integer")
RATIO = Kind(pa.float64(), {"dtype": "float64"}, "sc:Float")
BOOLEAN = Kind(pa.bool_(), {"dtype": "bool"}, "sc:Boolean")
TIME = Kind(pa.timestamp("us", tz="UTC"), {"dtype": "timestamp[us, tz=UTC]"}, "sc:DateTime")


@dataclass(frozen=True)
class Column:
    name: str
    kind: Kind
    meaning: str
    nullable: bool = False

    def field(self) -> pa.Field:
        return pa.field(self.name, self.kind.arrow, nullable=self.nullable)


@dataclass(frozen=True)
class Table:
    name: str  # the file's stem, the Hub's config and the Croissant record set
    meaning: str
    key: tuple[str, ...]  # the columns that tell its rows apart
    columns: tuple[Column, ...]
    optional: bool = False  # left out of an export where it would have no row

    @property
    def file(self) -> str:
        return f"{self.name}.parquet"

    def schema(self) -> pa.Schema:
        return pa.schema([column.field() for column in self.columns])


def fast_column(key: str) -> str:
    """`fast_1_5` for p = 1.5 (the API's `fast["1.5"]`): a column name without a dot, which every
    reader takes as it is."""
    return "fast_" + key.replace(".", "_")


def fast_at_k_column(key: str) -> str:
    """`fast_1_5_at_3`: the API's `fast_at_k["shares"]["1.5"]`."""
    return f"{fast_column(key)}_at_{FAST_K}"


CASES = Table("cases", "Every shown version of every case, one row each: what its page and `/api/v1/cases/<slug>/` "
                       "say of it. Never a held-out input or an expected answer.", ("case", "version"), (
    Column("case", TEXT, "the case's slug"),
    Column("version", TEXT, "the version's name"),
    Column("latest", BOOLEAN, "whether this is the case's latest shown version, the one its page shows first"),
    Column("name", TEXT, "the case's name in this version"),
    Column("difficulty", TEXT, "easy, medium or hard, as its author rates it"),
    Column("experimental", BOOLEAN, "marked experimental by its author (shown only where the site shows such "
                                    "cases)"),
    Column("tags", TEXTS, "its tags, in the author's order"),
    Column("summary", TEXT, "one line on what the case asks for"),
    Column("description", TEXT, "the case's description, Markdown as the author wrote it"),
    Column("variants", TEXTS, "its variants' slugs, the default first"),
    Column("published_at", TIME, "when this version was published"),
    Column("first_published_at", TIME, "when the case's first version was published"),
    Column("fuel_limit", INTEGER, "the most fuel an entry may use on one stress input and still be ranked"),
    Column("max_memory_bytes", INTEGER, "the most linear memory a module may have, in bytes"),
    Column("smoke_inputs", INTEGER, "held-out smoke inputs: checked first, their fuel not counted"),
    Column("stress_inputs", INTEGER, "held-out stress inputs: their fuel is the entry's total"),
    Column("entries", INTEGER, "entries on its leaderboard: each submitter's best"),
    Column("best_fuel", INTEGER, "the lowest total fuel of a ranked entry; null when none is ranked", True),
    Column("reference_fuel", INTEGER, "the total fuel of its reference entry, which speedups divide; null "
                                      "without one", True),
    Column("url", URL, "the version's page"),
    Column("api_url", URL, "the version's document in the API"),
    Column("retired_at", TIME, "when the version was retired (its board frozen, its held-out data in "
                               "`retired_inputs`); null while it is current", True),
))

ENTRIES = Table("entries", "Every entry on the leaderboard of a shown version: ranked and unranked, each "
                           "submitter's best and every other (the API's `?all=1`). Hidden entries and entries "
                           "still being scored are not on a leaderboard, and not here.", ("submission",), (
    Column("case", TEXT, "the case's slug"),
    Column("version", TEXT, "the version it was measured on"),
    Column("variant", TEXT, "the variant it was made for"),
    Column("submission", INTEGER, "the entry's id: its page is `/submissions/<id>/`"),
    Column("name", TEXT, "the submitter's name"),
    Column("group", TEXT, "where the board lists it: ranked, over_limit (correct, over the fuel line), unranked "
                          "or excluded (by staff, with the annotation as the reason)"),
    Column("on_leaderboard", BOOLEAN, "the submitter's best on this version, which the leaderboard lists (the "
                                      "others are on the board of every entry only)"),
    Column("rank", INTEGER, "its place on the leaderboard of each submitter's best, ties broken by the earlier "
                            "entry; null when not ranked there", True),
    Column("shared_rank", INTEGER, "the place it shares there with every ranked entry of the same total fuel; "
                                   "null when not ranked there", True),
    Column("rank_among_all", INTEGER, "its place among every entry of the version (the API's `?all=1`); null when "
                                      "not ranked", True),
    Column("shared_rank_among_all", INTEGER, "the place it shares among every entry with those of the same "
                                             "total fuel; null when not ranked", True),
    Column("status", TEXT, "scored, build_failed or invalid_module"),
    Column("passed", BOOLEAN, "every input answered correctly within the fuel limit"),
    Column("total_fuel", INTEGER, "fuel used over the stress inputs; null when it has none (an input not "
                                  "answered correctly)", True),
    Column("overshoot", INTEGER, "fuel beyond the fuel limit, summed over the inputs that went over it"),
    Column("passed_inputs", INTEGER, "inputs answered correctly within the limit"),
    Column("inputs", INTEGER, "inputs it was run on"),
    Column("speedup", RATIO, "the version's reference fuel ÷ its total fuel; null without a reference or for "
                             "an entry that did not answer every input correctly", True),
    Column("engine", TEXT, "the wasmtime version and engine configuration that measured it"),
    Column("current_engine", BOOLEAN, "measured by the engine the site runs today"),
    Column("carried_from", INTEGER, "the entry on an earlier version it was carried forward from; null when "
                                    "it was sent here", True),
    Column("verification", TEXT, "its latest re-measurement: pending, running, identical, different or "
                                 "failed; empty when never measured again"),
    Column("build", TEXT, "how its build was held: confined, unconfined or unsandboxed; empty when a module "
                          "was sent"),
    Column("annotation", TEXT, "staff's public note on it; empty when none"),
    Column("model", TEXT, "the model its run record names; empty when not recorded"),
    Column("harness", TEXT, "the harness its run record names; empty when not recorded"),
    Column("cost_usd", RATIO, "what the run cost, in US dollars, as its run record says", True),
    Column("input_tokens", INTEGER, "tokens the model read over the run", True),
    Column("output_tokens", INTEGER, "tokens the model wrote over the run", True),
    Column("wall_seconds", RATIO, "how long the run took, in seconds", True),
    Column("run_url", URL, "the run's transcript or log; empty when not recorded"),
    Column("submitted_at", TIME, "when it was submitted"),
    Column("url", URL, "the entry's page"),
    Column("api_url", URL, "the entry's document in the API, with its results input by input"),
))

RESULTS = Table("results", "What each entry of `entries` did on each held-out input, in the version's order: "
                           "the input's path and the fuel used, never the input or the expected answer.",
                ("submission", "position"), (
    Column("submission", INTEGER, "the entry's id (entries.submission)"),
    Column("position", INTEGER, "the input's place among the version's inputs, from 0"),
    Column("kind", TEXT, "smoke or stress"),
    Column("input_path", TEXT, "the input's path in the case version (its name only)"),
    Column("status", TEXT, "passed, over_limit, fuel_exhausted, timeout, trapped, invalid_output, wrong_answer "
                           "or skipped"),
    Column("fuel", INTEGER, "fuel used; null when none was counted", True),
    Column("fuel_limit", INTEGER, "the fuel limit of the input"),
    Column("ceiling", INTEGER, "the fuel at which the run was stopped (the limit times the input's runway)"),
    Column("overshoot", INTEGER, "fuel beyond the limit"),
    Column("wall_ms", RATIO, "wall-clock milliseconds the run took (not a measure: fuel is)"),
    Column("message", TEXT, "the site's public word on the result; empty when none"),
))

AGENTS = Table("agents", "The agents matrix over every case, as `/api/v1/agents/` gives it: one row per agent "
                         "(a model and the harness that drove it), in the matrix's order (cases solved, then "
                         "score), as of its last refresh.", ("model", "harness"), (
    Column("rank", INTEGER, "its place in that order"),
    Column("model", TEXT, "the model"),
    Column("harness", TEXT, "the harness; empty when its entries named none"),
    Column("cases", INTEGER, "cases in the matrix: the latest published version of each"),
    Column("cases_entered", INTEGER, "cases it has a trial on"),
    Column("cases_solved", INTEGER, "cases one of its trials solved"),
    Column("solved_share", RATIO, "cases_solved ÷ cases"),
    Column("solved_share_low", RATIO, "the low end of the solved share's 95% Wilson interval"),
    Column("solved_share_high", RATIO, "the high end of that interval"),
    Column("score", RATIO, "over the cases, the case's best fuel ÷ the agent's best, summed"),
    Column("trials", INTEGER, "its scored entries: each one a trial"),
    Column("solved_trials", INTEGER, "trials that passed"),
    Column("pass_rate", RATIO, "solved_trials ÷ trials"),
    Column("pass_rate_low", RATIO, "the low end of the pass rate's 95% Wilson interval"),
    Column("pass_rate_high", RATIO, "the high end of that interval"),
    Column("cost_trials", INTEGER, "trials that recorded their cost"),
    Column("total_cost_usd", RATIO, "their cost summed, in US dollars; null when none recorded one", True),
    Column("mean_cost_usd", RATIO, "the mean cost of a trial that recorded it; null when none did", True),
    Column("input_tokens_per_trial", RATIO, "the mean tokens read per trial that recorded them", True),
    Column("output_tokens_per_trial", RATIO, "the mean tokens written per trial that recorded them", True),
    Column("verified_cases", INTEGER, "cases whose best entry of its own was re-measured identically"),
    Column("reference_cases", INTEGER, "cases with a reference entry: what the figures below are over"),
    Column("speedup", RATIO, "the geometric mean of its best speedups on the solved cases with a reference", True),
    Column("speedup_cases", INTEGER, "the solved cases with a reference"),
    Column("harmonic_speedup", RATIO, "the harmonic mean of its best speedups over every case with a reference, "
                                      "a case not solved counting 1", True),
    *(Column(fast_column(key), RATIO, f"fast_{key}: the share of its trials that solved a case at least {key} "
                                     "times as cheaply as the reference, averaged over the cases with one", True)
      for key in FAST_KEYS),
    *(Column(fast_at_k_column(key), RATIO, f"the chance that one of {FAST_K} trials does so "
                                                      f"(at least {key} times as cheaply)", True)
      for key in FAST_KEYS),
    Column("url", URL, "the agent's page"),
))

AGENT_CELLS = Table("agent_cells", "Each agent's cell on each case of the matrix it has a trial on: the "
                                   "`cells` of `/api/v1/agents/`.", ("model", "harness", "case"), (
    Column("model", TEXT, "the agent's model (agents.model)"),
    Column("harness", TEXT, "the agent's harness (agents.harness)"),
    Column("case", TEXT, "the case's slug"),
    Column("version", TEXT, "its latest published version, which the matrix counts"),
    Column("trials", INTEGER, "the agent's trials on it"),
    Column("solved", INTEGER, "those that passed"),
    Column("best_fuel", INTEGER, "the total fuel of its best passing trial; null when none passed", True),
    Column("share", RATIO, "that best fuel ÷ the case's best (1: the agent holds the case's best); null when "
                           "none passed", True),
    Column("best_submission", INTEGER, "the id of that best trial; null when none passed", True),
    Column("verified", BOOLEAN, "that best trial was re-measured identically"),
    Column("url", URL, "the case's leaderboard, every entry of this model"),
))

RETIRED_INPUTS = Table("retired_inputs", "The held-out inputs and expected answers of every retired version "
                                         "(`cases.retired_at`), in the version's order, as "
                                         "`/cases/<slug>/<version>/held-out.zip` gives them: with `results` and an "
                                         "entry's module, enough to measure the entry again. A current version's "
                                         "are never here.", ("case", "version", "position"), (
    Column("case", TEXT, "the case's slug"),
    Column("version", TEXT, "the retired version"),
    Column("position", INTEGER, "the input's place among the version's inputs, from 0 (results.position)"),
    Column("kind", TEXT, "smoke or stress"),
    Column("input_path", TEXT, "the input's path in the case version (results.input_path)"),
    Column("expected_path", TEXT, "its expected answer's path in the case version"),
    Column("fuel_runway", TEXT, "the input's runway, as its manifest writes it (a decimal)"),
    Column("ceiling", INTEGER, "the fuel at which a run on it is stopped"),
    Column("input", TEXT, "the input, a JSON document"),
    Column("expected", TEXT, "the expected answer, a JSON document"),
), optional=True)

TABLES = (CASES, ENTRIES, RESULTS, AGENTS, AGENT_CELLS, RETIRED_INPUTS)
