"""What the catalog announces to the rest of the site, so the catalog imports nothing above it."""

from django.dispatch import Signal

# Sent once the versions an import wrote have committed: `versions` (CaseVersion objects) and
# `report` (a callable taking one line of text for the operator, or None). Scoring carries the
# previous version's best entries forward to a new latest version (scoring/carry.py).
versions_published = Signal()
