"""The house's one lock order, and the one function that takes row locks.

Two transactions that lock the same rows in opposite orders can each wait for the other for
ever (PostgreSQL then aborts one: "deadlock detected"). So every row lock is taken here, in this
order of tables, and within a table in the order of primary keys:

    0. publishing           the catalog's one publishing lock (`hold_publishing`): an import that
                            writes a version and a retirement take it before anything else
    1. catalog.Case         a case, while a version of it is imported
    2. scoring.BoardSummary a version's boards: its every-variant summary row is the board's lock,
                            taken before anything on the version changes; its variants' summary
                            rows are taken after it
    3. the operator         (settings.AUTH_USER_MODEL) while their quotas and queue are counted
    4. scoring.ApiToken     a token's request window
    5. scoring.Submission   entries
    6. scoring.Standing     a board's standings (only ever under the board's lock)

An operation asks for everything it will change in one call (`lock_rows` sorts what it is given),
or, over several calls, never asks for a table above one it already holds. An UPDATE locks the
rows it changes just as `lock_rows` does: change an entry only once its board is held. What
follows the locks (a version's figures, the page generations, bumped in name order) is written
last, under them.

The locks are PostgreSQL's FOR NO KEY UPDATE: they exclude each other and every UPDATE, but not
the FOR KEY SHARE a foreign key's check takes on the row it points to (at commit, for a row this
transaction changed twice): a transaction holding an operator's lock never waits on another that
merely has an entry pointing at that operator. No primary key here is ever changed. SQLite locks
the whole database for a write and ignores row locks.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

ORDER = ("catalog.case", "scoring.boardsummary", "operator", "scoring.apitoken", "scoring.submission",
         "scoring.standing")


def rank(model) -> int:
    """Where `model`'s rows come in the order. Raises ValueError for a table the order does not name:
    a lock nobody placed cannot be kept in order."""
    label = model._meta.label_lower
    if label == settings.AUTH_USER_MODEL.lower():
        label = "operator"
    try:
        return ORDER.index(label)
    except ValueError:
        raise ValueError(f"{label} has no place in the lock order (lib/locking.py)") from None


def lock_rows(*querysets: QuerySet) -> list[list]:
    """Lock the rows of each queryset until the transaction ends: the tables in the house's order,
    each table's rows by primary key, whatever order they are given in. Returns each queryset's
    rows, in the order the querysets were given. Call inside `transaction.atomic()`."""
    rows: list[list] = [[] for _ in querysets]
    for position in sorted(range(len(querysets)), key=lambda index: rank(querysets[index].model)):
        rows[position] = list(querysets[position].select_for_update(no_key=True).order_by("pk"))
    return rows


# The publishing lock's key among PostgreSQL's advisory locks ("Fuel" in ASCII).
PUBLISHING_KEY = 0x4675656C


def hold_publishing() -> None:
    """Take the catalog's publishing lock until the transaction ends: first, before any row lock.

    An import checks that no retired version published a file it holds out, and a retirement
    that no current version holds out a file it publishes; each must see what the other wrote, so
    they take turns. PostgreSQL: a transaction-level advisory lock. SQLite: the site's transactions
    begin IMMEDIATE (config/env.py), holding the database's one write lock already; an empty write
    makes sure of it whatever the connection's settings. Call inside
    `transaction.atomic()`, before the transaction reads what it checks."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PUBLISHING_KEY])
        else:
            cursor.execute("UPDATE catalog_case SET id = id WHERE 0")
