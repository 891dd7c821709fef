"""Content generations: counters bumped by every write that changes what a page shows.

Cached pages are keyed by the generations of what they show, so a cache never serves a page
older than the data, in any process, without reaching into other processes' caches. Each write
bumps only what it changed:

- `catalog`: imports and deleted versions (every page that lists cases or versions);
- `best-fuel`: a latest version's best fuel changed (the case list's figure);
- `version:<slug>:<version>`: that version's results (its leaderboards, its case page), and
  `version:<slug>:latest` too when the version is a case's latest;
- `standings`: the board of a case's latest public version changed (what the catalog-wide
  standings are computed from), and `standings-snapshot`: they were computed again (their pages);
- `agents-snapshot`: the agents matrix was computed again (its pages), from the same sources.
"""

from __future__ import annotations

from django.db import connection, models

CATALOG = "catalog"
BEST_FUEL = "best-fuel"
STANDINGS = "standings"
STANDINGS_SNAPSHOT = "standings-snapshot"
AGENTS_SNAPSHOT = "agents-snapshot"


def version_generation(slug: str, version: str | None) -> str:
    """The generation of one version's results; `None` names the case's latest version."""
    return f"version:{slug}:{version or 'latest'}"


class Generation(models.Model):
    name = models.CharField(max_length=250, primary_key=True)
    value = models.BigIntegerField(default=0)

    class Meta:
        db_table = "sitecache_generation"

    def __str__(self) -> str:
        return f"{self.name} = {self.value}"

    @classmethod
    def current(cls, names: list[str] | tuple[str, ...]) -> tuple[int, ...]:
        """The values of `names` (0 for one never bumped), in one query.

        Read on every cached page view: plain SQL skips building an ORM query each time.
        """
        placeholders = ", ".join(["%s"] * len(names))
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT name, value FROM {cls._meta.db_table} WHERE name IN ({placeholders})", list(names))
            values = dict(cursor.fetchall())
        return tuple(values.get(name, 0) for name in names)

    @classmethod
    def bump(cls, *names: str) -> None:
        """Call inside the transaction that changes the data, so both commit together."""
        for name in sorted(set(names)):  # in name order: two transactions bumping the same rows take turns
            if not cls.objects.filter(name=name).update(value=models.F("value") + 1):
                _, created = cls.objects.get_or_create(name=name, defaults={"value": 1})
                if not created:  # another transaction created it between our update and insert
                    cls.objects.filter(name=name).update(value=models.F("value") + 1)
