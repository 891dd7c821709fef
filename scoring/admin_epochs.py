"""The admin's epochs (scoring/epochs/): each with its report, as a page and as JSON, and the
switch to a candidate — the staff's twin of `manage.py epoch report` and `manage.py epoch switch`."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from scoring import epochs
from scoring.models import Epoch


@admin.action(description="Drop the selected candidate (its measurements go with it)", permissions=["switch"])
def drop_candidate(modeladmin, request, queryset):
    """The admin's twin of `manage.py epoch drop`."""
    if not queryset.filter(state=Epoch.State.CANDIDATE).exists():
        modeladmin.message_user(request, "Nothing dropped: only a candidate epoch can be dropped.", messages.ERROR)
        return
    try:
        dropped = epochs.drop()
    except epochs.EpochError as refused:
        modeladmin.message_user(request, f"Nothing dropped: {refused}", messages.ERROR)
        return
    modeladmin.log_change(request, dropped, "Dropped this candidate epoch")
    modeladmin.message_user(request, f"Dropped the candidate {dropped}.", messages.SUCCESS)


@admin.register(Epoch)
class EpochAdmin(admin.ModelAdmin):
    list_display = ("__str__", "state", "prepared_at", "switched_at", "ended_at", "report_link")
    list_filter = ("state",)
    actions = [drop_candidate]

    def has_switch_permission(self, request) -> bool:
        return request.user.has_perm("scoring.switch_epoch")
    fields = ("wasmtime_version", "engine_digest", "state", "prepared_at", "switched_at", "ended_at", "summary")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False  # a candidate is recorded by a host that runs it (`manage.py epoch prepare`)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # what an epoch measured stays: boards are read as it counted them

    @admin.display(description="report")
    def report_link(self, epoch: Epoch) -> str:
        if epoch.state != Epoch.State.CANDIDATE:
            return ""
        return format_html('<a href="{}">report</a> · <a href="{}">JSON</a>',
                           reverse("admin:scoring_epoch_report", args=[epoch.pk]),
                           reverse("admin:scoring_epoch_report_json", args=[epoch.pk]))

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/report/", view(self.report_view), name="scoring_epoch_report"),
            path("<int:pk>/report.json", view(self.report_json), name="scoring_epoch_report_json"),
            path("<int:pk>/switch/", view(self.switch_view), name="scoring_epoch_switch"),
            *super().get_urls(),
        ]

    def _candidate(self, request, pk: int) -> Epoch:
        if not self.has_view_permission(request):
            raise PermissionDenied
        return get_object_or_404(Epoch, pk=pk, state=Epoch.State.CANDIDATE)

    def report_view(self, request, pk: int):
        candidate = self._candidate(request, pk)
        document = epochs.report(candidate)
        return TemplateResponse(request, "admin/scoring/epoch/report.html", {
            **self.admin_site.each_context(request), "title": f"Candidate {candidate}: report", "epoch": candidate,
            "report": document, "flagged": [entry for entry in document["entries"] if entry["flags"]],
            "reordered": [board for board in document["boards"] if board["changed"]],
            "can_switch": request.user.has_perm("scoring.switch_epoch"),
            "this_engine": epochs.label(epochs.THIS_ENGINE),
            "runs_candidate": candidate.engine == epochs.THIS_ENGINE, "opts": Epoch._meta})

    def report_json(self, request, pk: int):
        return JsonResponse(epochs.report(self._candidate(request, pk)))

    def switch_view(self, request, pk: int):
        candidate = self._candidate(request, pk)
        back = reverse("admin:scoring_epoch_report", args=[pk])
        if request.method != "POST" or not request.user.has_perm("scoring.switch_epoch"):
            self.message_user(request, "Switching takes a POST from the report, by staff allowed to switch epochs.",
                              messages.ERROR)
            return HttpResponseRedirect(back)
        try:
            switched = epochs.switch(candidate)
        except epochs.EpochError as refused:
            self.message_user(request, f"Not switched: {refused}", messages.ERROR)
            return HttpResponseRedirect(back)
        self.log_change(request, switched, f"Switched the site to this epoch: {switched.summary}")
        self.message_user(request, f"The site now counts fuel with {switched}: {switched.summary}", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:scoring_epoch_changelist"))
