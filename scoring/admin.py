"""Staff pages for submissions: browse, filter, hide from leaderboards."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import transaction

import scoring.admin_epochs  # noqa: F401  (the epochs, their reports and the switch)
import scoring.admin_versions  # noqa: F401  (the case versions' actions: carry forward, retire)
from lib.admin import ReadOnlyInline
from lib.text import refused_character
from scoring.boards.updates import announce_versions, set_hidden, update_boards
from scoring.jobs import new_attempt
from scoring.locking import lock_entries
from scoring.management.commands.api_token import grant_submitting
from scoring.models import (
    AnnotationChange,
    ApiToken,
    Result,
    ReviewRead,
    Submission,
    SubmitterName,
    Verification,
)
from scoring.references import ReferenceRefused, clear_reference, set_reference
from scoring.reviews import ReviewRefused, check_read, record_read
from scoring.verification import request as request_verifications


class AnnotationChangeInline(ReadOnlyInline):
    """The annotation's audit trail: every change, newest first, never editable."""

    model = AnnotationChange
    verbose_name = "annotation change"
    verbose_name_plural = "annotation history"
    fields = ("changed_at", "changed_by_name", "annotation", "excluded")
    readonly_fields = fields


@admin.register(AnnotationChange)
class AnnotationChangeAdmin(admin.ModelAdmin):
    """Every annotation change, those of deleted submissions too: read-only."""

    list_display = ("changed_at", "submission_number", "changed_by_name", "excluded", "annotation")
    list_filter = ("excluded",)
    search_fields = ("annotation", "changed_by_name", "submission_number")
    readonly_fields = ("submission", "submission_number", "annotation", "excluded", "changed_by", "changed_by_name",
                       "changed_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReviewReadInline(ReadOnlyInline):
    """The entry's review reads (of every module it has been): added from "Review reads"."""

    model = ReviewRead
    fields = ("recorded_at", "reviewer_name", "item", "verdict", "text", "module_digest")
    readonly_fields = fields


class ReviewReadForm(forms.ModelForm):
    class Meta:
        model = ReviewRead
        fields = ("submission", "item", "verdict", "text")

    def clean(self):
        cleaned = super().clean()
        submission = cleaned.get("submission")
        if submission is not None and not self.errors:
            try:
                check_read(submission, cleaned.get("item", ""), cleaned.get("verdict", ""), cleaned.get("text", ""))
            except ReviewRefused as refused:
                raise forms.ValidationError(refused.message) from None
        return cleaned


@admin.register(ReviewRead)
class ReviewReadAdmin(admin.ModelAdmin):
    """Staff record a read of an entry against one of its version's review items; a read is a
    record: never changed, and deleted only with its entry."""

    form = ReviewReadForm
    list_display = ("submission", "item", "verdict", "reviewer_name", "recorded_at")
    list_filter = ("item", "verdict")
    search_fields = ("submission__name", "item", "reviewer_name")
    raw_id_fields = ("submission",)

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        found = record_read(obj.submission, obj.item, obj.verdict, obj.text, request.user)
        obj.pk, obj.recorded_at, obj.module_digest = found.pk, found.recorded_at, found.module_digest


class ResultInline(admin.TabularInline):
    model = Result
    fields = ("position", "kind", "input_path", "status", "fuel", "fuel_limit", "ceiling", "overshoot", "wall_ms",
              "message", "detail")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class SubmissionForm(forms.ModelForm):
    """A staff annotation is public text: the rule every operator-given text follows (lib.text)."""

    class Meta:
        model = Submission
        fields = ("hidden", "annotation", "excluded")

    def clean_annotation(self) -> str:
        annotation = self.cleaned_data["annotation"].strip()
        refused = refused_character(annotation, lines=True)
        if refused:
            raise forms.ValidationError(f"{refused} is not allowed in an annotation (controls, bidirectional and "
                                        "zero-width characters, noncharacters)")
        return annotation


class ReMeasuredFilter(admin.SimpleListFilter):
    """The latest re-measurement (a named choice for "never": the admin's own filter leaves the
    empty value a link with no text)."""

    title = "re-measured"
    parameter_name = "remeasured"
    CHOICES = (("never", "never"), ("identical", "identically"), ("different", "not reproduced"),
               ("failed", "could not be measured again"))

    def lookups(self, request, model_admin):
        return self.CHOICES

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(verification="" if value == "never" else value)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    form = SubmissionForm
    list_display = ("id", "name", "version", "variant", "model", "status", "job_state", "passed", "total_fuel",
                    "hidden", "excluded", "verification", "submitted_at")
    list_filter = ("status", "passed", "hidden", "excluded", "is_reference", ReMeasuredFilter, "version__case",
                   "wasmtime_version")
    search_fields = ("name", "version__case__slug", "module_digest", "model", "annotation")
    list_select_related = ("version__case", "variant")
    inlines = [AnnotationChangeInline, ReviewReadInline, ResultInline]
    actions = ["hide_from_leaderboards", "show_on_leaderboards", "rescore", "remeasure", "make_reference",
               "clear_reference"]
    fields = (
        "hidden", "annotation", "excluded", "name", "model", "harness", "run", "version", "variant", "status",
        "message", "detail", "passed", "total_fuel", "overshoot", "verification", "verified_at", "verification_message",
        "passed_count", "input_count", "source_kind", "source_label", "source_size", "source_digest",
        "module_digest", "module_size", "wasmtime_version", "engine_digest", "submitted_at", "scored_at", "attempt",
        "job_id", "heartbeat_at", "build_log",
    )
    readonly_fields = tuple(field for field in fields if field not in ("hidden", "annotation", "excluded"))

    def get_queryset(self, request):
        return super().get_queryset(request).defer("source")

    def delete_queryset(self, request, queryset):
        """Every board of the entries first, then the entries, all before the delete takes any
        (deleted one by one, each would take its board after the entries before it)."""
        with transaction.atomic():
            lock_entries(queryset.values_list("pk", flat=True))
            super().delete_queryset(request, queryset)

    def has_add_permission(self, request) -> bool:
        return False  # submissions come from `manage.py score`

    def save_model(self, request, obj, form, change):
        """Hidden, annotation and excluded apply to the entry's carried copies too (each real
        change kept in the copy's own audit trail); every board showing one of them follows.

        Only those three columns are written: the form read the rest (status, attempt, job…) before
        the entry's lock was taken, and a worker may have moved it on since; writing back what it
        read would undo that (an entry left pending with a finished job, say)."""
        decided = {"hidden": obj.hidden, "annotation": obj.annotation, "excluded": obj.excluded}
        with transaction.atomic():
            # Every board the entry and its copies are on, then the entries (lib/locking.py).
            lock_entries(Submission.objects.filter(pk=obj.pk).with_carried_copies().values_list("pk", flat=True))
            obj.save(update_fields=list(decided))
            if {"annotation", "excluded"} & set(form.changed_data):  # a real change only
                record_annotation(obj, request.user)
            copies = Submission.objects.filter(pk=obj.pk).with_carried_copies().exclude(pk=obj.pk)
            for copy in copies.only("pk", "version", "hidden", "annotation", "excluded"):
                if (copy.annotation, copy.excluded) != (obj.annotation, obj.excluded):
                    copy.annotation, copy.excluded = obj.annotation, obj.excluded
                    record_annotation(copy, request.user)
            copies.update(**decided)
            update_boards([obj.pk, *copies.values_list("pk", flat=True)])

    @admin.action(description="Hide from leaderboards")
    def hide_from_leaderboards(self, request, queryset):
        count = set_hidden(queryset, True)
        self.message_user(request, f"{count} submission(s) hidden from leaderboards.", messages.SUCCESS)

    @admin.action(description="Show on leaderboards again")
    def show_on_leaderboards(self, request, queryset):
        count = set_hidden(queryset, False)
        self.message_user(request, f"{count} submission(s) shown on leaderboards.", messages.SUCCESS)

    @admin.action(description="Score again (queue a new scoring job)")
    def rescore(self, request, queryset):
        count = frozen = 0
        for submission in queryset.defer("source"):
            if new_attempt(submission, message="queued again by staff") is None:
                frozen += 1  # of a retired version: its board is frozen
            else:
                count += 1
        self.message_user(request, f"{count} submission(s) queued for scoring." + (
            f" {frozen} of a retired version left as they are." if frozen else ""), messages.SUCCESS)


    @admin.action(description="Measure again (queue a re-measurement; results stay as they are)")
    def remeasure(self, request, queryset):

        made = request_verifications(list(queryset.values_list("pk", flat=True)), enqueue=True)
        self.message_user(request, f"{len(made)} re-measurement(s) queued: see Verifications.", messages.SUCCESS)


    @admin.action(description="Make it its version's reference (speedups divide its fuel)")
    def make_reference(self, request, queryset):
        chosen = list(queryset.defer("source")[:2])
        if len(chosen) != 1:
            self.message_user(request, "Choose one entry: a version has one reference.", messages.ERROR)
            return
        try:
            before = set_reference(chosen[0])
        except ReferenceRefused as refused:
            self.message_user(request, refused.message, messages.ERROR)
            return
        replaced = f", in place of #{before.pk} {before.name}" if before else ""
        self.message_user(request,
                          f"#{chosen[0].pk} {chosen[0].name} is the reference of {chosen[0].version}{replaced}.",
                          messages.SUCCESS)

    @admin.action(description="Stop being its version's reference")
    def clear_reference(self, request, queryset):
        cleared = sum(clear_reference(submission) for submission in queryset.filter(is_reference=True).defer("source"))
        self.message_user(request, f"{cleared} reference(s) cleared.", messages.SUCCESS)


@admin.register(Verification)
class VerificationAdmin(admin.ModelAdmin):
    """Every re-measurement, newest first; "different" and "failed" ones are entries not
    reproduced, which staff look into (they are not excluded by themselves)."""

    list_display = ("id", "submission", "outcome", "message", "module_identical", "host", "wasmtime_version",
                    "finished_at")
    list_filter = ("outcome", "module_identical", "wasmtime_version")
    search_fields = ("submission__name", "submission__model", "host")
    list_select_related = ("submission__version__case",)
    fields = ("submission", "outcome", "message", "detail", "requested_at", "finished_at", "host", "wasmtime_version",
              "engine_digest", "module_digest", "module_identical", "inputs", "status_differs", "fuel_differs",
              "answer_differs", "answers_unrecorded", "job_id")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False  # re-measurements come from `manage.py verify` or the submissions' action

    def has_change_permission(self, request, obj=None) -> bool:
        return False


def record_annotation(submission: Submission, user) -> None:
    """Keep the annotation as it now stands in the audit trail, and let every page showing the
    entry know (the annotation's text is on its leaderboards even when its place is unchanged)."""

    AnnotationChange.objects.create(submission=submission, submission_number=submission.pk,
                                    annotation=submission.annotation,
                                    excluded=submission.excluded, changed_by=user if user.pk else None,
                                    changed_by_name=user.get_username())
    announce_versions({submission.version_id})





@admin.register(SubmitterName)
class SubmitterNameAdmin(admin.ModelAdmin):
    """Who owns a submitter name: staff give a name used before operators (or a disputed one)
    to an operator; no token can take a name that has no owner."""

    list_display = ("name", "owner", "claimed_at")
    search_fields = ("name", "owner__username")
    fields = ("name", "owner")
    readonly_fields = ("name",)
    autocomplete_fields = ()

    def has_add_permission(self, request) -> bool:
        return False  # names come with their first submission


class ApiTokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ("user", "label")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Operators' API tokens: made here (shown once), revoked here; only a digest is kept."""

    form = ApiTokenForm
    list_display = ("key_id", "user", "label", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("key_id", "user__username", "label")
    actions = ["revoke"]

    def get_readonly_fields(self, request, obj=None):
        return ("user", "key_id", "created_at", "last_used_at", "revoked_at") if obj else ()

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return

        token, secret = ApiToken.issue(obj.user, obj.label)
        obj.pk = token.pk
        grant_submitting(obj.user)
        self.message_user(request, f"Token {token.key_id} for {obj.user.get_username()}: {secret} — it is shown "
                                   "this once and cannot be read again.", messages.WARNING)

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        for token in queryset:
            token.revoke()
        self.message_user(request, f"{queryset.count()} token(s) revoked.", messages.SUCCESS)
