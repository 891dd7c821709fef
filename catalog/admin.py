"""Staff pages: the imported catalog (read-only), archive import, and catalog re-scan."""

from __future__ import annotations

import tempfile
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from catalog.archives import describe, import_archive
from catalog.importer import REFUSED, import_catalog
from catalog.models import Case, CaseVersion, Variant
from lib.admin import ReadOnlyInline
from lib.unpack import ArchiveLimits

IMPORT_PERMISSION = "catalog.import_caseversion"


class ReadOnlyAdmin(admin.ModelAdmin):
    """Imported case data never changes (published versions are immutable)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class VariantInline(ReadOnlyInline):
    model = Variant
    fields = ("position", "slug", "name", "file", "specs")
    readonly_fields = fields


@admin.register(Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = ("slug", "folder", "created_at")
    search_fields = ("slug", "folder")


class ArchiveForm(forms.Form):
    archive = forms.FileField(help_text="A .zip or .tar.gz of one version folder, or of a catalog tree.")
    version = forms.CharField(
        required=False, max_length=100,
        help_text="Only when the archive holds a version folder's files at its top level.",
    )

    def clean_archive(self):
        upload = self.cleaned_data["archive"]
        if upload.size > settings.CATALOG_MAX_UPLOAD_BYTES:
            raise forms.ValidationError(f"The archive is larger than {settings.CATALOG_MAX_UPLOAD_BYTES:,} bytes.")
        return upload


@admin.register(CaseVersion)
class CaseVersionAdmin(ReadOnlyAdmin):
    change_list_template = "admin/catalog/caseversion/change_list.html"
    list_display = ("case", "version", "name", "difficulty", "experimental", "smoke_count", "stress_count",
                    "imported_at")
    list_filter = ("difficulty", "experimental", "type")
    search_fields = ("case__slug", "name", "version")
    list_select_related = ("case",)
    inlines = [VariantInline]
    exclude = ("tags",)
    readonly_fields = (
        "case", "version", "ordinal", "digest", "imported_at", "name", "type", "difficulty", "experimental",
        "tag_names", "summary", "description_path", "changelog_path", "prompt_path", "max_runtime_hours",
        "workspace", "init", "build_install", "build_command", "build_module", "contract_entry",
        "contract_input", "contract_output", "fuel_limit", "max_memory_bytes", "specs", "domains",
        "review_items", "smoke_count", "stress_count", "template_warnings", "description", "changelog", "manifest_text",
    )

    def get_urls(self):
        extra = [
            path("import/", self.admin_site.admin_view(self.import_view), name="catalog_caseversion_import"),
            path("rescan/", self.admin_site.admin_view(require_POST(self.rescan_view)),
                 name="catalog_caseversion_rescan"),
        ]
        return extra + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "can_import": request.user.has_perm(IMPORT_PERMISSION)}
        return super().changelist_view(request, extra_context)

    def _require_import_permission(self, request: HttpRequest) -> None:
        if not request.user.has_perm(IMPORT_PERMISSION):
            raise PermissionDenied

    def import_view(self, request: HttpRequest) -> HttpResponse:
        self._require_import_permission(request)
        errors: list[str] = []
        form = ArchiveForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            with tempfile.NamedTemporaryFile(suffix="-" + Path(form.cleaned_data["archive"].name).name) as stored:
                for chunk in form.cleaned_data["archive"].chunks():
                    stored.write(chunk)
                stored.flush()
                limits = ArchiveLimits(
                    max_entries=settings.CATALOG_MAX_ARCHIVE_ENTRIES,
                    max_total_bytes=settings.CATALOG_MAX_UNPACKED_BYTES,
                    max_file_bytes=settings.CATALOG_MAX_UNPACKED_BYTES,
                )
                after: list[str] = []
                outcome = import_archive(Path(stored.name), version=form.cleaned_data["version"] or None, limits=limits,
                                         report=after.append)
            if outcome.ok:
                self.message_user(request, describe(outcome.results), messages.SUCCESS)
                self._warn(request, outcome.results)
                self._report(request, after)
                return HttpResponseRedirect(reverse("admin:catalog_caseversion_changelist"))
            errors = outcome.errors
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import case version",
            "form": form,
            "import_errors": errors,
        }
        return render(request, "admin/catalog/import.html", context, status=400 if errors else 200)

    def _warn(self, request: HttpRequest, results) -> None:
        """What an imported version's validation warned of: it imported, but its author may want to know."""
        for result in results:
            for warning in result.warnings:
                self.message_user(request, f"Warning for {result.label}: {warning}", messages.WARNING)

    def _report(self, request: HttpRequest, lines: list[str]) -> None:
        """What ran after an import (carrying entries forward to a new version), one message."""
        if lines:
            self.message_user(request, "; ".join(line.strip() for line in lines), messages.INFO)

    def rescan_view(self, request: HttpRequest) -> HttpResponse:
        self._require_import_permission(request)
        after: list[str] = []
        outcome = import_catalog(Path(settings.CATALOG_DIR), report=after.append)
        summary = (f"Re-scanned {settings.CATALOG_DIR}: {outcome.count('imported')} imported, "
                   f"{outcome.count('unchanged')} unchanged, {outcome.count(REFUSED)} refused.")
        self.message_user(request, summary, messages.SUCCESS if outcome.ok else messages.WARNING)
        for result in outcome.results:
            if result.action == REFUSED:
                self.message_user(request, f"Refused {result.label}: " + " ".join(result.reasons), messages.ERROR)
        self._warn(request, [result for result in outcome.results if result.action != REFUSED])
        for error in outcome.other_errors:
            self.message_user(request, str(error), messages.ERROR)
        self._report(request, after)
        return HttpResponseRedirect(reverse("admin:catalog_caseversion_changelist"))
