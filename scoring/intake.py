"""Entries that arrive over HTTP from where the runs happen (`POST /api/v1/submissions/`).

Only the transport is new: an operator's token stands for a shell on the server, and everything
`score` checks and refuses is checked and refused the same way (the name, the target, the run
record and run fields, the source's limits), through the same code. A client sends a source
(an archive of the submission folder, unpacked with the admin import's rules and packed as
`score --submission` packs a folder, so the digests agree) or a module, never a result.

Every refusal is an `IntakeRefused` with a stable code and the HTTP status it answers with, and
stores nothing. A request is taken in three steps: `check()` (everything about the request
itself), `take()` (the name's owner, the quotas, the entry taken in once), then the caller
queues the scoring job when the transaction commits.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from catalog.models import CaseVersion, UnknownTarget, Variant
from catalog.reading import shown_board
from catalog.runrecords import (
    RunRecordError,
    check_target,
    merged_run,
    parse_record,
    read_record_bytes,
    refuse_disagreement,
    typed_value,
)
from engine.builds import SourceTooLarge, pack_folder
from lib.errors import DomainError
from lib.strictjson import DocumentTooLarge, JSONDocumentError, loads_capped
from lib.text import name_key
from lib.unpack import ArchiveError, ArchiveLimits, extract_archive
from scoring.entries import EXHAUSTED, STANDING, Claim, claim_entry
from scoring.locking import lock_operator
from scoring.models import IdempotentRequest, NameSkeleton, Submission, SubmitterName
from scoring.models.operators import IDEMPOTENCY_KEEP
from scoring.recording import ScoringError, check_name, source_digest

WASM_MAGIC = b"\0asm\x01\x00\x00\x00"
MAX_META_BYTES = 16 * 1024
MAX_IDEMPOTENCY_KEY = 200


class IntakeRefused(DomainError):
    """A submission request that is not taken; nothing was stored. `status` is its HTTP status."""

    def __init__(self, status: int, code: str, message: str, *, retry_after: int | None = None):
        super().__init__(code, message)
        self.status = status
        self.retry_after = retry_after


@dataclass
class Request:
    """What a client sent: the form's fields, and its files as (file name, bytes or a path)."""

    case: str | None
    name: str
    version: str | None = None
    variant: str | None = None
    source: Path | None = None  # an uploaded archive, on disk
    source_name: str = ""
    wasm: bytes | None = None
    record: bytes | None = None
    meta: str | None = None
    idempotency_key: str | None = None


@dataclass
class Checked:
    version: CaseVersion
    variant: Variant
    name: str
    run: dict
    source: tuple[str, str, bytes]  # (kind, label, bytes), as recording.read_source gives
    digest: str = field(init=False)

    def __post_init__(self):
        self.digest = source_digest(self.source[2])

    def fingerprint(self) -> str:
        """What the request asks, in one digest: a retry with the same Idempotency-Key must ask
        the same."""
        asked = [self.version.pk, self.variant.pk, self.name, self.digest, json.dumps(self.run, sort_keys=True)]
        return hashlib.sha256(json.dumps(asked).encode()).hexdigest()


def _refused_record(refused: RunRecordError) -> IntakeRefused:
    return IntakeRefused(413 if refused.code == "too_large" else 422, f"record_{refused.code}", refused.message)


def _record(request: Request):
    """The run record sent, parsed and checked against the published schema (None if none)."""
    if request.record is None:
        return None
    try:
        return parse_record(read_record_bytes(request.record, "the run record"), "the run record")
    except RunRecordError as refused:
        raise _refused_record(refused) from None


