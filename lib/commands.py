"""Shared pieces of management commands."""

from __future__ import annotations

from django.core.management.base import BaseCommand


class CaseVersionCommand(BaseCommand):
    """A command whose `--version` names a case version, as docs/commands.md specifies.

    Django gives every command a `--version` that prints Django's own version; these commands
    give the option its catalog meaning instead (stored as `case_version`).
    """

    def add_base_argument(self, parser, *args, **kwargs):
        if "--version" in args:
            return
        super().add_base_argument(parser, *args, **kwargs)

    def add_version_arguments(self, parser, *, variant: bool = True) -> None:
        parser.add_argument("--version", dest="case_version", help="case version (default: the latest)")
        if variant:
            parser.add_argument("--variant", help="variant slug (default: the case's default variant)")
