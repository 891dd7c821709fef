"""Reading a leaderboard: an indexed, ordered page of standings (or of submissions, with `?all=1`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from django.db import connection
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber

from lib.errors import DomainError
from scoring.boards.places import (
    ALL_VARIANTS,
    GROUP_NAMES,
    RANKED,
    STANDING_ORDER,
    engine_label,
    speedup,
    variant_key,
)
from scoring.models import BoardSummary, Standing, Submission
from scoring.verdicts import verdict_of

MODEL_MAX = 100  # as Submission.model


class BadModel(DomainError):
    """A `?model=` no entry could have (code `bad_model`)."""


def model_filter(value: str | None) -> str | None:
    """The `?model=` filter of a page or the API: None for every model. Raises BadModel."""
    value = (value or "").strip()
    if len(value) > MODEL_MAX or any(ord(character) < 32 for character in value):
        raise BadModel("bad_model", f"model must be at most {MODEL_MAX} characters of one line")
    return value or None


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
    carried_from: int | None = None  # the submission on an earlier version it was carried from
    model: str = ""  # the run's model (provenance), "" when not recorded
    annotation: str = ""  # staff's public note (an excluded entry's reason)
    verification: str = ""  # its latest re-measurement: "", identical, different or failed
    build_confinement: str = ""  # how its build was held (Submission.build_confinement)
    # Ties: the place it shares with every ranked entry of the same total fuel (the first of theirs),
    # and whether it shares it. `rank` stays its own position (ties broken by time).
    shared_rank: int | None = None
    tied: bool = False
    # Its version's reference fuel ÷ its own (None: no reference, or no correct answer to every input).
    speedup: float | None = None

    @property
    def engine(self) -> str:
        return engine_label(self.wasmtime_version, self.engine_digest)

    @property
    def verdict(self):

        return verdict_of(status=self.status, passed=self.passed, total_fuel=self.total_fuel,
                          passed_count=self.passed_count, input_count=self.input_count)


SUBMISSION_FIELDS = ("pk", "name", "variant__slug", "status", "passed", "total_fuel", "overshoot", "passed_count",
                     "input_count", "submitted_at", "wasmtime_version", "engine_digest", "board_group", "carried_from",
                     "model", "annotation", "verification", "build_confinement")


def _entry(row: dict, position: int, reference_fuel: int | None = None) -> Entry:
    group = row["board_group"]
    return Entry(
        rank=position if group == RANKED else None, shared_rank=position if group == RANKED else None,
        speedup=speedup(reference_fuel, row["total_fuel"]), group=GROUP_NAMES[group], submission=row["pk"],
        name=row["name"], variant=row["variant__slug"], status=row["status"], passed=row["passed"],
        total_fuel=row["total_fuel"], overshoot=row["overshoot"], passed_count=row["passed_count"],
        input_count=row["input_count"], submitted_at=row["submitted_at"], wasmtime_version=row["wasmtime_version"],
        engine_digest=row["engine_digest"], carried_from=row["carried_from"], model=row["model"],
        annotation=row["annotation"], verification=row["verification"], build_confinement=row["build_confinement"],
    )


class Leaderboard:
    """One version's leaderboard, optionally one variant's: each submitter's best, or every entry.

    Sliced like a list (`board[0:50]`), each slice one indexed query; `count()` reads one summary
    row. Ranks come from the position: ranked entries come first and ties are broken, so the
    n-th entry of the order, if ranked, has rank n.
    """

    def __init__(self, version, *, variant=None, include_all: bool = False, model: str | None = None):
        self.version = version
        self.variant = variant
        self.variant_key = variant_key(variant.pk if variant else None)
        self.include_all = include_all
        self.model = model  # only the rows whose entry came from this model (an indexed filter)
        self._summary = None
        self._count = None

    @property
    def summary(self):
        if self._summary is None:

            self._summary = (BoardSummary.objects.filter(version=self.version, variant_key=self.variant_key).first()
                             or BoardSummary())
        return self._summary

    def count(self) -> int:
        if self.model is not None:  # no summary per model: counted over its index range
            if self._count is None:
                self._count = self._filtered().count()
            return self._count
        return self.summary.submissions if self.include_all else self.summary.entries

    def __len__(self) -> int:
        return self.count()

    def engines(self) -> set[str]:
        """The engines that measured what this board shows (with a model filter, the whole board's)."""
        counts = self.summary.submission_engines if self.include_all else self.summary.entry_engines
        return {engine for engine, count in (counts or {}).items() if count > 0}

    def _whole(self) -> "Leaderboard":
        """The same board without the model filter."""
        return Leaderboard(self.version, variant=self.variant, include_all=self.include_all)

    def _filtered(self):

        if self.include_all:
            rows = Submission.objects.filter(version=self.version, board_group__isnull=False)
            if self.variant is not None:
                rows = rows.filter(variant=self.variant)
        else:
            rows = Standing.objects.board(self.version.pk, self.variant_key)
        return rows if self.model is None else rows.filter(model=self.model)

    def rows(self, start: int, stop: int):
        """The query for entries `start` to `stop` in board order: values() rows."""
        if self.include_all:
            return self._filtered().in_board_order().values(*SUBMISSION_FIELDS)[start:stop]
        # The standings' index gives the order; the submissions (joined by key) the columns.
        columns = {f"entry_{field}": F(f"submission__{'id' if field == 'pk' else field}") for field in
        SUBMISSION_FIELDS}
        return self._filtered().in_board_order().values(**columns)[start:stop]

    def _rows(self, start: int, stop: int) -> list[dict]:
        rows = self.rows(start, stop)
        if self.include_all:
            return list(rows)
        return [{name.removeprefix("entry_"): value for name, value in row.items()} for row in rows]

    def __iter__(self):
        return iter(self[0:self.count()])

    def batches(self, size: int = 500):
        """Every entry in board order, `size` at a time, from one query read as it goes (a
        download of the whole board, however long, costs one pass over the index). With a model
        filter, the pass is over the whole board, counting ranks, keeping that model's rows."""
        whole = self._whole() if self.model else self
        batch: list[Entry] = []
        shared = (None, None)  # (total fuel, the place it shares) of the last ranked row
        for position, row in enumerate(whole.rows(0, None).iterator(chunk_size=2000), 1):
            if not self.include_all:
                row = {name.removeprefix("entry_"): value for name, value in row.items()}
            if row["board_group"] == RANKED and shared[0] != row["total_fuel"]:
                shared = (row["total_fuel"], position)
            if self.model is not None and row["model"] != self.model:
                continue
            entry = _entry(row, position, self.version.reference_fuel)
            batch.append(replace(entry, shared_rank=shared[1]) if entry.rank is not None else entry)
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch

    def __getitem__(self, index):
        if isinstance(index, int):
            return self[index:index + 1][0]
        start, stop = index.start or 0, index.stop if index.stop is not None else self.count()
        entries = [_entry(row, start + offset + 1, self.version.reference_fuel)
                   for offset, row in enumerate(self._rows(start, stop))]
        return self._shared_ranks(self._board_ranks(entries))

    def _shared_ranks(self, entries: list[Entry]) -> list[Entry]:
        """Each ranked entry's shared place and whether it is tied, from the ranked rows of the
        whole board at or below the page's fuels: one query (none when no entry is ranked)."""
        fuels = sorted({entry.total_fuel for entry in entries if entry.rank is not None})
        if not fuels:
            return entries
        counts = (self._whole()._filtered().filter(board_group=RANKED, board_key__lte=fuels[-1]).aggregate(
            **{f"below_{index}": Count("pk", filter=Q(board_key__lt=fuel)) for index, fuel in enumerate(fuels)},
            **{f"at_{index}": Count("pk", filter=Q(board_key=fuel)) for index, fuel in enumerate(fuels)}))
        places = {fuel: (counts[f"below_{index}"] + 1, counts[f"at_{index}"] > 1) for index, fuel in enumerate(fuels)}
        return [replace(entry, shared_rank=places[entry.total_fuel][0], tied=places[entry.total_fuel][1])
                if entry.rank is not None else entry for entry in entries]

    def _board_ranks(self, entries: list[Entry]) -> list[Entry]:
        """With a model filter, each ranked entry's rank on the whole board: its row number among
        the board's ranked rows, numbered by the database in one pass up to the page's last."""

        ranked = [entry for entry in entries if entry.rank is not None]
        if self.model is None or not ranked:
            return entries
        whole = self._whole()._filtered()
        identity = "id" if self.include_all else "submission_id"
        numbered = (whole.filter(board_group=RANKED, board_key__lte=max(entry.total_fuel for entry in ranked))
                    .annotate(number=Window(RowNumber(), order_by=[F("board_key").asc(), F("submitted_at").asc(),
                                                                   F(identity).asc()]))
                    .values_list(identity, "number"))
        sql, parameters = numbered.query.sql_with_params()
        wanted = [entry.submission for entry in ranked]
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT * FROM ({sql}) AS board WHERE board.{connection.ops.quote_name(identity)} IN "
                           f"({', '.join(['%s'] * len(wanted))})", [*parameters, *wanted])
            ranks = dict(cursor.fetchall())
        return [replace(entry, rank=ranks[entry.submission]) if entry.rank is not None else entry for entry in entries]


