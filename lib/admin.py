"""Admin pieces shared by the apps."""

from __future__ import annotations

from django.contrib import admin


class ReadOnlyInline(admin.TabularInline):
    """Rows shown beside their parent, never added, changed or deleted there."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
