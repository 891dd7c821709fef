"""Shared pieces of management commands."""

from __future__ import annotations

from django.core.management.base import BaseCommand

# The one system check a command that builds entries asks for (scoring/checks.py registers it).
BUILD_CHECKS = ["builds"]


class SiteCommand(BaseCommand):
    """A command of the site's own. Django's system checks run in `manage.py check` and in
    `migrate` (which the stack runs at every start), not before each of these: run there, they
    import every view and admin page, about half a second of a processor — most of what a quick
    `api_token` costs, and of a worker host's `requeue_stale_jobs` every minute. A command that
    builds entries asks for the check that concerns it (`BUILD_CHECKS`)."""

    requires_system_checks: list[str] = []


class CaseVersionCommand(SiteCommand):
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
