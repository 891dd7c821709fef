"""The one shape of each document the site gives out about results: a submission, a board entry
and a standings line, each built here once.

`score --json` prints `submission_json()`, `leaderboard --json` prints `entry_json()` (SPEC §7:
exactly those keys); the API's documents start from them and add what a client browsing the
site needs (`submission_document()`, `entry_document()`); the CSV downloads are the API's rows
(`board_table()`, `standings_table()`), so no column can say what the API does not.
"""

from __future__ import annotations

from datetime import date
from typing import Iterable, Iterator

from django.urls import reverse
from django.utils import timezone

from catalog.runrecords import NUMERIC_RUN_FIELDS
from catalog.models import CaseVersion, HeldOutInput, Variant
from engine.kinds import Kind
from lib.siteurl import site_url
from scoring.boards import CURRENT_ENGINE, Entry, engine_label
from scoring.models import Result, Submission

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
    """The `score --json` document (SPEC §7), in manifest order."""
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
        "url": site_url(reverse("submission-detail", args=[submission.pk])),
    }


def submission_detail_document(submission: Submission) -> dict:
    """`submission_document()` with what its operator and staff see only: the build log's tail
    and each failure's detail, which quote the submission itself."""
    details = submission.results.order_by("position").values_list("detail", flat=True)
    found = submission_document(submission)
    found["results"] = [{**row, "detail": detail} for row, detail in zip(found["results"], details)]
    return {**found, "build_log": submission.build_log, "detail": submission.detail}


# --- a board entry --------------------------------------------------------------------------------


def entry_json(entry: Entry) -> dict:
    """The entry of `leaderboard --json` (SPEC §7: exactly these keys)."""
    return {"rank": entry.rank, "name": entry.name, "submission": entry.submission, "passed": entry.passed,
            "total_fuel": entry.total_fuel, "overshoot": entry.overshoot,
            "submitted_at": entry.submitted_at.isoformat()}


def entry_document(entry: Entry) -> dict:
    """A row of a leaderboard in the API: `entry_json()` and everything the page shows of it."""
    return {
        **entry_json(entry),
        "group": entry.group, "variant": entry.variant, "status": entry.status,
        "passed_inputs": entry.passed_count, "inputs": entry.input_count,
        "engine": entry.engine, "current_engine": entry.engine == CURRENT_ENGINE, "carried_from": entry.carried_from,
        "model": entry.model, "annotation": entry.annotation,
        "url": site_url(reverse("submission-detail", args=[entry.submission])),
        "api_url": site_url(reverse("api-v1:submission", args=[entry.submission])),
    }


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
    entries = Submission.objects.leaderboard(version, variant=variant, include_all=include_all, model=model)
    stress = stress_inputs_of(version)
    line = pass_line(version, len(stress))
    header = [*BOARD_CSV_FIELDS, "share_of_limit_percent", *BOARD_CSV_AFTER,
              *[f"fuel:{path}" for _, path in stress], "submitted_at", "engine", "carried_from", "model",
              "harness", "run_url", *NUMERIC_RUN_FIELDS, "annotation"]

    def rows():
        for chunk in entries.batches(CSV_CHUNK):
            fuel = stress_fuel(chunk)
            runs = dict(Submission.objects.filter(pk__in=[entry.submission for entry in chunk]).values_list("pk", "run"))
            for entry in chunk:
                row = entry_document(entry)
                share = share_of_limit(entry.total_fuel, line)
                per_input = fuel.get(entry.submission, {})
                run = runs.get(entry.submission) or {}
                yield [*[row[field] for field in BOARD_CSV_FIELDS], round(share, 3) if share is not None else None,
                       *[row[field] for field in BOARD_CSV_AFTER],
                       *[per_input.get(position, (None, ""))[0] for position, _ in stress],
                       row["submitted_at"], row["engine"], row["carried_from"], row["model"],
                       run.get("harness", ""), run.get("url", ""), *[run.get(key) for key in NUMERIC_RUN_FIELDS],
                       row["annotation"]]

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


def standings_line_document(line, parts: list[tuple[str, dict]]) -> dict:
    """A line of the standings: its rank, name, figures and, per difficulty, solved and score."""
    return {
        "rank": line.position, "name": line.name, "solved": line.solved, "entered": line.entered,
        "score": round(line.score, 6),
        "geometric_mean": round(line.geometric_mean, 6) if line.geometric_mean is not None else None,
        "difficulties": {difficulty: {"solved": part["solved"], "score": round(part["score"], 6)}
                         for difficulty, part in parts},
        "models": (line.provenance or {}).get("models", []),
        "annotations": (line.provenance or {}).get("annotations", []),
    }


def standings_table(standings) -> tuple[str, list[str], Iterator[list]]:
    """Every line of a standings filter as (file name, header, rows)."""
    header = ["rank", "name", "score", "solved", "entered", "cases", "geometric_mean",
              *[f"{difficulty}_{column}" for difficulty in standings.difficulties for column in ("solved", "score")],
              "models", "annotations"]

    def rows():
        for batch in standings.lines.batches(1000):
            for line in batch:
                row = standings_line_document(line, standings.parts(line))
                yield [row["rank"], row["name"], row["score"], row["solved"], row["entered"], standings.cases,
                       row["geometric_mean"],
                       *[value for part in row["difficulties"].values() for value in (part["solved"], part["score"])],
                       "; ".join(row["models"]), " | ".join(f"{note['case']}: {note['text']}" for note in row["annotations"])]

    return download_name("standings", standings.difficulty or "", standings.tag or ""), header, rows()
