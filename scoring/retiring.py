"""Retiring versions (docs/retiring.md): a retired version's board is frozen from then on (no entry
is taken for it, and none of its entries is scored again), and what it held out is published —
its inputs and expected answers, and the module each of its entries ran — so that anyone can
measure any of its entries again with a kit's meter.

What is published must not be what another version still holds out: versions share held-out
files (a new version often keeps the old inputs), so a version is retired only together with
every version that holds out one of its files (`retire` names them when they are missing). Only
versions whose entries are all settled can be retired; retiring one already retired changes
nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalog.models import CaseVersion
from catalog.published import held_out_file, held_out_files, shares_content
from lib.errors import DomainError
from lib.locking import hold_publishing
from scoring.boards.updates import announce_versions
from scoring.locking import lock_entries
from scoring.models import StoredModule, Submission
from sitecache.models import CATALOG, Generation

# Entries whose results may still change: being scored, or failed and waiting to be scored again.
UNSETTLED = (Submission.State.PENDING, Submission.State.RUNNING, Submission.State.ERROR)


class RetireRefused(DomainError):
    """Nothing was retired. Codes: `unknown_version`, `entries_unfinished`, `held_out_shared`."""


@dataclass(frozen=True)
class Retired:
    version: CaseVersion
    retired_at: datetime
    already: bool  # it was retired before: nothing changed
    entries: int  # its entries on the site (hidden ones aside)
    modules: int  # of which one's module is published


def retire(targets: list[tuple[str, str]], *, now: datetime | None = None) -> list[Retired]:
    """Retire the versions named as (slug, version), together or not at all. Raises RetireRefused."""
    versions = []
    for slug, version in dict.fromkeys(targets):
        found = CaseVersion.objects.filter(case__slug=slug, version=version).select_related("case").first()
        if found is None:
            raise RetireRefused("unknown_version", f"no version {version} of a case {slug} is imported here")
        versions.append(found)
    with transaction.atomic():
        # An import holding out what this publishes commits first, or waits (lib/locking.py).
        hold_publishing()
        # Their boards, in one call (in the order of the boards' rows, as every other path takes them):
        # no entry of them is stored or scored again while they are being retired.
        lock_entries([], versions=[found.pk for found in versions])
        # The moment is taken once the boards are held: every entry recorded before it is on them.
        when = now or timezone.now()
        fresh = [found for found in versions if CaseVersion.objects.get(pk=found.pk).retired_at is None]
        refuse_unsettled(fresh)
        refuse_shared(fresh)
        CaseVersion.objects.filter(pk__in=[found.pk for found in fresh]).update(retired_at=when)
        if fresh:
            ids = {found.pk for found in fresh}
            transaction.on_commit(lambda: (Generation.bump(CATALOG), announce_versions(ids)))
    done = []
    for found in versions:
        found.refresh_from_db(fields=["retired_at"])
        held_out_file(found)  # the zip made now, not by the first reader to ask
        entries = Submission.objects.shown().filter(version=found, hidden=False)
        published = sum(1 for entry in entries if published_module(entry) is not None)
        done.append(Retired(found, found.retired_at, found not in fresh, entries.count(), published))
    return done


def refuse_unsettled(versions: list[CaseVersion]) -> None:
    for found in versions:
        waiting = Submission.objects.filter(version=found, status__in=UNSETTLED).count()
        if waiting:
            raise RetireRefused("entries_unfinished", f"{waiting} entr{'y is' if waiting == 1 else 'ies are'} of "
                                                      f"{found.case.slug} {found.version} still to be scored (or "
                                                      "failed and waiting to be scored again): retire it once "
                                                      "they are settled (a frozen board has no entry still to come)")


def refuse_shared(versions: list[CaseVersion]) -> None:
    """Refuse when a version staying current holds out a file one of `versions` would publish — the
    same bytes or JSON document, or one inside the other — naming every version that would have to
    be retired with them (those they share with in turn)."""
    current = {pk: (slug, version, ordinal) for pk, slug, version, ordinal in
               CaseVersion.objects.filter(retired_at__isnull=True).exclude(pk__in=[found.pk for found in versions])
               .values_list("pk", "case__slug", "version", "ordinal")}
    if not current:
        return
    held = held_out_files([*current, *(found.pk for found in versions)])
    published = [content for found in versions for content in held.get(found.pk, [])]
    sharing: set[int] = set()
    while True:
        more = {pk for pk in current if pk not in sharing and shares_content(published, held.get(pk, []))}
        if not more:
            break
        sharing |= more
        published += [content for pk in more for content in held.get(pk, [])]
    if sharing:
        names = [f"{current[pk][0]} {current[pk][1]}" for pk in sorted(sharing, key=lambda pk: (current[pk][0],
                                                                                               current[pk][2]))]
        raise RetireRefused("held_out_shared", f"{', '.join(names)} hold{'s' if len(names) == 1 else ''} out some "
                                               "of the same inputs or answers, which retiring would publish: retire "
                                               "them together (name them too), or not at all")


def published_module(submission: Submission) -> StoredModule | None:
    """The module an entry ran, when the public may have it: its version is retired, the entry
    is on the site (not hidden), its module was kept, and no entry of a version still current ran
    the same module or was sent the same source (a carried copy, or the same module sent again,
    competes there, built or not yet)."""
    if submission.version.retired_at is None or submission.hidden or not submission.module_digest:
        return None
    current = Submission.objects.filter(version__retired_at__isnull=True)
    if current.filter(Q(module_digest=submission.module_digest) | Q(source_digest=submission.source_digest)
                      | Q(source_digest=submission.module_digest)).exists():
        # A copy of the same source not yet built has no module digest: its source tells; so does
        # the module itself sent as an entry (its source is the module), scored or not.
        return None
    return StoredModule.objects.filter(digest=submission.module_digest).first()
