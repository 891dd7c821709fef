"""The results app's models: submissions (`submissions`), what the boards keep (`board_rows`) and the
operators who submit over the API (`operators`)."""

from scoring.models.board_rows import BoardSummary, RecordStep, Standing, StandingQuerySet, StandingsRow, StandingsSnapshot
from scoring.models.operators import ApiToken, IdempotentRequest, SubmitterName
from scoring.models.submissions import AnnotationChange, Result, Submission, SubmissionQuerySet

__all__ = ["AnnotationChange", "ApiToken", "BoardSummary", "IdempotentRequest", "SubmitterName", "RecordStep", "Result", "Standing", "StandingQuerySet", "StandingsRow",
           "StandingsSnapshot", "Submission", "SubmissionQuerySet"]
