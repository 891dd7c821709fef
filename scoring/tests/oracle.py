"""SPEC §6 ranking written the plain way, over every row in Python: the oracle the database's
indexed, paginated leaderboards are checked against (scoring/standings/ does not use it)."""

from __future__ import annotations

from scoring.standings import Entry

_GROUP_ORDER = {"ranked": 0, "over_limit": 1, "unranked": 2}


def _group(row: dict) -> str:
    if row["passed"]:
        return "ranked"
    if row["total_fuel"] is not None:  # every stress input answered correctly, some over the line
        return "over_limit"
    return "unranked"


def _sort_key(row: dict) -> tuple:
    group = _group(row)
    if group == "unranked":
        return (_GROUP_ORDER[group], -row["passed_count"], row["created_at"], row["pk"])
    return (_GROUP_ORDER[group], row["total_fuel"], row["created_at"], row["pk"])


def rank(rows: list[dict], *, best_per_name: bool = True) -> list[Entry]:
    """Order rows of finished, shown submissions into entries; ranks on the passed ones."""
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
            input_count=row["input_count"], submitted_at=row["created_at"],
            wasmtime_version=row["wasmtime_version"], engine_digest=row["engine_digest"],
        ))
    return entries
