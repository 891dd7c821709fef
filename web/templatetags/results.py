"""Results on pages: the case page's leaderboard preview, and a per-input status's meaning."""

from django import template

from engine.sandbox import Status
from scoring.boards.reading import Leaderboard

register = template.Library()

LEADERBOARD_PREVIEW = 10


@register.inclusion_tag("scoring/_leaderboard_preview.html")
def leaderboard_preview(version, rows: int = LEADERBOARD_PREVIEW):
    """The top `rows` entries of `version`'s leaderboard (all variants), as the leaderboard ranks them."""
    return {"version": version, "entries": list(Leaderboard(version)[:rows])}


@register.filter
def answered_correctly(status: str) -> bool:
    """Whether a per-input status is a correct answer, passed or over the pass line (the
    engine's rule, `Status.answered_correctly`)."""
    return bool(status) and Status(status).answered_correctly
