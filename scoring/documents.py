"""The one shape of each document the site gives out about results: a submission, a board entry
and a standings line, each built here once.

`score --json` prints `submission_json()` (docs/commands.md: exactly those keys); the API's
documents start from it and add what a client browsing the site needs (`submission_document()`);
a board row is `entry_document()` (`board_rows()`: the API's leaderboard and `leaderboard --json`
alike); the CSV downloads are the API's rows (`board_table()`, `standings_table()`), so no column
can say what the API does not.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Callable, Iterable, Iterator

from django.urls import reverse
from django.utils import timezone

from catalog.models import CaseVersion, HeldOutInput, Variant
from catalog.runrecords import NUMERIC_RUN_FIELDS
from engine.kinds import Kind
from lib.siteurl import site_url
from lib.urlparts import name_paths
from scoring.boards import engine_label
from scoring.boards.reading import Entry, Leaderboard
from scoring.epochs.engines import counting_label
from scoring.models import Result, Submission
from scoring.queue import queue_place
from scoring.retiring import published_module
from scoring.reviews import reads_json, review_items, verdicts
from scoring.speedups import FAST_K, FAST_KEYS, fast_shares, harmonic_mean

CSV_CHUNK = 500  # entries read per query while a download streams


# --- the pass line ------------------------------------------------------------------------------


def pass_line(version: CaseVersion, stress_inputs: int) -> int:
    """The most total fuel a ranked entry may use: the fuel limit of each stress input."""
    return version.fuel_limit * max(stress_inputs, 1)


def share_of_limit(total_fuel: int | None, line: int) -> float | None:
    """Total fuel as a percentage of the pass line (None when the entry has no total)."""
    return total_fuel * 100 / line if total_fuel is not None else None


def stress_inputs_of(version: CaseVersion) -> list[tuple[int, str]]:
    """(position, input path) of the version's stress inputs, in manifest order."""
    return list(HeldOutInput.objects.filter(version=version, kind=Kind.STRESS)
                .order_by("position").values_list("position", "input_path"))


def stress_fuel(entries: Iterable[Entry]) -> dict[int, dict[int, tuple]]:
    """submission → position → (fuel, status) of its stress results."""
    fuel_by_entry: dict[int, dict[int, tuple]] = {}
    for row in Result.objects.filter(submission_id__in=[entry.submission for entry in entries],
                                     kind=Kind.STRESS).values("submission_id", "position", "fuel", "status"):
        fuel_by_entry.setdefault(row["submission_id"], {})[row["position"]] = (row["fuel"], row["status"])
    return fuel_by_entry


# --- a submission -------------------------------------------------------------------------------


def result_json(result: Result) -> dict:
    return {"kind": result.kind, "input": result.input_path, "status": result.status, "fuel": result.fuel,
            "fuel_limit": result.fuel_limit, "ceiling": result.ceiling, "overshoot": result.overshoot,
            "wall_ms": result.wall_ms, "message": result.message}


def submission_json(submission: Submission) -> dict:
    """The `score --json` document (docs/commands.md), in manifest order."""
    return {
        "submission": submission.pk, "case": submission.version.case.slug, "version": submission.version.version,
        "variant": submission.variant.slug, "name": submission.name, "status": submission.status,
        "passed": submission.passed, "total_fuel": submission.total_fuel, "wasmtime": submission.wasmtime_version,
        "results": [result_json(result) for result in submission.results.order_by("position")],
    }


