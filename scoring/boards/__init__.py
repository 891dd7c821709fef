"""Leaderboards kept in the database (docs/reading.md): each submitter's best entry, ranked by an index.

A submission's place on the boards is two columns written with it (`board_group`, `board_key`):
group 0 passed (key: total fuel), 1 correct but over the pass line (key: total fuel), 2 the rest
(key: minus the inputs passed), 3 excluded from ranking by staff (key as its results would
give it); NULL when it is hidden or not finished scoring. Ties go to the
earlier submission (`submitted_at`, then the id). A `Standing` row holds, per version, variant and
submitter name, that submitter's best submission, and one more per version and name over every
variant (`variant_key` 0, ALL_VARIANTS), which is the default leaderboard. A `BoardSummary` per
version and variant (the same key) counts entries and submissions and the engines seen, and each version keeps
its best fuel (`CaseVersion.best_fuel`, shown on the case list), so a page of a leaderboard is
an indexed, ordered slice and its count one row, however many submissions there are.

Every write that changes what a board shows goes through `update_boards()` (or
`forget_submission()` for a deleted one) in the same transaction; `rebuild()` recomputes all of
it from the submissions (`manage.py rebuild_standings`, and the data migration).

The modules: `places` (a submission's group and key), `reading` (the `Leaderboard`), `updates`
(`update_boards`, `forget_submission`, `set_hidden`), `records` (the record progression) and
`rebuilding` (`rebuild`).

The package imports nothing of its own but `places` (pure: no model, no query), so the models can
use it without importing the modules that read and write the boards, which use the models.
"""

from scoring.boards.places import (
    ALL_VARIANTS,
    BOARD_ORDER,
    EXCLUDED,
    GROUP_NAMES,
    OVER_LIMIT,
    RANKED,
    STANDING_ORDER,
    UNRANKED,
    board_place,
    board_place_expressions,
    engine_label,
    variant_key,
)

__all__ = [
    "ALL_VARIANTS", "BOARD_ORDER", "EXCLUDED", "GROUP_NAMES", "OVER_LIMIT", "RANKED",
    "STANDING_ORDER", "UNRANKED", "board_place", "board_place_expressions", "engine_label", "variant_key",
]
