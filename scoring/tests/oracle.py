"""docs/reading.md ranking written the plain way, over every row in Python: the oracle the database's
indexed, paginated leaderboards are checked against (scoring/boards/ does not use it)."""

from __future__ import annotations

from dataclasses import replace

from scoring.boards.reading import Entry

_GROUP_ORDER = {"ranked": 0, "over_limit": 1, "unranked": 2, "excluded": 3}


def _group(row: dict) -> str:
    if row.get("excluded"):  # staff took it out of the ranking: listed after everything else
        return "excluded"
    if row["passed"]:
        return "ranked"
    if row["total_fuel"] is not None:  # every stress input answered correctly, some over the line
        return "over_limit"
    return "unranked"


def _sort_key(row: dict) -> tuple:
    group = _group(row)
    if group == "unranked" or (group == "excluded" and row["total_fuel"] is None):
        return (_GROUP_ORDER[group], -row["passed_count"], row["submitted_at"], row["pk"])
    return (_GROUP_ORDER[group], row["total_fuel"], row["submitted_at"], row["pk"])


def rank(rows: list[dict], *, best_per_name: bool = True, reference_fuel: int | None = None) -> list[Entry]:
    """Order rows of finished, shown submissions into entries; ranks on the passed ones, a shared
    place for equal fuel (the first position of that fuel) and, with a reference, speedups."""
    entries: list[Entry] = []
    seen: set[str] = set()
    position = 0
    for row in sorted(rows, key=_sort_key):
        if best_per_name:
            if row["name"] in seen:
                continue
            seen.add(row["name"])
        group = _group(row)
        if group == "ranked":
            position += 1
        entries.append(Entry(
            rank=position if group == "ranked" else None, group=group, submission=row["pk"],
            name=row["name"], variant=row["variant__slug"], status=row["status"], passed=row["passed"],
            total_fuel=row["total_fuel"], overshoot=row["overshoot"], passed_count=row["passed_count"],
            input_count=row["input_count"], submitted_at=row["submitted_at"],
            wasmtime_version=row["wasmtime_version"], engine_digest=row["engine_digest"],
            carried_from=row.get("carried_from"), model=row.get("model", ""), annotation=row.get("annotation", ""),
            verification=row.get("verification", ""), build_confinement=row.get("build_confinement", ""),
            speedup=(reference_fuel / max(row["total_fuel"], 1)
                     if reference_fuel is not None and row["total_fuel"] is not None else None),
        ))
    ranked_fuels = [entry.total_fuel for entry in entries if entry.rank is not None]
    first_at = {}
    for position, fuel in enumerate(ranked_fuels, 1):
        first_at.setdefault(fuel, position)
    return [replace(entry, shared_rank=first_at[entry.total_fuel], tied=ranked_fuels.count(entry.total_fuel) > 1)
            if entry.rank is not None else entry for entry in entries]


def record_progression(rows: list[dict]) -> list[int]:
    """The submissions that, in the order they were scored, each used less fuel than every passing
    one before them. `rows`: every submission of one board, any state."""
    shown = [row for row in rows if row["passed"] and not row["hidden"] and not row["excluded"]
             and row["status"] == "scored"]
    progression, best = [], None
    for row in sorted(shown, key=lambda row: (row["scored_at"] or row["submitted_at"], row["pk"])):
        if best is None or row["total_fuel"] < best:
            progression.append(row["pk"])
            best = row["total_fuel"]
    return progression
