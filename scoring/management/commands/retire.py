"""`manage.py retire SLUG VERSION [--json]`: freeze a version's board and publish what it held out
(scoring/retiring.py, docs/retiring.md)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from lib.siteurl import site_url
from scoring.retiring import RetireRefused, retire


class Command(BaseCommand):
    help = ("Retire a case version: its board is frozen (no entry is taken for it any more) and its held-out "
            "inputs and expected answers, and the modules its entries ran, are published, so that anyone can "
            "measure any of its entries again. Refused while an entry of it is still to be scored; a version "
            "retired before is left as it is.")

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the case")
        parser.add_argument("version", help="the version to retire")
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args, **options):
        try:
            done = retire(options["slug"], options["version"])
        except RetireRefused as refused:
            raise CommandError(refused.message) from None
        slug, version = done.version.case.slug, done.version.version
        data_url = site_url(reverse("held-out", args=[slug, version]))
        if options["json"]:
            self.stdout.write(json.dumps({"case": slug, "version": version, "retired_at": done.retired_at.isoformat(),
                                          "already": done.already, "entries": done.entries,
                                          "modules": done.modules, "held_out_url": data_url}))
            return
        when = done.retired_at.strftime("%Y-%m-%d %H:%M UTC")
        self.stdout.write(f"{slug} {version} was retired on {when} already: nothing changed" if done.already else
                          f"retired {slug} {version} on {when}: its board is frozen")
        self.stdout.write(f"held-out inputs and answers: {data_url}")
        self.stdout.write(f"modules published: {done.modules} of {done.entries} entr"
                          f"{'y' if done.entries == 1 else 'ies'} (an entry scored before modules were kept has "
                          "none)" if done.modules < done.entries else
                          f"modules published: every entry's ({done.entries})")
