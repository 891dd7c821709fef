"""A Fuelboard site's catalog as inspect-ai tasks (docs/inspect.md)."""

from fuelboard_inspect.scorer import fuel_scorer
from fuelboard_inspect.site import Kit, Site, SiteError
from fuelboard_inspect.tasks import catalog_kits, fuelboard, sample_of

__all__ = ["Kit", "Site", "SiteError", "catalog_kits", "fuel_scorer", "fuelboard", "sample_of"]
