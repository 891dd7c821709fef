"""Retiring a version (docs/retiring.md): its board is frozen from then on (no entry is taken for
it), and what was held out is published — its inputs and expected answers, and the module each of
its entries ran — so that anyone can measure any of its entries again with a kit's meter.

Only a version whose entries are all scored can be retired (a frozen board has no entry still to
come); retiring one already retired changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from catalog.models import CaseVersion
from lib.errors import DomainError
from scoring.boards.updates import announce_versions
from scoring.locking import lock_board
from scoring.models import StoredModule, Submission
from sitecache.models import CATALOG, Generation

UNFINISHED = (Submission.State.PENDING, Submission.State.RUNNING)


class RetireRefused(DomainError):
    """Nothing was retired. Codes: `unknown_version`, `entries_unfinished`."""


@dataclass(frozen=True)
class Retired:
    version: CaseVersion
    retired_at: datetime
    already: bool  # it was retired before: nothing changed
    entries: int  # its entries on the site (hidden ones aside)
    modules: int  # of which one's module is kept, and published


def retire(slug: str, version: str, *, now: datetime | None = None) -> Retired:
    """Retire version `version` of the case `slug`. Raises RetireRefused."""
    found = CaseVersion.objects.filter(case__slug=slug, version=version).select_related("case").first()
    if found is None:
        raise RetireRefused("unknown_version", f"no version {version} of a case {slug} is imported here")
    with transaction.atomic():
        lock_board(found.pk)  # no entry of it is stored while it is being retired
        found.refresh_from_db(fields=["retired_at"])
        already = found.retired_at is not None
        if not already:
            waiting = Submission.objects.filter(version=found, status__in=UNFINISHED).count()
            if waiting:
                raise RetireRefused("entries_unfinished", f"{waiting} entr{'y is' if waiting == 1 else 'ies are'} of "
                                                          f"{slug} {version} still to be scored: retire it once "
                                                          "they are (a frozen board has no entry still to come)")
            found.retired_at = now or timezone.now()
            CaseVersion.objects.filter(pk=found.pk).update(retired_at=found.retired_at)
            transaction.on_commit(lambda: (Generation.bump(CATALOG), announce_versions({found.pk})))
    entries = Submission.objects.shown().filter(version=found, hidden=False)
    kept = entries.filter(module_digest__in=StoredModule.objects.values("digest")).count()
    return Retired(found, found.retired_at, already, entries.count(), kept)


def published_module(submission: Submission) -> StoredModule | None:
    """The module an entry ran, when the public may have it: its version is retired, the entry
    is on the site (not hidden) and its module was kept."""
    if submission.version.retired_at is None or submission.hidden or not submission.module_digest:
        return None
    return StoredModule.objects.filter(digest=submission.module_digest).first()
