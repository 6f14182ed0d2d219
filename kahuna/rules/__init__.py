"""The rules of Kahuna: board, actions and notation, the referee, events, views and records.

This package does no I/O. Typical use::

    import random
    from kahuna.rules import GameState, view_of

    state = GameState.new(random.Random(7))
    while not state.is_over:
        action = state.legal_actions()[0]
        events = state.apply(action)
    print(state.outcome)
"""

from kahuna.rules.actions import ALL_ACTIONS, NUM_ACTIONS, Action, Kind, action_at, parse
from kahuna.rules.errors import IllegalActionError, KahunaError, NotationError, RecordError
from kahuna.rules.events import Event
from kahuna.rules.reasons import Reason
from kahuna.rules.record import GameRecord, ReplayError
from kahuna.rules.state import NOBODY, GameState, Outcome, Phase, Termination, Variant
from kahuna.rules.views import (
    PlayerView,
    determinize,
    legal_actions_of,
    public_json,
    shown_history,
    shown_token,
    view_json,
    view_of,
)

__all__ = [
    "ALL_ACTIONS",
    "NOBODY",
    "NUM_ACTIONS",
    "Action",
    "Event",
    "GameRecord",
    "GameState",
    "IllegalActionError",
    "KahunaError",
    "Kind",
    "NotationError",
    "Outcome",
    "Phase",
    "PlayerView",
    "Reason",
    "RecordError",
    "ReplayError",
    "Termination",
    "Variant",
    "action_at",
    "determinize",
    "legal_actions_of",
    "parse",
    "public_json",
    "shown_history",
    "shown_token",
    "view_json",
    "view_of",
]