def _target(request: Request, record) -> tuple[CaseVersion, Variant]:
    """The version and variant: as named (default: the latest shown, its default variant), or as
    the run record names them, which must then agree with what the request names (as `score
    --run-record` refuses a SLUG, --version or --variant against its record)."""
    case, version, variant = request.case or None, request.version or None, request.variant or None
    if record is not None:
        try:
            refuse_disagreement(record, case=case, version=version, variant=variant)
        except RunRecordError as refused:
            raise _refused_record(refused) from None
        case, version, variant = record.case, record.version, record.variant
    if case is None:
        raise IntakeRefused(422, "no_case", "name the case (the `case` field), or send a run record that names it")
    try:
        found, chosen = shown_board(case, version, variant)
    except UnknownTarget as unknown:
        where = f"version {version} of the case {case}" if version else f"the case {case}"
        if unknown.code == "unknown_variant":
            raise IntakeRefused(404, unknown.code, f"{where} has no variant {variant}") from None
        raise IntakeRefused(404, unknown.code, f"{where} is not open to entries: no such case or version is "
                                               "published here") from None
    chosen = chosen or found.default_variant()
    if record is not None:
        try:
            check_target(record, found, chosen)
        except RunRecordError as refused:
            raise _refused_record(refused) from None
    return found, chosen


def _run_fields(request: Request, record) -> dict:
    """The record's run fields with `meta` (a JSON object of run fields) on top, validated together."""
    meta = {}
    try:
        if request.meta:
            try:
                meta = loads_capped(request.meta.encode(), MAX_META_BYTES)
            except DocumentTooLarge:
                raise IntakeRefused(413, "meta_too_large", f"meta is larger than {MAX_META_BYTES:,} bytes") from None
            except JSONDocumentError as error:
                raise RunRecordError("invalid", f"meta is not strict JSON: {error}") from None
            if not isinstance(meta, dict):
                raise RunRecordError("invalid", "meta must be a JSON object of run fields")
            meta = {key: typed_value(key, value, "meta") for key, value in meta.items()}
        return merged_run(record, meta)
    except RunRecordError as refused:
        raise _refused_record(refused) from None


def _folder_of(unpacked: Path) -> Path:
    """The submission folder in an unpacked archive: its one top folder, or its top."""
    entries = [entry for entry in unpacked.iterdir()]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return unpacked


def _source(request: Request) -> tuple[str, str, bytes]:
    if (request.source is None) == (request.wasm is None):
        # A rule the schema says in words: a schema that requires one of two fields (oneOf,
        # anyOf, not) gives some generated clients an untyped body, and some checkers no data.
        raise IntakeRefused(422, "one_source",
                            "send exactly one of the files `source` (an archive) or `wasm` (a module)")
    if request.wasm is not None:
        if len(request.wasm) > settings.SCORING_MAX_MODULE_BYTES:
            raise IntakeRefused(413, "module_too_large",
                                f"the module is larger than the {settings.SCORING_MAX_MODULE_BYTES:,}-byte limit")
        if not request.wasm.startswith(WASM_MAGIC):
            raise IntakeRefused(422, "bad_module", "`wasm` is not a WebAssembly module (binary format, version 1)")
        return Submission.SourceKind.WASM, "upload.wasm", request.wasm
    limits = ArchiveLimits(max_entries=settings.SCORING_MAX_SOURCE_ENTRIES,
                           max_total_bytes=settings.SCORING_MAX_UNPACKED_BYTES,
                           max_file_bytes=settings.SCORING_MAX_UNPACKED_BYTES)
    with tempfile.TemporaryDirectory(prefix="upload-") as temp:
        try:
            extract_archive(request.source, Path(temp), limits)  # no links, no paths out, within caps
        except ArchiveError as refused:
            status = 413 if refused.code in ("too_large", "too_many_entries") else 422
            raise IntakeRefused(status, f"archive_{refused.code}", refused.message) from None
        try:
            packed = pack_folder(_folder_of(Path(temp)), max_bytes=settings.SCORING_MAX_SOURCE_BYTES,
                                 max_unpacked_bytes=settings.SCORING_MAX_UNPACKED_BYTES)
        except SourceTooLarge as refused:
            raise IntakeRefused(413, "source_too_large", str(refused)) from None
    return Submission.SourceKind.SUBMISSION, request.source_name[:200] or "upload", packed


def check(request: Request) -> Checked:
    """Everything about the request itself, as `score` checks it. Raises IntakeRefused."""
    if request.idempotency_key is not None and not 1 <= len(request.idempotency_key) <= MAX_IDEMPOTENCY_KEY:
        raise IntakeRefused(400, "bad_idempotency_key",
                            f"an Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} characters")
    try:
        name = check_name(request.name)
    except ScoringError as refused:
        raise IntakeRefused(422, refused.code, refused.message.replace("--name", "name")) from None
    record = _record(request)
    version, variant = _target(request, record)
    return Checked(version, variant, name, _run_fields(request, record), _source(request))


