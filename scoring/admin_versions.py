"""The admin's actions on case versions: carrying the best entries of the previous version
forward, and retiring a version (scoring/retiring.py). Case versions are the catalog's; these
actions are scoring's, so they are added from here and the catalog's admin imports nothing of
scoring."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse

from catalog.admin import CaseVersionAdmin
from scoring.carry import CarryRefused, carry_forward, describe, score_carried
from scoring.retiring import RetireRefused, retire


@admin.action(description="Carry the previous version's best entries forward to this version",
              permissions=["carry"])
def carry_forward_to(modeladmin, request, queryset):
    """The admin's twin of `manage.py carry_forward SLUG --to VERSION`: queued as scoring jobs."""
    for version in queryset.select_related("case"):
        try:
            carried = carry_forward(version)
        except CarryRefused as refused:
            modeladmin.message_user(request, f"{version}: {refused.message}", messages.ERROR)
            continue
        fresh = [item for item in carried if not item.skipped]
        score_carried(fresh, inline=False)
        summary = (f"{version}: {len(fresh)} entr{'y' if len(fresh) == 1 else 'ies'} carried forward and queued, "
                   f"{len(carried) - len(fresh)} already there")
        if not carried:
            summary = f"{version}: nothing to carry forward (no earlier version, or no correct entry on it)"
        modeladmin.message_user(request, summary, messages.SUCCESS)
        for item in fresh:
            modeladmin.message_user(request, f"{version}: {item.source.name}: {describe(item.submission)}",
                                    messages.INFO)


@admin.action(description="Retire: freeze the board and publish the held-out data and the modules",
              permissions=["retire"])
def retire_versions(modeladmin, request, queryset):
    """The admin's twin of `manage.py retire`: the chosen versions, together. Publishing held-out
    data cannot be undone, so it asks first (as deleting does) and retires only on the confirming
    POST; each retirement is in the admin's log."""
    chosen = list(queryset.select_related("case").order_by("case__slug", "ordinal"))
    if request.POST.get("confirmed") != "yes":
        return TemplateResponse(request, "admin/catalog/caseversion/retire_confirmation.html", {
            **modeladmin.admin_site.each_context(request), "title": "Retire these versions?", "versions": chosen,
            "opts": modeladmin.model._meta, "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME})
    try:  # together: versions that hold out the same files can only be retired at once
        retired = retire([(version.case.slug, version.version) for version in chosen])
    except RetireRefused as refused:
        modeladmin.message_user(request, f"Nothing was retired: {refused.message}", messages.ERROR)
        return None
    for done in retired:
        if not done.already:
            modeladmin.log_change(request, done.version, "Retired: its board frozen, its held-out data published")
        modeladmin.message_user(request, f"{done.version}: retired before, nothing changed" if done.already else
                                f"{done.version}: retired; its held-out data and {done.modules} of {done.entries} "
                                "entries' modules are published", messages.SUCCESS)
    return None


def _has_carry_permission(self, request) -> bool:
    return request.user.has_perm("scoring.change_submission")


def _has_retire_permission(self, request) -> bool:
    return request.user.has_perm("catalog.retire_caseversion")


CaseVersionAdmin.has_carry_permission = _has_carry_permission
CaseVersionAdmin.has_retire_permission = _has_retire_permission
CaseVersionAdmin.actions = [*(CaseVersionAdmin.actions or []), carry_forward_to, retire_versions]
