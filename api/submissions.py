"""Entries over HTTP: an operator's token submits (`POST /api/v1/submissions/`), polls its
entries and reads their staff detail. The rules are scoring/intake.py's; this is the edge."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import File, Form, Query, Router, UploadedFile
from ninja.security import HttpBearer

from api.schemas import OperatorSubmissions, ReviewDocument, ReviewRequest, SubmissionDetail, SubmissionDocument
from catalog.runrecords import MAX_RECORD_BYTES
from lib.api import PAGE_MAX, PAGE_SIZE, PAGE_SIZE_MAX, Problem, document, page_links
from scoring import intake
from scoring.documents import submission_detail_document, submission_document
from scoring.jobs import enqueue_scoring
from scoring.models import ApiToken, Submission
from scoring.reviews import ReviewRefused, read_json, record_read, review_items

router = Router(tags=["submissions"])


class OperatorToken(HttpBearer):
    """`Authorization: Bearer <token>`: a live API token (`manage.py api_token create`). Never a
    session: a browser's cookies give no right to write here."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = ApiToken.objects.authenticate(token)
        if found is not None:
            found.used()
        return found


def operator_of(request: HttpRequest):
    """The account behind the token; refused (403) without the right to submit, or when it is
    staff (a token stands for an operator: one leaked must not carry staff's rights)."""
    user = request.auth.user
    if user.is_staff or user.is_superuser:
        raise intake.IntakeRefused(403, "staff_account", "this token's account is staff: tokens are for operators")
    if not user.has_perm("scoring.submit_entry"):
        raise intake.IntakeRefused(403, "no_permission", "this token's account may not submit entries")
    return user


REFUSALS = {status: Problem for status in (400, 401, 403, 404, 409, 413, 415, 422, 429)}


def _spooled(upload: UploadedFile | None) -> tuple[Path | None, str, tempfile.TemporaryDirectory | None]:
    """An uploaded archive as a file on disk (the archive reader reads a path)."""
    if upload is None:
        return None, "", None
    folder = tempfile.TemporaryDirectory(prefix="upload-")
    path = Path(folder.name) / "source"
    with open(path, "wb") as stream:
        shutil.copyfileobj(upload, stream, 1 << 20)
    return path, upload.name or "", folder


@router.post("/submissions/", auth=OperatorToken(), url_name="submit", response={200: SubmissionDocument,
             202: SubmissionDocument, **REFUSALS})
def submit(request: HttpRequest,
           case: str | None = Form(None, max_length=100, description="the case's slug (required unless a run "
                                                                      "record names it)"),
           name: str = Form(..., min_length=1, max_length=100,
                            description="the submitter name the entry goes under (it becomes yours if no one has "
                                        "used it)"),
           version: str | None = Form(None, max_length=100, description="a version (default: the latest shown)"),
           variant: str | None = Form(None, max_length=100, description="a variant (default: the version's first)"),
           meta: str | None = Form(None, max_length=intake.MAX_META_BYTES,
                                   description="run fields, as a JSON object (as `score --meta`)"),
           source: UploadedFile = File(None, description="a .tar.gz or .zip of the submission folder"),
           wasm: UploadedFile = File(None, description="a WebAssembly module, instead of a source"),
           record: UploadedFile = File(None, description="the run record `seed_run --record` wrote")):
    """Submit an entry: a source archive (`.tar.gz` or `.zip` of the submission folder) or a
    module, with an optional run record and run fields (`meta`, a JSON object), to be built and
    scored on the site. 202 with `Location` when accepted; 200 with the entry when the same
    version, variant, name and source were submitted before (nothing is stored; the same with
    other run fields is a 409 `run_differs`). An `Idempotency-Key` header makes a retried request
    get the first answer. The body is a form (multipart/form-data): another is a 415."""
    operator = operator_of(request)
    wait = request.auth.spend_request(settings.API_REQUESTS_PER_HOUR)
    if wait is not None:
        raise intake.IntakeRefused(429, "too_many_requests", f"at most {settings.API_REQUESTS_PER_HOUR} submission "
                                   "requests an hour with one token", retry_after=wait)
    intake.within_quotas(operator)  # before the upload is unpacked: a refused request costs little
    path, source_name, folder = _spooled(source)
    try:
        checked = intake.check(intake.Request(
            case=case or None, name=name, version=version, variant=variant, source=path, source_name=source_name,
            wasm=wasm.read(settings.SCORING_MAX_MODULE_BYTES + 1) if wasm is not None else None,
            record=record.read(MAX_RECORD_BYTES + 1) if record is not None else None, meta=meta,
            idempotency_key=request.headers.get("Idempotency-Key")))
    finally:
        if folder is not None:
            folder.cleanup()
    submission, status, to_score = intake.take(checked, operator, request.headers.get("Idempotency-Key"))
    if to_score:
        enqueue_scoring(submission)  # with the immediate backend, scored before the answer
        submission.refresh_from_db()
    submission = Submission.objects.shown().get(pk=submission.pk)
    response = document(SubmissionDocument, submission_document(submission))
    response.status_code = status
    response["Location"] = reverse("api-v1:submission", args=[submission.pk])
    return response


