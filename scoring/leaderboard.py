"""Leaderboard ranking (SPEC §6).

Ranked first: passed submissions by total fuel, ties broken by the earlier submission. Then,
unranked: correct answers over the pass line (by total fuel), then everything else by how many
inputs passed. The default view keeps each submitter's best entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

RANKED = "ranked"
OVER_LIMIT = "over_limit"
UNRANKED = "unranked"
_GROUP_ORDER = {RANKED: 0, OVER_LIMIT: 1, UNRANKED: 2}

# The columns a leaderboard needs from a submission; one query fetches them for all of them.
FIELDS = (
    "pk", "name", "variant__slug", "status", "passed", "total_fuel", "overshoot", "passed_count",
    "input_count", "created_at", "wasmtime_version", "engine_digest",
)


@dataclass(frozen=True)
class Entry:
    rank: int | None
    group: str
    submission: int
    name: str
    variant: str
    status: str
    passed: bool
    total_fuel: int | None
    overshoot: int
    passed_count: int
    input_count: int
    submitted_at: datetime
    wasmtime_version: str
    engine_digest: str = ""

    @property
    def engine(self) -> str:
        """The engine that measured it: wasmtime's version and the configuration's digest."""
        return f"{self.wasmtime_version} ({self.engine_digest or 'configuration not recorded'})"

    def as_json(self) -> dict:
        return {
            "rank": self.rank,
            "name": self.name,
            "submission": self.submission,
            "passed": self.passed,
            "total_fuel": self.total_fuel,
            "overshoot": self.overshoot,
            "submitted_at": self.submitted_at.isoformat(),
        }


def _group(row: dict) -> str:
    if row["passed"]:
        return RANKED
    if row["total_fuel"] is not None:  # every stress input answered correctly, some over the line
        return OVER_LIMIT
    return UNRANKED


def _sort_key(row: dict) -> tuple:
    group = _group(row)
    if group == UNRANKED:
        return (_GROUP_ORDER[group], -row["passed_count"], row["created_at"], row["pk"])
    return (_GROUP_ORDER[group], row["total_fuel"], row["created_at"], row["pk"])


def rank(rows: list[dict], *, best_per_name: bool = True) -> list[Entry]:
    """Order `rows` (dicts with FIELDS) into leaderboard entries, ranks on the passed ones."""
    entries: list[Entry] = []
    seen: set[str] = set()
    position = 0
    for row in sorted(rows, key=_sort_key):
        if best_per_name:
            if row["name"] in seen:
                continue
            seen.add(row["name"])
        group = _group(row)
        if group == RANKED:
            position += 1
        entries.append(Entry(
            rank=position if group == RANKED else None, group=group, submission=row["pk"],
            name=row["name"], variant=row["variant__slug"], status=row["status"], passed=row["passed"],
            total_fuel=row["total_fuel"], overshoot=row["overshoot"], passed_count=row["passed_count"],
            input_count=row["input_count"], submitted_at=row["created_at"],
            wasmtime_version=row["wasmtime_version"], engine_digest=row["engine_digest"],
        ))
    return entries
