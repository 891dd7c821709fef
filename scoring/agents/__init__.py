"""The agents matrix (`/agents/`): agents (a model and its harness) × the latest published version
of every case, with every scored entry a trial. `computing` recomputes it into AgentCell and
AgentLine rows (a background job); `reading` serves a filter of them a slice at a time."""

from scoring.agents.computing import SORTS, refresh, request_refresh, snapshot, trials
from scoring.agents.reading import Matrix, observed

__all__ = ["SORTS", "Matrix", "observed", "refresh", "request_refresh", "snapshot", "trials"]
