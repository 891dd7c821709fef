"""`manage.py retire SLUG VERSION [VERSION…] [--with SLUG/VERSION]… [--json]`: freeze versions'
boards and publish what they held out (scoring/retiring.py, docs/retiring.md)."""

from __future__ import annotations

import argparse
import json

from django.core.management.base import CommandError
from django.urls import reverse

from lib.commands import SiteCommand
from lib.siteurl import site_url
from scoring.retiring import RetireRefused, retire


def other_version(value: str) -> tuple[str, str]:
    slug, _, version = value.partition("/")
    if not slug or not version:
        raise argparse.ArgumentTypeError(f"{value!r} is not SLUG/VERSION")
    return slug, version


class Command(SiteCommand):
    help = ("Retire case versions, together: their boards are frozen (no entry is taken or scored again) and "
            "their held-out inputs and expected answers, and the modules their entries ran, are published, so "
            "that anyone can measure any of their entries again. Refused while an entry of one is still to be "
            "scored, or while a version left current holds out one of the same files; a version retired before "
            "is left as it is.")

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the case")
        parser.add_argument("versions", nargs="+", metavar="version", help="the version(s) of it to retire")
        parser.add_argument("--with", dest="others", action="append", default=[], type=other_version,
                            metavar="SLUG/VERSION", help="a version of another case to retire with them (repeatable)")
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args, **options):
        targets = [(options["slug"], version) for version in options["versions"]] + options["others"]
        try:
            done = retire(targets)
        except RetireRefused as refused:
            raise CommandError(refused.message) from None
        rows = [{"case": item.version.case.slug, "version": item.version.version,
                 "retired_at": item.retired_at.isoformat(), "already": item.already, "entries": item.entries,
                 "modules": item.modules,
                 "held_out_url": site_url(reverse("held-out", args=[item.version.case.slug, item.version.version]))}
                for item in done]
        if options["json"]:
            self.stdout.write(json.dumps({"versions": rows}))
            return
        for item, row in zip(done, rows):
            label, when = f"{row['case']} {row['version']}", item.retired_at.strftime("%Y-%m-%d %H:%M UTC")
            self.stdout.write(f"{label} was retired on {when} already: nothing changed" if item.already else
                              f"retired {label} on {when}: its board is frozen")
            self.stdout.write(f"  held-out inputs and answers: {row['held_out_url']}")
            self.stdout.write(f"  modules published: {item.modules} of {item.entries} entr"
                              f"{'y' if item.entries == 1 else 'ies'}")
