"""Tables computed in the background from the boards: the catalog-wide standings and the agents
matrix. Each has one `StandingsSnapshot` row (its key names the table) saying when it was computed,
from which generations, and whether a refresh was asked for.

A page view that finds its table behind the scores (the `catalog` and `standings` generations moved
since) and older than STANDINGS_REFRESH_SECONDS queues one refresh (`request_refresh`); the refresh
replaces the table's rows in one transaction (`store`). So a page costs one indexed slice however
many entries there are, and lags the scores by at most the interval plus one refresh (plus the
queue's wait, with workers, and at most CHECK_SECONDS more).
"""

from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Callable

from django.conf import settings
from django.utils import timezone

from scoring.models import StandingsSnapshot
from sitecache.models import CATALOG, Generation
from sitecache.models import STANDINGS as STANDINGS_GENERATION

# The snapshot rows' keys: one per table.
STANDINGS, AGENTS = 1, 2
# A refresh that was asked for and has not finished after this long is asked for again.
CLAIM_SECONDS = 15 * 60
# A process looks at whether a table is behind at most this often (never more often than the
# refresh interval allows a refresh anyway), so a page served from the cache costs no more.
CHECK_SECONDS = 1.0
_last_check: dict[int, float] = {}


def current_source() -> str:
    """What the tables are computed from: the generations every change to them bumps."""

    return ".".join(str(value) for value in Generation.current([CATALOG, STANDINGS_GENERATION]))


def snapshot(table: int):

    return StandingsSnapshot.objects.filter(pk=table).first()


def request_refresh(table: int, enqueue: Callable[[], object]) -> bool:
    """Queue a refresh of `table` (with `enqueue`) if it is behind the scores and old enough; True
    if one was queued.

    At most one refresh is asked for at a time (a compare-and-set on the snapshot row); with the
    immediate task backend it runs right here, before the page is read.
    """

    if settings.STANDINGS_REFRESH_SECONDS:
        if time.monotonic() - _last_check.get(table, -math.inf) < min(CHECK_SECONDS,
                                                                      settings.STANDINGS_REFRESH_SECONDS):
            return False
        _last_check[table] = time.monotonic()
    current = snapshot(table)
    now = timezone.now()
    if current is not None:
        if current.source == current_source():
            return False
        if current.computed_at and now - current.computed_at < timedelta(seconds=settings.STANDINGS_REFRESH_SECONDS):
            return False
        if current.claimed_at and now - current.claimed_at < timedelta(seconds=CLAIM_SECONDS):
            return False
        claimed = StandingsSnapshot.objects.filter(pk=table, claimed_at=current.claimed_at).update(claimed_at=now)
    else:
        _, claimed = StandingsSnapshot.objects.get_or_create(pk=table, defaults={"claimed_at": now})
    if not claimed:
        return False  # another request claimed it first
    enqueue()  # the claim and the job commit together (or both roll back)
    return True


def store(table: int, source: str, started: float, scopes: dict, generation: str) -> float:
    """Say that `table` was computed from `source` (inside the transaction that replaced its rows),
    and bump its pages' `generation`. Returns the seconds since `started`."""

    seconds = time.perf_counter() - started
    StandingsSnapshot.objects.update_or_create(pk=table, defaults={
        "source": source, "computed_at": timezone.now(), "duration_ms": seconds * 1000, "claimed_at": None,
        "scopes": scopes,
    })
    Generation.bump(generation)
    return seconds
