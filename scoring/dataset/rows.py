"""Each table's rows, read as the API reads them: the shown versions (`CaseVersion.objects.public()`),
their leaderboards (`Leaderboard`, with `entry_document()`), each entry's results (`result_json()`)
and the agents matrix (`Matrix`, with `agent_lines()`). So the dataset says what the API says,
hides what it hides (hidden entries, experimental cases where they are not shown), and never
reads a held-out input or an expected answer: those live in `HeldOutInput`, which no query here
touches.

Each reader yields its rows a batch at a time (lists of dicts keyed by column name), in a fixed
order, so the same database gives the same rows.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from django.db import connection, transaction
from django.urls import reverse

from catalog.models import CaseVersion, Variant
from lib.siteurl import site_url
from scoring.agents import Matrix
from scoring.boards.reading import Entry, Leaderboard
from scoring.dataset.columns import fast_at_k_column, fast_column
from scoring.documents import agent_lines, entry_document, result_json
from scoring.epochs.engines import counting_label
from scoring.models import Result, Submission

BATCH = 500  # entries read per query
AGENT_BATCH = 200  # agents' lines read per query, with their cells


@contextmanager
def one_snapshot():
    """Every table read from one state of the database, so the entries and their results agree
    however many scores land meanwhile (SQLite's transactions read one state already; PostgreSQL
    is asked for it, when this is the outermost transaction)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def shown_versions() -> list[CaseVersion]:
    """Every version the site shows, by case, oldest version first."""
    return list(CaseVersion.objects.public().select_related("case").order_by("case__slug", "ordinal"))


# --- cases ------------------------------------------------------------------------------------------


def case_rows() -> Iterator[list[dict]]:
    versions = shown_versions()
    latest = set(CaseVersion.objects.latest_shown().values_list("pk", flat=True))
    variants: dict[int, list[str]] = {}
    for version_id, slug in (Variant.objects.filter(version__in=[version.pk for version in versions])
                             .order_by("version_id", "position").values_list("version_id", "slug")):
        variants.setdefault(version_id, []).append(slug)
    yield [case_row(version, version.pk in latest, variants.get(version.pk, [])) for version in versions]


def case_row(version: CaseVersion, latest: bool, variants: list[str]) -> dict:
    """A version as its page and `/api/v1/cases/<slug>/?version=` give it."""
    slug = version.case.slug
    return {
        "case": slug, "version": version.version, "latest": latest, "name": version.name,
        "difficulty": version.difficulty, "experimental": version.experimental, "tags": list(version.tag_names),
        "summary": version.summary, "description": version.description, "variants": variants,
        "published_at": version.imported_at, "first_published_at": version.case.created_at,
        "fuel_limit": version.fuel_limit, "max_memory_bytes": version.max_memory_bytes,
        "smoke_inputs": version.smoke_count, "stress_inputs": version.stress_count, "entries": version.entry_count,
        "best_fuel": version.best_fuel, "reference_fuel": version.reference_fuel,
        "url": site_url(reverse("case-version", args=[slug, version.version])),
        "api_url": site_url(reverse("api-v1:case", args=[slug]) + f"?version={version.version}"),
        "retired_at": version.retired_at,
    }


def retired_input_rows() -> Iterator[list[dict]]:
    """The held-out inputs and answers of the shown versions that are retired, and of no other."""
    for version in shown_versions():
        if version.retired_at is None:
            continue
        yield [{"case": version.case.slug, "version": version.version, "position": item.position,
                "kind": item.kind, "input_path": item.input_path, "expected_path": item.expected_path,
                "fuel_runway": item.fuel_runway, "ceiling": item.ceiling,
                "input": bytes(item.input_bytes).decode("utf-8"),
                "expected": bytes(item.expected_bytes).decode("utf-8")}
               for item in version.held_out_inputs.order_by("position")]


# --- entries and their results ------------------------------------------------------------------------


def entry_rows() -> Iterator[list[dict]]:
    """Every entry of every shown version's board (`?all=1`), in board order, version by version."""
    for version in shown_versions():
        places = leaderboard_places(version)
        counting = counting_label(version)
        for chunk in Leaderboard(version, include_all=True).batches(BATCH):
            runs = dict(Submission.objects.filter(pk__in=[entry.submission for entry in chunk])
                        .values_list("pk", "run"))
            yield [entry_row(version, entry, places.get(entry.submission), runs.get(entry.submission) or {},
                             counting) for entry in chunk]


