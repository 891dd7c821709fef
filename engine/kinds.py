"""The two kinds of held-out input (the manifest's `kind`): smoke inputs gate the stress inputs."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """A held-out input's kind: smoke inputs gate the stress inputs, which are ranked."""

    SMOKE = "smoke"
    STRESS = "stress"

    @classmethod
    def choices(cls) -> list[tuple[str, str]]:
        """For a model field: value and label."""
        return [(kind.value, kind.name.title()) for kind in cls]
