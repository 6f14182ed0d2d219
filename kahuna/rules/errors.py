"""Errors of the rules package. All subclass ``ValueError`` so callers can catch bad input in one go."""

from __future__ import annotations

from kahuna.rules.reasons import Reason


class KahunaError(ValueError):
    """Base class of every error the rules raise about their input."""


class NotationError(KahunaError):
    """A token, card or line that is not written as NOTATION.md says."""


class IllegalActionError(KahunaError):
    """A well-formed action that the rules do not allow in this position.

    ``reason`` says why in a form clients can translate (``code`` and ``params``); the message is
    its English sentence.
    """

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.message)
        self.reason = reason

    @property
    def code(self) -> str:
        return self.reason.code

    @property
    def params(self) -> dict[str, str | int]:
        return dict(self.reason.params)


class RecordError(KahunaError):
    """A game record (or state document) that is malformed: bad JSON shape, deal or reshuffle."""