def leaderboard_places(version: CaseVersion) -> dict[int, Entry]:
    """The version's leaderboard (each submitter's best): submission → its entry there."""
    return {entry.submission: entry for chunk in Leaderboard(version).batches(BATCH) for entry in chunk}


def entry_row(version: CaseVersion, entry: Entry, on_leaderboard: Entry | None, run: dict, counting: str) -> dict:
    """A board row (`entry_document()`), its places on both boards and its run record's figures."""
    document = entry_document(entry, counting)
    return {
        "case": version.case.slug, "version": version.version, "variant": document["variant"],
        "submission": document["submission"], "name": document["name"], "group": document["group"],
        "on_leaderboard": on_leaderboard is not None,
        "rank": on_leaderboard.rank if on_leaderboard else None,
        "shared_rank": on_leaderboard.shared_rank if on_leaderboard else None,
        "rank_among_all": document["rank"], "shared_rank_among_all": document["shared_rank"],
        "status": document["status"], "passed": document["passed"], "total_fuel": document["total_fuel"],
        "overshoot": document["overshoot"], "passed_inputs": document["passed_inputs"],
        "inputs": document["inputs"], "speedup": document["speedup"], "engine": document["engine"],
        "current_engine": document["current_engine"], "carried_from": document["carried_from"],
        "verification": document["verification"] or "", "build": document["build"],
        "annotation": document["annotation"], "model": document["model"], "harness": run.get("harness", ""),
        "cost_usd": run.get("cost_usd"), "input_tokens": run.get("input_tokens"),
        "output_tokens": run.get("output_tokens"), "wall_seconds": run.get("wall_seconds"),
        "run_url": run.get("url", ""), "submitted_at": entry.submitted_at, "url": document["url"],
        "api_url": document["api_url"],
    }


def result_rows() -> Iterator[list[dict]]:
    """The results of the entries `entry_rows()` gives, in its order, each entry's in input order."""
    for version in shown_versions():
        for chunk in Leaderboard(version, include_all=True).batches(BATCH):
            order = {entry.submission: index for index, entry in enumerate(chunk)}
            results = (Result.objects.filter(submission_id__in=list(order)).defer("detail", "answer_digest")
                       .order_by("submission_id", "position"))
            rows = [result_row(result) for result in results]
            yield sorted(rows, key=lambda row: (order[row["submission"]], row["position"]))


def result_row(result: Result) -> dict:
    document = result_json(result)
    return {
        "submission": result.submission_id, "position": result.position, "kind": document["kind"],
        "input_path": document["input"], "status": document["status"], "fuel": document["fuel"],
        "fuel_limit": document["fuel_limit"], "ceiling": document["ceiling"], "overshoot": document["overshoot"],
        "wall_ms": document["wall_ms"], "message": document["message"],
    }


# --- the agents matrix ------------------------------------------------------------------------------


def agent_documents() -> Iterator[list[dict]]:
    """The whole-catalog matrix's lines, in its default order, each with its cells on every case
    (the documents of `/api/v1/agents/`), as of its last refresh."""
    matrix = Matrix({})
    versions = list(matrix.columns())
    for batch in matrix.lines.batches(AGENT_BATCH):
        documents = agent_lines(matrix, batch, versions)
        for document in documents:
            document["cases"] = len(versions)
            document["reference_cases"] = matrix.references
        yield documents


def agent_rows() -> Iterator[list[dict]]:
    for documents in agent_documents():
        yield [agent_row(document) for document in documents]


def agent_row(document: dict) -> dict:
    """A line's document without its cells, its fast_p shares a column each (`fast_1_5`, `fast_1_5_at_3`)."""
    row = {name: value for name, value in document.items() if name not in ("fast", "fast_at_k", "cells")}
    row.update({fast_column(key): share for key, share in document["fast"].items()})
    row.update({fast_at_k_column(key): share for key, share in document["fast_at_k"]["shares"].items()})
    return row


def agent_cell_rows() -> Iterator[list[dict]]:
    for documents in agent_documents():
        yield [{"model": document["model"], "harness": document["harness"], "case": cell["case"],
                "version": cell["version"], "trials": cell["trials"], "solved": cell["solved"],
                "best_fuel": cell["best_fuel"], "share": cell["share"], "best_submission": cell["best_submission"],
                "verified": cell["verified"], "url": cell["url"]}
               for document in documents for cell in document["cells"]]