def _refusal(found: SubmitterName | None, name: str, user) -> IntakeRefused | None:
    """Why `user` may not submit under `name`, whose row (by its key) is `found`; None if they may."""
    if found is None or found.owner_id == user.pk:
        return None
    if found.owner_id is None:
        return IntakeRefused(403, "name_unassigned", f"the name {name!r} was used before operators could own names "
                                                     "(or from the shell): staff may give it to you")
    return IntakeRefused(403, "name_taken", f"the name {name!r} belongs to another operator (names that differ only "
                                            "in case, spacing or letter forms are one name)")


def _look_alike_refusal(name: str, user) -> IntakeRefused | None:
    """Why `user` may not take the new name `name` because it can be taken for a name already here
    (lib.text.name_skeletons); None if it cannot."""
    found = NameSkeleton.look_alikes(name).first()
    if found is None:
        return None
    if found.name.owner_id == user.pk:
        return IntakeRefused(422, "bad_name", f"the name {name!r} looks like your name {found.name.name!r}: "
                                              "submit under that one")
    if found.name.owner_id is None:
        return IntakeRefused(403, "name_unassigned", f"the name {name!r} looks like a name used before operators "
                                                     "could own names (or from the shell): staff may give it to you")
    return IntakeRefused(403, "name_taken", f"the name {name!r} looks like a name that belongs to another operator "
                                            "(names that can be taken for each other have one owner)")


def name_refusal(name: str, user) -> IntakeRefused | None:
    """The owner check, read-only (a request refused for its name stores nothing)."""
    found = SubmitterName.objects.filter(key=name_key(name)).first()
    if found is not None:
        return _refusal(found, name, user)
    return _look_alike_refusal(name, user)


def _take_name(name: str, user) -> None:
    """The name is `user`'s: theirs already, or new and theirs from now on, with its skeletons (called
    in the claim's transaction, after the quotas: a refused request takes no name). Raises IntakeRefused."""
    key = name_key(name)
    found = SubmitterName.objects.filter(key=key).first()
    if found is None:
        try:
            with transaction.atomic():
                NameSkeleton.hold(SubmitterName.objects.create(name=name, owner=user))
            return
        except IntegrityError:  # another operator took it, or a look-alike of it, a moment ago
            found = SubmitterName.objects.filter(key=key).first()
            if found is None:
                raise _look_alike_refusal(name, user) or IntakeRefused(
                    409, "name_taken", f"the name {name!r} was taken a moment ago: send the request again") from None
    refused = _refusal(found, name, user)
    if refused is not None:
        raise refused


def _lock_operator(user) -> None:
    """Hold the operator's row until the claim commits: their quotas count entries on every
    board, and each board has its own lock, so two of their requests on two boards would
    otherwise both pass the count (locks are taken board first, then operator: one order)."""
    lock_operator(user.pk)


def within_quotas(user) -> None:
    """At most API_SUBMISSIONS_IN_FLIGHT unfinished entries, and API_SUBMISSIONS_PER_HOUR an hour.
    Checked before a request's upload is unpacked (cheap, unlocked) and again under the lock."""
    mine = Submission.objects.filter(operator=user)
    in_flight = mine.filter(status__in=(Submission.State.PENDING, Submission.State.RUNNING)).count()
    if in_flight >= settings.API_SUBMISSIONS_IN_FLIGHT:
        raise IntakeRefused(429, "too_many_in_flight", f"{in_flight} of your entries are still being scored "
                            f"(at most {settings.API_SUBMISSIONS_IN_FLIGHT})", retry_after=30)
    hour_ago = timezone.now() - timedelta(hours=1)
    recent = list(mine.filter(submitted_at__gte=hour_ago).order_by("submitted_at").values_list("submitted_at",
                                                                                               flat=True)
                  [:settings.API_SUBMISSIONS_PER_HOUR])
    if len(recent) >= settings.API_SUBMISSIONS_PER_HOUR:
        wait = int((recent[0] + timedelta(hours=1) - timezone.now()).total_seconds()) + 1
        raise IntakeRefused(429, "too_many_per_hour", f"at most {settings.API_SUBMISSIONS_PER_HOUR} entries an hour",
                            retry_after=max(wait, 1))


