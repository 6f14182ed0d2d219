"""Errors of the rules package. All subclass ``ValueError`` so callers can catch bad input in one go."""

from __future__ import annotations


class KahunaError(ValueError):
    """Base class of every error the rules raise about their input."""


class NotationError(KahunaError):
    """A token, card or line that is not written as NOTATION.md says."""


class IllegalActionError(KahunaError):
    """A well-formed action that the rules do not allow in this position; the message says why."""


class RecordError(KahunaError):
    """A game record (or state document) that is malformed: bad JSON shape, deal or reshuffle."""
