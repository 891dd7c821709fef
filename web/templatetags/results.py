"""Results shown on pages the scoring app does not own: the case page's leaderboard preview."""

from django import template

from scoring.models import Submission

register = template.Library()

LEADERBOARD_PREVIEW = 10


@register.inclusion_tag("scoring/_leaderboard_preview.html")
def leaderboard_preview(version, rows: int = LEADERBOARD_PREVIEW):
    """The top `rows` entries of `version`'s leaderboard (all variants), as the leaderboard ranks them."""
    return {"version": version, "entries": list(Submission.objects.leaderboard(version)[:rows])}
