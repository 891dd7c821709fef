"""Carry-forward: a new version of a case starts with the previous version's best entries.

The best entry of each submitter on the source version's leaderboard (each one's best over every
variant), in board order, among those that answered every input correctly (ranked, or over the
pass line), up to `top` of them, is submitted again to the target version: same name, same
source, the variant of the same slug (or the target's default variant), and `carried_from`
pointing at the entry it came from. Then each is scored like any other submission, against the
target version's own inputs and limits.

Carrying is idempotent: a source already carried to a version (whatever became of that
submission) is never carried there again, which a unique constraint also guarantees under
concurrency; nor is an entry whose operator already sent the same source under the same name
and variant to that version (the entry is there: checked under the board's lock). Importing a
new latest version carries from the version before it (`CARRY_FORWARD_TOP` entries; 0 turns it
off); `manage.py carry_forward` and the admin's action on a case version do the same by hand.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from django.conf import settings
from django.db import IntegrityError, transaction

from catalog.models import CaseVersion
from engine.progress import ScoringProgress
from lib.errors import DomainError
from scoring.attempts import score
from scoring.boards import OVER_LIMIT, RANKED
from scoring.entries import earlier
from scoring.jobs import enqueue_scoring
from scoring.locking import lock_board
from scoring.models import Standing, Submission
from scoring.recording import ScoringError, is_retired, record_submission

logger = logging.getLogger(__name__)

# How a carried entry is chosen: correct on every input, whatever its fuel against the pass line.
CARRIED_GROUPS = (RANKED, OVER_LIMIT)


class CarryRefused(DomainError):
    """A carry-forward that cannot be done as asked (versions of different cases, the same version)."""


@dataclass(frozen=True)
class Carried:
    source: Submission  # the entry on the source version (without its source bytes)
    submission: Submission | None  # the new submission on the target, None if skipped
    there: Submission | None = None  # skipped: the same entry its operator sent to the target

    @property
    def skipped(self) -> bool:
        return self.submission is None

    def as_json(self) -> dict:
        shown = self.submission or self.there
        return {
            "from": self.source.pk,
            "name": self.source.name,
            "submission": shown.pk if shown else None,
            "status": (self.submission.status if self.submission else
                       "already_submitted" if self.there else "already_carried"),
            "passed": shown.passed if shown else None,
            "total_fuel": shown.total_fuel if shown else None,
        }


def previous_version(version: CaseVersion) -> CaseVersion | None:
    """The version of the same case just before `version` in version order; for a published
    version, the published one before it (an experimental version's entries stay off public boards)."""
    earlier = CaseVersion.objects.filter(case_id=version.case_id, ordinal__lt=version.ordinal)
    if not version.experimental:
        earlier = earlier.filter(experimental=False)
    return earlier.select_related("case").order_by("-ordinal").first()


def best_entries(version: CaseVersion, top: int) -> list[Submission]:
    """The first `top` submitters' best entries on `version`'s board that can be carried, in board order."""
    ids = list(
        Standing.objects.board(version.pk).filter(board_group__in=CARRIED_GROUPS).in_board_order()
        .values_list("submission_id", flat=True)[:top]
    )
    found = Submission.objects.select_related("variant").in_bulk(ids)
    return [found[pk] for pk in ids if pk in found]


def carry_forward(target: CaseVersion, *, source: CaseVersion | None = None, top: int | None = None) -> list[Carried]:
    """Submit the best entries of `source` (default: the version before `target`) to `target`.

    Returns one `Carried` per chosen entry, in board order; the new submissions are pending and
    not yet scored (see `score_carried`). Raises CarryRefused.
    """
    top = settings.CARRY_FORWARD_TOP if top is None else top
    if is_retired(target.pk):
        raise CarryRefused("retired", f"{target} is retired: its board is frozen and takes no entry")
    if source is None:
        source = previous_version(target)
        if source is None:
            return []
    if source.case_id != target.case_id:
        raise CarryRefused("other_case", f"{source} and {target} are versions of different cases")
    if source.pk == target.pk:
        raise CarryRefused("same_version", f"cannot carry {target} forward to itself")
    if source.experimental and not target.experimental:
        raise CarryRefused("experimental_source", f"{source} is experimental: its entries cannot be carried to "
                                                  f"{target}, which is published")
    if top <= 0:
        return []
    entries = best_entries(source, top)
    reference = Submission.objects.select_related("variant").filter(version=source, is_reference=True,
                                                                    board_group__in=CARRIED_GROUPS).first()
    if reference is not None and reference.pk not in {entry.pk for entry in entries}:
        entries.append(reference)  # the reference goes too, wherever it stands
    done = set(Submission.objects.filter(version=target, carried_from__in=entries)
               .values_list("carried_from_id", flat=True))
    variants = {variant.slug: variant for variant in target.variants.all()}
    default = min(variants.values(), key=lambda variant: variant.position)
    carried = []
    for entry in entries:
        if entry.pk in done:
            carried.append(Carried(entry, None))
        else:
            carried.append(_resubmit(entry, target, variants.get(entry.variant.slug, default)))
    return carried


def _resubmit(entry: Submission, target: CaseVersion, variant) -> Carried:
    """The entry's source as a new pending submission on `target`; none if another carrier won,
    or if the entry is there already (its operator sent the same source, name and variant)."""
    stored = Submission.objects.only("source").get(pk=entry.pk)
    try:
        with transaction.atomic():
            lock_board(target.pk)
            standing, left = earlier(target, variant, entry.name, entry.source_digest)
            if standing or left:
                return Carried(entry, None, there=standing or left)
            # The same source from the same run: its provenance and staff's word go with it.
            new = record_submission(target, variant, entry.name, entry.source_kind, entry.source_label,
                                    bytes(stored.source), run=entry.run, carried_from=entry,
                                    annotation=entry.annotation)
            # The reference's copy is the new version's reference (unless staff chose one there
            # already); it counts once it passes there.
            if entry.is_reference and not Submission.objects.filter(version=target, is_reference=True).exists():
                Submission.objects.filter(pk=new.pk).update(is_reference=True)
            return Carried(entry, new)
    except IntegrityError:
        return Carried(entry, None)  # a concurrent carry-forward created it first (the `carried_once` constraint)
    except ScoringError as refused:  # the version was retired meanwhile (checked under its board's lock)
        raise CarryRefused(refused.code, refused.message) from None


def score_carried(carried: list[Carried], *, progress: Callable[[Submission], ScoringProgress] | None = None,
                  inline: bool | None = None, done: Callable[[Carried], None] | None = None) -> None:
    """Score the new submissions: here, one after the other (the immediate task backend, or
    `inline`), or as queued jobs for the workers (the database backend).

    A submission whose scoring fails is marked `error` (scoring.attempts.score) and the rest go on.
    """
    inline = settings.TASKS_BACKEND == "immediate" if inline is None else inline
    for item in carried:
        if item.submission is None:
            continue
        if not inline:
            with transaction.atomic():
                enqueue_scoring(item.submission)
        else:
            try:
                score(item.submission, progress=progress(item.submission) if progress else None)
            except Exception:  # recorded on the submission as `error`; carry the others regardless
                logger.warning("carried submission %s could not be scored", item.submission.pk, exc_info=True)
        item.submission.refresh_from_db()
        if done:
            done(item)


def carry_after_import(versions: list[CaseVersion], report: Callable[[str], None] | None = None) -> list[Carried]:
    """For each newly imported version that is its case's latest: carry the version before it forward."""
    say = report or (lambda text: None)
    everything = []
    for version in CaseVersion.objects.filter(pk__in=[version.pk for version in versions], latest_any=True) \
            .select_related("case"):
        source = previous_version(version)
        if source is None or settings.CARRY_FORWARD_TOP <= 0:
            continue
        carried = carry_forward(version, source=source)
        fresh = [item for item in carried if not item.skipped]
        if not fresh:
            continue
        inline = settings.TASKS_BACKEND == "immediate"
        say(f"carry-forward {version.case.slug} {source.version} → {version.version}: "
            f"{len(fresh)} entr{'y' if len(fresh) == 1 else 'ies'} {'to score' if inline else 'queued'}")
        score_carried(fresh, inline=inline,
                      done=lambda item: say(f"    {item.source.name}: {describe(item.submission)}"))
        everything.extend(carried)
    return everything


def describe(submission: Submission | None, there: Submission | None = None) -> str:
    """One line for an operator: how a carried submission fared."""
    if submission is None:
        return f"already submitted as #{there.pk}" if there else "already carried"
    if submission.status in (Submission.State.PENDING, Submission.State.RUNNING):
        return f"#{submission.pk} {submission.job_state}"
    if submission.status != Submission.State.SCORED:
        return f"#{submission.pk} {submission.status.replace('_', ' ')}"
    if submission.passed:
        return f"#{submission.pk} passed, {submission.total_fuel:,} fuel"
    return f"#{submission.pk} {submission.passed_count}/{submission.input_count} inputs passed"
