"""What inspect finds by the package's entry point (`inspect eval fuelboard_inspect/fuelboard`)."""

from fuelboard_inspect.tasks import fuelboard

__all__ = ["fuelboard"]
