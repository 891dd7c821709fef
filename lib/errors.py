"""Domain errors: a workflow that cannot go on raises one with a code tests and callers check."""

from __future__ import annotations


class DomainError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
