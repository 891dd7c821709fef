"""The catalog-wide standings (`/standings/`): per submitter name, over the latest published
version of every case. `computing` recomputes them into StandingsRow snapshots (a background
job); `reading` serves a filter of them a slice at a time."""

from scoring.standings.computing import compute, refresh, request_refresh, scope_name, snapshot
from scoring.standings.reading import BadFilter, Standings, standings_generations

__all__ = ["BadFilter", "Standings", "compute", "refresh", "request_refresh", "scope_name", "snapshot",
           "standings_generations"]
