"""The results app's models: submissions (`submissions`), what the boards keep (`board_rows`), the
operators who submit over the API (`operators`), re-measurements (`verifications`) and the agents
matrix (`agents`), the modules entries ran (`modules`) and the engines fuel was counted by (`epochs`)."""

from scoring.models.agents import Agent, AgentCell, AgentLine
from scoring.models.board_rows import (
                                       BoardSummary,
                                       RecordStep,
                                       Standing,
                                       StandingQuerySet,
                                       StandingsRow,
                                       StandingsSnapshot,
)
from scoring.models.epochs import Epoch, EpochMeasurement
from scoring.models.modules import StoredModule
from scoring.models.operators import ApiToken, IdempotentRequest, NameSkeleton, SubmitterName
from scoring.models.reviews import ReviewRead
from scoring.models.submissions import AnnotationChange, Result, Submission, SubmissionQuerySet
from scoring.models.verifications import Verification

__all__ = ["Agent", "AgentCell", "AgentLine", "AnnotationChange", "ApiToken", "BoardSummary", "Epoch",
           "EpochMeasurement", "IdempotentRequest",
           "NameSkeleton", "SubmitterName", "RecordStep", "Result", "ReviewRead", "Standing", "StandingQuerySet",
           "StandingsRow", "StandingsSnapshot", "StoredModule", "Submission", "SubmissionQuerySet", "Verification"]
