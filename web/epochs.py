"""A board read as an earlier epoch counted it, and the site's changes (epoch switches, retired
versions) as a page and an Atom feed (scoring/epochs/, docs/epochs.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from catalog.models import CaseVersion
from scoring.boards.places import GROUP_NAMES
from scoring.epochs import counted_by as board_counted_by
from scoring.models import Epoch

CHANGES_SHOWN = 100
STANDINGS = {"ranked": "ranked", "over_limit": "over the fuel limit", "unranked": "not passed",
             "excluded": "excluded from ranking"}
STATUSES = {"build_failed": "the build failed", "invalid_module": "the module was refused"}


def counted_by(request: HttpRequest, slug: str, version: str, epoch: int) -> HttpResponse:
    """A version's board (over every variant) with each entry's figures as `epoch` measured them."""
    found = get_object_or_404(CaseVersion.objects.public().select_related("case"), case__slug=slug, version=version)
    # A past epoch only: the leaderboard is the board as the current one counts it.
    chosen = get_object_or_404(Epoch.objects.filter(state=Epoch.State.PAST), pk=epoch)
    rows = [row for row in board_counted_by(chosen, found) if not row["submission"].hidden]
    if not rows:
        raise Http404("That epoch measured no entry of this version")
    ranked, before = 0, None
    for row in rows:
        row["group_name"] = GROUP_NAMES[row["group"]]
        row["standing"] = STATUSES.get(row["status"], STANDINGS[row["group_name"]])
        row["rank"] = row["shared_rank"] = None
        if row["group_name"] == "ranked":  # equal fuel shares a place, as on the leaderboard
            ranked += 1
            row["rank"] = ranked
            row["shared_rank"] = (before["shared_rank"] if before and before["total_fuel"] == row["total_fuel"]
                                  else ranked)
            before = row
    places = Counter(row["shared_rank"] for row in rows if row["rank"] is not None)
    for row in rows:
        row["tied"] = row["rank"] is not None and places[row["shared_rank"]] > 1
    current = Epoch.objects.filter(state=Epoch.State.CURRENT).first()
    return render(request, "scoring/counted_by.html", {"version": found, "case": found.case, "epoch": chosen,
                                                       "current": current, "rows": rows})


@dataclass
class Change:
    when: datetime
    title: str
    text: str
    path: str
    key: str


def changes_list() -> list[Change]:
    """The newest changes first: each epoch the site moved to, each version retired."""
    found = []
    for epoch in Epoch.objects.filter(switched_at__isnull=False, state__in=[Epoch.State.CURRENT, Epoch.State.PAST]
                                      ).order_by("-switched_at")[:CHANGES_SHOWN]:
        found.append(Change(epoch.switched_at, f"Fuel is counted by wasmtime {epoch.wasmtime_version}",
                            f"The site moved to wasmtime {epoch.wasmtime_version} (engine configuration "
                            f"{epoch.engine_digest})" + (f": {epoch.summary}." if epoch.summary else
                                                         ": the engine the site first counted with."),
                            reverse("changes") + f"#epoch-{epoch.pk}", f"epoch-{epoch.pk}"))
    for version in CaseVersion.objects.public().filter(retired_at__isnull=False).select_related("case").order_by(
            "-retired_at")[:CHANGES_SHOWN]:
        found.append(Change(version.retired_at, f"{version.name} {version.version} retired",
                            "Its board is frozen; its held-out inputs and answers, and its entries' modules, are "
                            "published so anyone can measure any entry again.",
                            reverse("case-version", args=[version.case.slug, version.version]),
                            f"retired-{version.pk}"))
    return sorted(found, key=lambda change: change.when, reverse=True)[:CHANGES_SHOWN]


def changes(request: HttpRequest) -> HttpResponse:
    return render(request, "scoring/changes.html", {"changes": changes_list()})