def submission_document(submission: Submission) -> dict:
    """A submission in the API: `submission_json()` and what a reader of the site sees of it.

    `submitted_at` is the one name of its time; `created_at`, the same value, stays for the
    clients of API v1 that read it."""
    return {
        **submission_json(submission),
        "job": submission.job_state, "message": submission.message, "overshoot": submission.overshoot,
        "passed_inputs": submission.passed_count, "inputs": submission.input_count,
        "engine": engine_label(submission.wasmtime_version, submission.engine_digest),
        "submitted_at": submission.submitted_at, "created_at": submission.submitted_at,
        "scored_at": submission.scored_at, "carried_from": submission.carried_from_id,
        "run": submission.run or {}, "annotation": submission.annotation, "excluded": submission.excluded,
        "verification": verification_json(submission), "build": submission.build_confinement,
        "compiler": compiler_json(submission), "samples": submission.sample_results or [],
        "queue": queue_place(submission), "reviews": reads_json(submission),
        "module_sha256": submission.module_digest or None, "module_url": module_url(submission),
        "url": site_url(reverse("submission-detail", args=[submission.pk])),
        "detail_url": site_url(reverse("api-v1:submission-detail", args=[submission.pk])),
    }


def module_url(submission: Submission) -> str | None:
    """Where the module it ran is published (its version is retired), or None."""
    if submission.version.retired_at is None or published_module(submission) is None:
        return None
    return site_url(reverse("submission-module", args=[submission.pk]))


def compiler_json(submission: Submission) -> dict | None:
    """The compiler its build ran with, or None (a module was submitted, or it was not recorded)."""
    found = submission.compiler
    if found is None:
        return None
    return {"rustc": found.rustc, "release": found.release, "commit": found.commit, "cargo": found.cargo}


def verification_json(submission: Submission) -> dict | None:
    """Its latest re-measurement (scoring/verification.py), or None if it was never measured again."""
    if not submission.verification:
        return None
    return {"outcome": submission.verification, "at": submission.verified_at,
            "message": submission.verification_message}


def submission_detail_document(submission: Submission) -> dict:
    """`submission_document()` with what its operator and staff see only: the build log's tail
    and each failure's detail, which quote the submission itself."""
    details = submission.results.order_by("position").values_list("detail", flat=True)
    found = submission_document(submission)
    found["results"] = [{**row, "detail": detail} for row, detail in zip(found["results"], details)]
    return {**found, "build_log": submission.build_log, "detail": submission.detail}


# --- a board entry --------------------------------------------------------------------------------


def entry_json(entry: Entry) -> dict:
    """The first keys of a board row (entry_document)."""
    return {"rank": entry.rank, "name": entry.name, "submission": entry.submission, "passed": entry.passed,
            "total_fuel": entry.total_fuel, "overshoot": entry.overshoot,
            "submitted_at": entry.submitted_at.isoformat()}


def significant(value: float | None, digits: int = 7) -> float | None:
    """A ratio to six decimal places, and at least `digits` significant figures: 1/65 is
    0.01538462, not 0.015385 (decimal places alone would take the precision of small ratios away)."""
    if value is None or value == 0 or not math.isfinite(value):
        return value
    return round(value, max(6, digits - 1 - math.floor(math.log10(abs(value)))))


def entry_document(entry: Entry, counting: str) -> dict:
    """A row of a leaderboard in the API: `entry_json()` and everything the page shows of it
    (`counting`: the board's engine, `counting_label`)."""
    return {
        **entry_json(entry),
        "shared_rank": entry.shared_rank, "speedup": significant(entry.speedup),
        "group": entry.group, "variant": entry.variant, "status": entry.status,
        "passed_inputs": entry.passed_count, "inputs": entry.input_count,
        "engine": entry.engine, "current_engine": entry.engine == counting, "carried_from": entry.carried_from,
        "model": entry.model, "annotation": entry.annotation, "verification": entry.verification or None,
        "build": entry.build_confinement, "url": site_url(reverse("submission-detail", args=[entry.submission])),
        "api_url": site_url(reverse("api-v1:submission", args=[entry.submission])),
    }


def board_rows(entries, version: CaseVersion) -> list[dict]:
    """The API's rows of these entries of `version`'s board, each with its review verdicts (item →
    the latest; none asked for where the version declares no review item), as the API's
    leaderboard and `leaderboard --json` give them."""
    entries = list(entries)
    reads = verdicts([entry.submission for entry in entries]) if review_items(version) else {}
    counting = counting_label(version)
    return [{**entry_document(entry, counting), "reviews": reads.get(entry.submission, {})} for entry in entries]


