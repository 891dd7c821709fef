from __future__ import annotations

from lib.commands import SiteCommand
from scoring.standings import refresh, snapshot


class Command(SiteCommand):
    help = ("Recompute the catalog-wide standings (/standings/) now. Pages ask for this themselves once "
            "scores arrive (at most every STANDINGS_REFRESH_SECONDS); run it after bulk changes, or from cron.")

    def handle(self, *args, **options):
        seconds = refresh()
        scopes = snapshot().scopes
        overall = scopes.get("", {"cases": 0, "rows": 0})
        self.stdout.write(f"standings: {overall['rows']} submitter(s) over {overall['cases']} case(s), "
                          f"{len(scopes)} scope(s), in {seconds:.2f} s")
