"""What the lobby starts games from: an offer as the API received it, the two parties of a game,
and the game started, with how it counts (a rated offer between two people who have played their
rated games of the day against each other starts casual: ``games/rated_pairs.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from kahuna.server.community.seeks import Seek
from kahuna.server.games import rated_pairs
from kahuna.server.games.factory import Player
from kahuna.server.games.live import HUMAN


@dataclass(frozen=True)
class Offer:
    """A request for a game, as the API received it (already validated by pydantic)."""

    kind: str
    clock: dict[str, int] | None
    variant: tuple[str, ...]
    rated: bool
    name: str


@dataclass(frozen=True)
class Started:
    """A game the lobby started: its id, the seats of the two parties, and how it counts."""

    game_id: str
    seats: tuple[int, int]
    rated: bool
    casual_reason: str | None
    """Why a game asked for as rated was started casual (``pair_limit``: ``games/rated_pairs.py``)."""

    def counts(self) -> dict[str, Any]:
        """What both parties are told with their seats: whether the game is rated, and if not, why."""
        return {"rated": self.rated, "casual_reason": self.casual_reason}


@dataclass(frozen=True)
class Party:
    """One side of a game the lobby starts: who sits there and what it claims."""

    name: str
    account: int | None
    token: str | None
    """The digest of its seat token (``None`` for an AI seat)."""
    seek_id: str | None = None
    """The offer it made, claimed when the game starts (``None``: the acceptor of someone's offer)."""
    kind: str = HUMAN

    @property
    def player(self) -> Player:
        return Player(self.name, self.kind, self.token, self.account)


def casual_reason(conn: Connection, offer: Seek, opponent: int | None) -> str | None:
    """Why a rated offer to ``opponent`` would start casual (``pair_limit``), told before it starts;
    the game factory decides again when it does (``games/rated_pairs.py``)."""
    if not offer.rated or offer.owner_account is None or opponent is None:
        return None
    if rated_pairs.limit_reached(conn, offer.owner_account, opponent, lock=False):
        return rated_pairs.PAIR_LIMIT
    return None