# The API row's fields a CSV row holds, in the page's order (then per-input fuel and provenance).
BOARD_CSV_FIELDS = ("rank", "name", "submission", "variant", "group", "status", "passed", "total_fuel")
BOARD_CSV_AFTER = ("overshoot", "passed_inputs", "inputs")


def download_name(*parts: str, today: date | None = None) -> str:
    """`range-sums-v2-leaderboard-2026-12-03.csv`: the parts, then today's date (UTC)."""
    cleaned = ["".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in part) for part in parts if part]
    return "-".join([*cleaned, (today or timezone.now().date()).isoformat()]) + ".csv"


def board_table(version: CaseVersion, variant: Variant | None, include_all: bool,
                model: str | None = None) -> tuple[str, list[str], Iterator[list]]:
    """The whole board (every page) as (file name, header, rows), read a chunk at a time."""
    entries = Leaderboard(version, variant=variant, include_all=include_all, model=model)
    stress = stress_inputs_of(version)
    line = pass_line(version, len(stress))
    items = [item.slug for item in review_items(version)]
    counting = counting_label(version)
    header = [*BOARD_CSV_FIELDS, "share_of_limit_percent", *BOARD_CSV_AFTER,
              *[f"fuel:{path}" for _, path in stress], "submitted_at", "engine", "carried_from", "model",
              "harness", "run_url", *NUMERIC_RUN_FIELDS, "annotation", "verification", "shared_rank", "speedup",
              *[f"review:{item}" for item in items]]

    def rows():
        for chunk in entries.batches(CSV_CHUNK):
            fuel = stress_fuel(chunk)
            runs = dict(Submission.objects.filter(pk__in=[entry.submission for entry in chunk]).values_list("pk",
                                                                                                            "run"))
            reads = verdicts([entry.submission for entry in chunk]) if items else {}
            for entry in chunk:
                row = entry_document(entry, counting)
                share = share_of_limit(entry.total_fuel, line)
                per_input = fuel.get(entry.submission, {})
                run = runs.get(entry.submission) or {}
                yield [*[row[field] for field in BOARD_CSV_FIELDS], round(share, 3) if share is not None else None,
                       *[row[field] for field in BOARD_CSV_AFTER],
                       *[per_input.get(position, (None, ""))[0] for position, _ in stress],
                       row["submitted_at"], row["engine"], row["carried_from"], row["model"],
                       run.get("harness", ""), run.get("url", ""), *[run.get(key) for key in NUMERIC_RUN_FIELDS],
                       row["annotation"], entry.verification, row["shared_rank"], row["speedup"],
                       *[reads.get(entry.submission, {}).get(item, "") for item in items]]

    name = download_name(version.case.slug, version.version, variant.slug if variant else "",
                         "all" if include_all else "", "leaderboard")
    return name, header, rows()


# --- two submissions compared ----------------------------------------------------------------------


def comparison_document(comparison) -> dict:
    """Two submissions of one version side by side, input by input (scoring.compare)."""
    def side(submission: Submission) -> dict:
        return {"submission": submission.pk, "name": submission.name, "variant": submission.variant.slug,
                "status": submission.status, "passed": submission.passed, "total_fuel": submission.total_fuel,
                "carried_from": submission.carried_from_id}

    def result(found: Result | None) -> dict | None:
        return None if found is None else {"status": found.status, "fuel": found.fuel}

    return {
        "case": comparison.a.version.case.slug, "version": comparison.a.version.version,
        "a": side(comparison.a), "b": side(comparison.b),
        "total_ratio": comparison.total_ratio, "geometric_mean": comparison.geometric_mean,
        "inputs": [{"kind": pair.kind, "input": pair.input_path, "a": result(pair.a), "b": result(pair.b),
                    "ratio": pair.ratio} for pair in comparison.pairs],
        "url": site_url(reverse("submission-compare", args=[comparison.a.pk, comparison.b.pk])),
    }


# --- a standings line ---------------------------------------------------------------------------