@dataclass(frozen=True)
class Place:
    """Where a submission stands on its version's board over every variant."""

    rank: int | None  # None: on the board, unranked (or excluded)
    ranked: int  # how many entries the board ranks
    shared_rank: int | None = None  # the place it shares with the ranked entries of its total fuel
    tied: bool = False  # another ranked entry has its total fuel

    @property
    def shared_ordinal(self) -> str:
        """"1st", "2nd", "23rd"… of its shared place."""
        rank = self.shared_rank or 0
        suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
        return f"{rank}{suffix}"


def place_of(submission) -> Place | None:
    """The submission's place on its version's board (every variant); None when the board does
    not show it (not the submitter's best, or hidden). Two indexed counts and the row."""


    board = Standing.objects.board(submission.version_id, ALL_VARIANTS)
    ranked = board.filter(board_group=RANKED)
    row = board.filter(submission_id=submission.pk).first()
    if row is None:
        return None
    total = ranked.count()
    if row.board_group != RANKED:
        return Place(None, total)
    counts = ranked.filter(board_key__lte=row.board_key).aggregate(
        below=Count("pk", filter=Q(board_key__lt=row.board_key)), at=Count("pk", filter=Q(board_key=row.board_key)),
        ahead_at=Count("pk", filter=Q(board_key=row.board_key, submitted_at__lt=row.submitted_at)
                       | Q(board_key=row.board_key, submitted_at=row.submitted_at, submission_id__lt=submission.pk)))
    return Place(counts["below"] + counts["ahead_at"] + 1, total, counts["below"] + 1, counts["at"] > 1)


def leaders(versions) -> dict[int, dict]:
    """Each version's best entry over every variant (the first, in board order, of those at its
    best fuel): {version id: {"submission", "name", "speedup"}}, in one query."""
    versions = {version.pk: version for version in versions if version.best_fuel is not None}
    found: dict[int, dict] = {}
    rows = (Standing.objects.filter(version_id__in=list(versions), variant_key=ALL_VARIANTS, board_group=RANKED,
                                    board_key=F("version__best_fuel"))
            .order_by("version_id", *STANDING_ORDER).values_list("version_id", "submission_id", "name"))
    for version_id, submission_id, name in rows:
        if version_id not in found and submission_id is not None:
            version = versions[version_id]
            found[version_id] = {"submission": submission_id, "name": name,
                                 "speedup": speedup(version.reference_fuel, version.best_fuel)
                                 if version.reference_fuel else None}
    return found
