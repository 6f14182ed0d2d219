"""The games the HTTP API creates (``POST /api/games``): against the AI, against a friend by invite,
hot-seat on one screen, and the tutorial, each started by the factory like any other game.

A signed-in creator's seat is its account's (``account``): the seat bears the account's name and
the game is paired (casual, a ``game_accounts`` row naming the creator's seat), so that it is on the
creator's profile, games list, statistics and export as a lobby game is; at one screen (hot-seat,
the tutorial) only the creator's seat is the account's. A guest's game has no account.

A game against the AI or a friend is listed among the games being played (``GET /api/games/live``,
the Watch page) unless its creator chose ``unlisted``; a game at one screen never is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kahuna.clock import ClockError, TimeControl
from kahuna.rules import KahunaError, Variant
from kahuna.server.common.draws import first_seat
from kahuna.server.common.errors import Rejected
from kahuna.server.common.tokens import digest, new_secret
from kahuna.server.games import ai_pool
from kahuna.server.games.factory import GameFactory, Player, Terms
from kahuna.server.games.live import AI_PREFIX, HUMAN
from kahuna.server.games.seats import seat_links
from kahuna.server.games.tutorial import TUTOR_NAME, TUTORIAL_DEAL


@dataclass(frozen=True)
class NewGame:
    opponent: str
    level: str
    variant: tuple[str, ...]
    seat: str
    name: str
    clock: dict[str, Any] | None = None
    """The time control as sent (``kahuna.clock.TimeControl.from_json``); ``None``: untimed."""
    unlisted: bool = False
    """Keep the game off the live list and the Watch page (hot-seat and tutorial games always are)."""


async def create(
    factory: GameFactory, spec: NewGame, owner: str, clock_min_seconds: int, account: int | None = None
) -> dict[str, Any]:
    """Start the game ``spec`` asks for; the creator's seat links (and the invite, or both tokens).
    ``account``: the signed-in creator's (``spec.name`` is then its username)."""
    try:
        variant = Variant.from_names(spec.variant)
    except KahunaError as exc:
        raise Rejected("invalid", str(exc), 422) from None
    if spec.opponent == "ai" and not ai_pool.available(spec.level):
        raise Rejected("invalid", f"AI level {spec.level!r} is not available on this server", 422)
    try:
        control = TimeControl.from_json(spec.clock, clock_min_seconds)
    except ClockError as exc:
        raise Rejected("invalid", f"clock: {exc}", 422) from None
    tutorial = spec.opponent == "tutorial"  # hot-seat on the tutorial's deal; the player is Black
    both_here = spec.opponent == "hotseat" or tutorial
    seat = 0 if tutorial else {"first": 0, "second": 1}.get(spec.seat, first_seat())
    tokens: list[str | None] = [None, None]
    tokens[seat] = new_secret()
    invite = None
    if spec.opponent == "ai":
        other = Player(f"Kahuna AI ({spec.level})", AI_PREFIX + spec.level)
    elif both_here:
        tokens[1 - seat] = second = new_secret()
        # The panels already say Black/White; a second name that differs from the first reads best.
        name = TUTOR_NAME if tutorial else "Player 2" if spec.name != "Player 2" else "Player 1"
        other = Player(name, HUMAN, digest(second))
    else:
        invite = new_secret()
        other = Player(None)
    token = tokens[seat]
    assert token is not None
    me = Player(spec.name, HUMAN, digest(token), account)
    players = (me, other) if seat == 0 else (other, me)
    terms = Terms(
        players,
        variant,
        control,
        invite=None if invite is None else digest(invite),
        deal=TUTORIAL_DEAL if tutorial else None,
        owner=owner,
        together=both_here,
        unlisted=spec.unlisted,
        paired=account is not None,
    )
    game = await factory.start(terms)
    assert game is not None  # nothing to claim: it cannot be refused
    out = seat_links(game.game_id, seat, token)
    out["invite_url"] = None if invite is None else f"/join/{invite}"
    out["tokens"] = tokens if both_here else None
    return out