def standings_line_document(line, parts: list[tuple[str, dict]], references: int) -> dict:
    """A line of the standings: its rank, name, figures and, per difficulty, solved and score; and,
    over the scope's `references` cases with a reference entry, its figures against them."""
    return {
        "rank": line.position, "shared_rank": line.shared_position, "name": line.name, "solved": line.solved,
        "entered": line.entered,
        "score": round(line.score, 6),
        "geometric_mean": significant(line.geometric_mean),
        "difficulties": {difficulty: {"solved": part["solved"], "score": round(part["score"], 6)}
                         for difficulty, part in parts},
        "models": (line.provenance or {}).get("models", []),
        "annotations": (line.provenance or {}).get("annotations", []),
        "fast": fast_shares(line.fast, references),
        "speedup": significant(line.speedup),
        "speedup_cases": line.reference_solved,
        "harmonic_speedup": significant(harmonic_mean(line.inverse_speedups, line.reference_solved, references)),
    }


def standings_table(standings) -> tuple[str, list[str], Iterator[list]]:
    """Every line of a standings filter as (file name, header, rows)."""
    header = ["rank", "name", "score", "solved", "entered", "cases", "geometric_mean",
              *[f"{difficulty}_{column}" for difficulty in standings.difficulties for column in ("solved", "score")],
              "models", "annotations", "reference_cases", *[f"fast_{key}" for key in FAST_KEYS], "speedup",
              "speedup_cases", "harmonic_speedup", "shared_rank"]

    def rows():
        for batch in standings.lines.batches(1000):
            for line in batch:
                row = standings_line_document(line, standings.parts(line), standings.references)
                yield [row["rank"], row["name"], row["score"], row["solved"], row["entered"], standings.cases,
                       row["geometric_mean"],
                       *[value for part in row["difficulties"].values() for value in (part["solved"], part["score"])],
                       "; ".join(row["models"]),
                       " | ".join(f"{note['case']}: {note['text']}" for note in row["annotations"]),
                       standings.references, *row["fast"].values(), row["speedup"], row["speedup_cases"],
                       row["harmonic_speedup"], row["shared_rank"]]

    return download_name("standings", standings.difficulty or "", standings.tag or ""), header, rows()


# --- the agents matrix ----------------------------------------------------------------------------


def agent_url(model: str, harness: str = "", path: Callable[[str], str] | None = None) -> str:
    """An agent's page (the harness as its filter); `path`: a `name_paths("agent")` to reuse."""
    from urllib.parse import urlencode

    path = path or name_paths("agent")
    return site_url(path(model) + (f"?{urlencode({'harness': harness})}" if harness else ""))


def agent_cell_document(cell, version: CaseVersion, board_url: str, model: str) -> dict:
    """An agent on one case: its trials, how many solved, its best fuel ÷ the case's best, and
    whether that best entry was re-measured identically. `board_url`: the case's leaderboard,
    every entry, with the model's name to follow (`column_board_url`)."""
    share = cell.share
    return {
        "case": version.case.slug, "version": version.version, "trials": cell.trials, "solved": cell.solved,
        "best_fuel": cell.best_fuel, "share": round(share, 6) if share is not None else None,
        "best_submission": cell.best_submission_id, "verified": cell.verified == "identical",
        "url": board_url + model,
    }


def column_board_url(version: CaseVersion) -> str:
    """A case's leaderboard, every entry, ending `model=` for a model's name (URL-encoded) to follow."""
    from urllib.parse import urlencode

    query = urlencode({"version": version.version, "all": 1})
    return site_url(f"{reverse('leaderboard', args=[version.case.slug])}?{query}&model=")