def _own(request: HttpRequest, pk: int) -> Submission:
    user = operator_of(request)
    found = get_object_or_404(Submission.objects.shown(), pk=pk)
    if found.operator_id != user.pk:
        raise intake.IntakeRefused(403, "not_yours", "only the operator who submitted an entry reads its detail")
    return found


@router.get("/submissions/{pk}/detail", auth=OperatorToken(), url_name="submission-detail",
            response={200: SubmissionDetail, **REFUSALS})
def submission_detail(request: HttpRequest, pk: int):
    """One of the token holder's own entries with what only its operator and staff see: the build
    log's tail and the detail of each failure (in the submission's own words)."""
    return document(SubmissionDetail, submission_detail_document(_own(request, pk)))


@router.get("/operator/submissions/", auth=OperatorToken(), url_name="operator-submissions",
            response={200: OperatorSubmissions, **REFUSALS})
def operator_submissions(request: HttpRequest,
                         page: int = Query(1, ge=1, le=PAGE_MAX),
                         page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX)):
    """The token holder's own entries, newest first."""
    user = operator_of(request)
    mine = Submission.objects.shown().filter(operator=user).order_by("-submitted_at", "-pk")
    shown, links = page_links(request, mine, page=page, page_size=page_size, query={})
    return document(OperatorSubmissions, {**links, "results": [submission_document(entry) for entry in shown]})


@router.post("/submissions/{pk}/reviews/", auth=OperatorToken(), url_name="submission-reviews",
             response={201: ReviewDocument, **REFUSALS})
def review(request: HttpRequest, pk: int, body: ReviewRequest):
    """Record a read of the entry against one of the review items its version declares: a verdict
    from the item's scale (default pass, fail, not applicable) and a note. The token's account
    needs the review permission (`manage.py api_token create USERNAME --review`). 201 with the read;
    it shows on the entry's page and in its document while the entry is that module."""
    user = request.auth.user
    if user.is_staff or user.is_superuser:
        raise intake.IntakeRefused(403, "staff_account", "this token's account is staff: tokens are for operators")
    if not user.has_perm("scoring.review_entry"):
        raise intake.IntakeRefused(403, "no_permission", "this token's account may not record review reads")
    wait = request.auth.spend_request(settings.API_REQUESTS_PER_HOUR)
    if wait is not None:
        raise intake.IntakeRefused(429, "too_many_requests", f"at most {settings.API_REQUESTS_PER_HOUR} requests an "
                                   "hour with one token", retry_after=wait)
    submission = get_object_or_404(Submission.objects.shown().select_related("version"), pk=pk)
    try:
        read = record_read(submission, body.item, body.verdict, body.text, user)
    except ReviewRefused as refused:
        raise intake.IntakeRefused(refused.status, refused.code, refused.message) from None
    questions = {item.slug: item.question for item in review_items(submission.version)}
    response = document(ReviewDocument, read_json(read, questions))
    response.status_code = 201
    return response
