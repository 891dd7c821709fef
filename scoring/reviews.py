"""Review reads: the qualitative read of an approach that a case's `[[review_item]]` tables ask
for, recorded beside the fuel.

A version declares its review items as it declares its other tables; an item with a `slug` and a
`question` can be read (an optional `scale` lists its verdicts, else pass, fail, not applicable).
Staff record reads in the admin; an operator whose account has the review permission records
them over the API (`POST /api/v1/submissions/{id}/reviews/`). Each read says who and when, and is
the read of the module it looked at: re-measuring the entry keeps it; an entry built into another
module shows none of the reads of the old one. An item may be read more than once (by several
reviewers); the latest read of an item is its verdict where one verdict is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F

from catalog.models import CaseVersion
from lib.errors import DomainError
from lib.text import name_key, refused_character
from scoring.boards.updates import announce_versions
from scoring.models import ReviewRead, Submission, SubmitterName

DEFAULT_SCALE = ("pass", "fail", "not applicable")
MAX_TEXT = 2000
MAX_SCALE = 12
MAX_VERDICT = 40


class ReviewRefused(DomainError):
    """A read that cannot be recorded (code, message); `status` the HTTP status it answers."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(code, message)
        self.status = status


@dataclass(frozen=True)
class ReviewItem:
    slug: str
    question: str
    scale: tuple[str, ...]


def review_items(version: CaseVersion) -> list[ReviewItem]:
    """The items of the version that can be read, as declared (in order)."""
    items = []
    for table in version.review_items or []:
        slug, question = table.get("slug"), table.get("question")
        if isinstance(slug, str) and isinstance(question, str):
            scale = table.get("scale")
            items.append(ReviewItem(slug, question, tuple(scale) if isinstance(scale, list) and scale
                                    else DEFAULT_SCALE))
    return items


def record_read(submission: Submission, item: str, verdict: str, text: str, reviewer) -> ReviewRead:
    """Record `reviewer`'s read of the entry on `item`. Raises ReviewRefused."""
    check_read(submission, item, verdict, text, reviewer)
    read = ReviewRead.objects.create(submission=submission, item=item, verdict=verdict, text=text,
                                     module_digest=submission.module_digest, reviewer=reviewer if reviewer.pk else None,
                                     reviewer_name=reviewer.get_username())
    announce_versions({submission.version_id})  # its pages and boards show reads
    return read


def senders(submission: Submission, most: int = 1000) -> set[int]:
    """The accounts that sent the entry: its operator's, and, for an entry carried forward (which
    has none of its own), the operator of the entry it was carried from, and so on back; and the
    account its submitter name belongs to (staff may give a name used from the shell an owner)."""
    found: set[int] = set(SubmitterName.objects.filter(key=name_key(submission.name), owner__isnull=False)
                          .values_list("owner_id", flat=True))
    seen: set[int] = set()
    entry: Submission | None = submission
    while entry is not None and entry.pk not in seen and len(seen) < most:
        seen.add(entry.pk)
        if entry.operator_id is not None:
            found.add(entry.operator_id)
        entry = (Submission.objects.only("operator_id", "carried_from_id").filter(pk=entry.carried_from_id).first()
                 if entry.carried_from_id else None)
    return found


def check_read(submission: Submission, item: str, verdict: str, text: str, reviewer=None) -> None:
    """Raise ReviewRefused unless the read can be recorded. `reviewer`: the account recording it
    (None or staff: staff in the admin, who may read any entry, as they may still hide one on a
    frozen board). Another account never reads its own entry, nor one of a retired version."""
    if reviewer is not None and not (reviewer.is_staff or reviewer.is_superuser):
        if reviewer.pk in senders(submission):
            raise ReviewRefused(403, "own_entry", "an entry's own operator may not read it: another reviewer must")
        retired_at = submission.version.retired_at
        if retired_at is not None:
            raise ReviewRefused(409, "version_retired", f"version {submission.version.version} was retired on "
                                                        f"{retired_at:%Y-%m-%d}: its board is frozen (staff may "
                                                        "still record a read in the admin)")
    if not submission.module_digest:
        raise ReviewRefused(409, "not_measured", "the entry has no module to read yet: it was not built or measured")
    found = {candidate.slug: candidate for candidate in review_items(submission.version)}
    if item not in found:
        declared = ", ".join(found) or "none"
        raise ReviewRefused(422, "unknown_item", f"the version declares no review item {item[:100]!r} (its items: "
                                                 f"{declared})")
    if verdict not in found[item].scale:
        raise ReviewRefused(422, "bad_verdict", f"the verdict must be one of: {', '.join(found[item].scale)}")
    if len(text) > MAX_TEXT:
        raise ReviewRefused(422, "bad_text", f"the text is longer than {MAX_TEXT:,} characters")
    character = refused_character(text, lines=True)
    if character:
        raise ReviewRefused(422, "bad_text", f"{character} is not allowed in a review's text")


def current_reads(submission: Submission) -> list[ReviewRead]:
    """The reads of the module the entry is now, oldest first."""
    if not submission.module_digest:
        return []
    return list(ReviewRead.objects.filter(submission=submission, module_digest=submission.module_digest))


def verdicts(submission_ids) -> dict[int, dict[str, str]]:
    """Each entry's latest verdict on each item read (of the module it is now), in one query."""
    found: dict[int, dict[str, str]] = {}
    for submission_id, item, verdict in (ReviewRead.objects.filter(submission_id__in=list(submission_ids),
                                                                    module_digest=F("submission__module_digest"))
                                         .order_by("recorded_at", "pk").values_list("submission_id", "item",
                                                                                     "verdict")):
        found.setdefault(submission_id, {})[item] = verdict
    return found


def read_json(read: ReviewRead, questions: dict[str, str]) -> dict:
    return {"item": read.item, "question": questions.get(read.item, ""), "verdict": read.verdict, "text": read.text,
            "reviewer": read.reviewer_name, "recorded_at": read.recorded_at}


def reads_json(submission: Submission) -> list[dict]:
    questions = {item.slug: item.question for item in review_items(submission.version)}
    return [read_json(read, questions) for read in current_reads(submission)]