def agent_line_document(line, matrix, cells: list[dict], path: Callable[[str], str] | None = None) -> dict:
    """An agent's line of the matrix: its place in the order shown, its figures (the solved share
    over the matrix's cases, the figures against its cases' references), its cells."""
    def rounded(value, digits=6):
        return round(value, digits) if value is not None else None

    share, low, high = matrix.solved_share(line)
    return {
        "rank": getattr(line, f"by_{matrix.sort}"), "model": line.model, "harness": line.harness,
        "score": rounded(line.score), "cases_solved": line.cases_solved, "cases_entered": line.cases_entered,
        "solved_share": rounded(share), "solved_share_low": rounded(low), "solved_share_high": rounded(high),
        "fast": fast_shares(line.fast, matrix.references),
        "fast_at_k": {"k": FAST_K, "shares": fast_shares(line.fast_at_k, matrix.references)},
        "speedup": significant(line.speedup), "speedup_cases": line.reference_solved,
        "harmonic_speedup": significant(harmonic_mean(line.inverse_speedups, line.reference_solved,
                                                      matrix.references)),
        "trials": line.trials, "solved_trials": line.solved_trials, "pass_rate": rounded(line.pass_rate),
        "pass_rate_low": rounded(line.pass_low), "pass_rate_high": rounded(line.pass_high),
        "cost_trials": line.cost_trials, "total_cost_usd": rounded(line.total_cost_usd),
        "mean_cost_usd": rounded(line.mean_cost_usd), "input_tokens_per_trial": rounded(line.input_tokens_per_trial, 1),
        "output_tokens_per_trial": rounded(line.output_tokens_per_trial, 1), "verified_cases": line.verified_cases,
        "url": agent_url(line.model, line.harness, path), "cells": cells,
    }


AGENT_CSV_FIELDS = ("rank", "model", "harness", "score", "cases_solved", "cases_entered", "trials", "solved_trials",
                    "pass_rate", "pass_rate_low", "pass_rate_high", "cost_trials", "total_cost_usd", "mean_cost_usd",
                    "input_tokens_per_trial", "output_tokens_per_trial", "verified_cases", "solved_share",
                    "solved_share_low", "solved_share_high", "speedup", "speedup_cases", "harmonic_speedup")


def agent_lines(matrix, lines, versions: list[CaseVersion]) -> list[dict]:
    """The documents of these lines, with their cells on these cases (one query)."""
    from urllib.parse import quote

    cells = matrix.cells(lines, versions)
    columns = [(version, column_board_url(version)) for version in versions]
    path = name_paths("agent")
    documents = []
    for line in lines:
        model = quote(line.model, safe="")
        documents.append(agent_line_document(line, matrix, [
            agent_cell_document(cells[(line.agent_id, version.pk)], version, board_url, model)
            for version, board_url in columns if (line.agent_id, version.pk) in cells], path))
    return documents


def agents_table(matrix) -> tuple[str, list[str], Iterator[list]]:
    """Every line of an agents filter as (file name, header, rows): the figures, then for each case
    its solved trials, trials and best fuel ÷ the case's best (empty: not solved)."""
    versions = list(matrix.columns())
    header = [*AGENT_CSV_FIELDS[:3], "cases", *AGENT_CSV_FIELDS[3:], "reference_cases",
              *[f"fast_{key}" for key in FAST_KEYS], *[f"fast_{key}_at_{FAST_K}" for key in FAST_KEYS],
              *[f"{column}:{version.case.slug}" for version in versions for column in ("solved", "trials", "share")]]

    def rows():
        for batch in matrix.lines.batches(200):
            for document in agent_lines(matrix, batch, versions):
                by_case = {cell["case"]: cell for cell in document["cells"]}
                yield [*[document[field] for field in AGENT_CSV_FIELDS[:3]], len(versions),
                       *[document[field] for field in AGENT_CSV_FIELDS[3:]], matrix.references,
                       *document["fast"].values(), *document["fast_at_k"]["shares"].values(),
                       *[value for version in versions for value in _cell_columns(by_case.get(version.case.slug))]]

    return download_name("agents", matrix.difficulty or "", matrix.tag or "", matrix.harness or ""), header, rows()


def _cell_columns(cell: dict | None) -> tuple:
    if cell is None:
        return 0, 0, None
    return cell["solved"], cell["trials"], cell["share"]