def _answered(user, idempotency_key: str, fingerprint: str) -> tuple[Submission, int, bool] | None:
    """The first answer to this key, if it was answered (422 if it was sent with another request)."""
    earlier = IdempotentRequest.objects.filter(user=user, key=idempotency_key,
                                               created_at__gte=timezone.now() - IDEMPOTENCY_KEEP
                                               ).select_related("submission").first()
    if earlier is None:
        return None
    if earlier.request_digest != fingerprint:
        raise IntakeRefused(422, "idempotency_key_reused", "this Idempotency-Key was sent with another request")
    return earlier.submission, earlier.status, False


def refuse_other_run(standing: Submission, run: dict) -> None:
    """An entry that stands already is answered as it is only when the request asks for it as it
    is: sent again with other run fields, nothing of them would be stored, so it is refused (409)
    naming them, rather than answered as if they had been."""
    stored = standing.run or {}
    differing = sorted(key for key in stored.keys() | run.keys() if stored.get(key) != run.get(key))
    if differing:
        raise IntakeRefused(409, "run_differs", f"#{standing.pk} is this entry already (the same version, variant, "
                            f"name and source), stored with other run fields ({', '.join(differing)}): nothing was "
                            "stored. Send this run under another name to record it, or with the run fields it has")


def take(checked: Checked, user, idempotency_key: str | None = None) -> tuple[Submission, int, bool]:
    """(the entry's submission, 202 or 200, whether to queue it): a new entry (202), the entry
    that stands already (200, nothing stored), or the first answer to this Idempotency-Key.
    Raises IntakeRefused.

    The quotas, the name and the key are taken in the claim's transaction, so a refusal stores
    none of them, and two requests with one key at the same moment store one answer (the other
    is rolled back whole and answered as a retry, or refused if it asked something else)."""
    fingerprint = checked.fingerprint()
    if idempotency_key is not None:
        answered = _answered(user, idempotency_key, fingerprint)
        if answered is not None:
            return answered
    refused = name_refusal(checked.name, user)
    if refused is not None:
        raise refused

    def before_recording(version) -> None:
        _lock_operator(user)
        within_quotas(user)
        _take_name(checked.name, user)

    def after_claim(claim: Claim) -> None:
        if claim.outcome == STANDING:
            refuse_other_run(claim.submission, checked.run)
        if idempotency_key is None or claim.outcome == EXHAUSTED:
            return
        # Keys are remembered IDEMPOTENCY_KEEP (this one too, if it was sent that long ago).
        IdempotentRequest.objects.filter(user=user, created_at__lt=timezone.now() - IDEMPOTENCY_KEEP).delete()
        IdempotentRequest.objects.create(user=user, key=idempotency_key, request_digest=fingerprint,
                                         submission=claim.submission, status=202 if claim.to_score else 200)

    try:
        claimed: Claim = claim_entry(checked.version, checked.variant, checked.name, checked.source, run=checked.run,
                                     operator=user, retried_by="the submissions API",
                                     before_recording=before_recording, after_claim=after_claim)
    except ScoringError as refused:  # a retired version (checked under its board's lock): nothing was stored
        raise IntakeRefused(409, refused.code, refused.message) from None
    except IntegrityError:
        if idempotency_key is None:
            raise
        answered = _answered(user, idempotency_key, fingerprint)  # the same key at the same moment
        if answered is None:
            raise
        return answered
    if claimed.outcome == EXHAUSTED:
        raise IntakeRefused(409, "attempts_exhausted", f"#{claimed.submission.pk} was tried "
                            f"{claimed.submission.attempts_used} times and failed each time (SCORING_MAX_ATTEMPTS)")
    return claimed.submission, 202 if claimed.to_score else 200, claimed.to_score
