"""The one way a game starts: from its terms, every row written in one transaction.

Whoever starts a game (the HTTP API, the lobby's accepted seeks and quick pairings, challenges, a
rematch, a tournament's pairing) describes it as :class:`Terms` (the players of the two seats,
variant, clock, whether it is rated) and :meth:`GameFactory.start` writes the game, its seats, its
clock, the seats' accounts and, for a paired game, the row that profiles and ratings read, in one
transaction together with the caller's own rows (``claim``: the lobby marks its offers accepted
there, and gives up if one was taken meanwhile), then holds the game in memory and starts its
clock and its AI turn.

The factory is also where the rule on rated games between the same two people is applied
(``rated_pairs.py``): every path that starts a rated game passes here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlalchemy import Connection

from kahuna.clock import Clock, TimeControl
from kahuna.rules import GameState, Variant
from kahuna.server.accounts import store as accounts
from kahuna.server.common import logs
from kahuna.server.common.config import Limits
from kahuna.server.common.draws import random_seed
from kahuna.server.common.tokens import new_game_id
from kahuna.server.db import paired as paired_rows
from kahuna.server.db import store
from kahuna.server.db.store import StoredGame
from kahuna.server.db.writer import Writer
from kahuna.server.games import messages, rated_pairs
from kahuna.server.games.live import HUMAN, LiveGame
from kahuna.server.games.registry import GameRegistry

DealProvider = Callable[[], str]
"""Tests only: deals for new games (24 letters), so that two games can differ only in hidden cards."""
Claim = Callable[[Connection, str], bool]
"""More rows of the new game's transaction, given its id; ``False``: start nothing (all rolled back)."""

POOLS = ("realtime", "correspondence")
"""The rating pools: a game counts in the pool of its clock."""


def pool_of(control: TimeControl | None) -> str | None:
    """The pool a time control plays in (``None`` for an untimed game, which cannot be rated)."""
    if control is None:
        return None
    return "correspondence" if control.correspondence else "realtime"


@dataclass(frozen=True)
class Player:
    """Who sits at one seat of a new game."""

    name: str | None
    """``None``: the seat waits for an invited player (``joining.py``)."""
    kind: str = HUMAN
    """``human``, or ``ai:<level>`` for a seat the server's AI plays."""
    token: str | None = None
    """The digest of the seat token (``None`` for an AI seat, or a seat still waiting)."""
    account: int | None = None
    """The account the seat belongs to (a bot account for an AI level's seat)."""


@dataclass(frozen=True)
class Terms:
    """What a new game is: its players, variant and clock, and how it counts."""

    players: tuple[Player, Player]
    variant: Variant = field(default_factory=Variant)
    clock: TimeControl | None = None
    rated: bool = False
    paired: bool = False
    """A game the community paired (a seek, quick pairing, a challenge, a tournament): the accounts
    of its seats are recorded (``game_accounts``) for profiles and ratings."""
    invite: str | None = None
    """The digest of the invite code that gives away the seat waiting for its player."""
    deal: str | None = None
    """A fixed deal (the tutorial's); ``None``: a fresh random one."""
    game_id: str | None = None
    """A fixed id (a rematch's, agreed before it starts); ``None``: a new one."""
    rematch_of: str | None = None
    """The finished game this one is the rematch of: the accounts of its seats carry over, swapped,
    and a paired game's rematch is paired too, rated if the old one was asked for as rated (within
    the pair limit, decided again: ``rated_pairs.py``)."""
    owner: str = ""
    """Whose turn its AI moves take in the AI pool (the digest of the creating address, a
    tournament's creator), stored with the game; ``""``: the game itself."""
    tournament: str | None = None
    """The tournament whose board this game is (``None``: none). Its games are not taken back, and
    a rematch is no part of the event: rooms that offer those ask here or in ``tournament_games``."""
    berserk: tuple[bool, bool] = (False, False)
    """Seats whose player berserked (an Arena's choice): their clock starts with half its time."""
    together: bool = False
    """Both seats are played at one screen (hot-seat, the tutorial): a real-time clock starts at
    once rather than waiting for the players (:data:`FIRST_MOVE_GRACE`). Such a game is unlisted."""
    unlisted: bool = False
    """Kept off the live list and the Watch page (``community/live_games.py``): the creator's
    choice for a game by invite link or against the AI; a game at one screen always is, and so is
    the rematch of an unlisted game."""


FIRST_MOVE_GRACE = Limits.first_move_grace
"""Seconds a new real-time game's clock waits for its players at most (``Limits.first_move_grace``)."""


def start_clock(clock: Clock, now: float, grace: float, together: bool = False) -> None:
    """Both seats are taken: a real-time clock waits for the players (``grace`` seconds at most)
    unless they are at one screen; seat 0's correspondence clock starts now."""
    if clock.control.correspondence or together:
        clock.start(0, now)
    else:
        clock.wait_for_players(now, grace)


class GameFactory:
    def __init__(
        self,
        writer: Writer,
        registry: GameRegistry,
        deal_provider: DealProvider | None = None,
        first_move_grace: float = FIRST_MOVE_GRACE,
    ) -> None:
        self.writer = writer
        self.registry = registry
        self.deal_provider = deal_provider
        self.first_move_grace = first_move_grace

    def deal(self) -> str:
        """A new game's deal (24 letters): random, or the test's choice."""
        if self.deal_provider is not None:
            return self.deal_provider()
        deal = GameState.new(random.Random(random_seed())).deal
        assert deal is not None
        return deal

    async def start(self, terms: Terms, claim: Claim | None = None) -> LiveGame | None:
        """Store and hold the game of ``terms``; ``None`` if ``claim`` refused. Raises the writer's
        ``Conflict`` if the game's fixed id is taken (a rematch agreed on another instance)."""
        game_id = terms.game_id or new_game_id()
        when = store.now()
        players = terms.players
        seated = all(player.name is not None for player in players)
        clock = None if terms.clock is None else Clock.new(terms.clock)
        if clock is not None and not clock.control.correspondence:
            for seat, halved in enumerate(terms.berserk):
                if halved:
                    clock.remaining[seat] /= 2
        if clock is not None and seated:
            start_clock(clock, time.time(), self.first_move_grace, terms.together)
        stored = StoredGame(
            game_id=game_id,
            created=when,
            updated=when,
            variant=terms.variant.to_json(),
            deal=terms.deal or self.deal(),
            kinds=[player.kind for player in players],
            names=[player.name for player in players],
            invite=terms.invite,
            seat_tokens=[player.token for player in players],
            status=messages.PLAYING if seated else messages.WAITING,
            reshuffles=[],
            actions=[],
            clock=None if clock is None else clock.to_store(),
            rematch_of=terms.rematch_of,
            rated=terms.rated,
            tournament=terms.tournament is not None,
            unlisted=terms.unlisted or terms.together,
            owner=terms.owner or None,
        )
        seat_accounts = [player.account if player.token is not None else None for player in players]
        counted: list[tuple[bool, str | None]] = []
        """How the game counts, as decided in its transaction (the last run's)."""
        unlisted: list[bool] = []
        """Whether it is unlisted, as written in its transaction (the last run's)."""

        def write(conn: Connection) -> bool:
            if claim is not None and not claim(conn, game_id):
                return False
            row = stored
            if terms.rematch_of is not None and store.is_unlisted(conn, terms.rematch_of):
                row = replace(stored, unlisted=True)  # the rematch of a private game is private too
            store.insert_game(conn, row)
            unlisted.append(row.unlisted)
            store.bind_seat_accounts(conn, game_id, seat_accounts)
            paired = terms if terms.paired else _rematch_terms(conn, terms)
            if paired is not None:
                both = (paired.players[0].account, paired.players[1].account)
                rated, reason = _how_it_counts(conn, paired)
                counted.append((rated, reason))
                store.insert_game_accounts(conn, game_id, both, rated, pool_of(terms.clock), reason)
            if terms.rematch_of is not None:  # the players' accounts keep their games
                accounts.carry_seats_over(conn, terms.rematch_of, game_id)
            return True

        if not await self.writer.transact(write):
            return None
        if counted:
            stored = replace(stored, rated=counted[-1][0], casual_reason=counted[-1][1])
        game = self.registry.add(stored)
        shown = None if terms.clock is None else terms.clock.to_json()
        logs.event(
            "game_created", game_id=game_id, kinds=stored.kinds, variant=terms.variant.names, status=game.status,
            clock=shown, rated=game.rated, casual_reason=game.casual_reason, tournament=terms.tournament,
            unlisted=unlisted[-1],
        )  # fmt: skip
        return game


def _rematch_terms(conn: Connection, terms: Terms) -> Terms | None:
    """A rematch's terms as a paired game, when the game it is the rematch of was one: the accounts
    of its seats swapped (old seat ``s`` plays seat ``1 - s``), rated if the old game was asked
    for as rated (rated, or casual only for the pair limit); ``None``: not a rematch of a paired game."""
    if terms.rematch_of is None:
        return None
    old = paired_rows.game_accounts_of(conn, terms.rematch_of)
    if old is None:
        return None
    accounts0, accounts1, rated, reason = old
    first, second = terms.players
    players = (replace(first, account=accounts1), replace(second, account=accounts0))
    asked = (rated or reason == rated_pairs.PAIR_LIMIT) and None not in (accounts0, accounts1)
    return replace(terms, players=players, rated=asked and terms.clock is not None, paired=True)


def _how_it_counts(conn: Connection, terms: Terms) -> tuple[bool, str | None]:
    """Whether a paired game is rated, and why not if it was asked for as rated: between the same
    two people, at most ``rated_pairs.RATED_PER_PAIR`` rated games a day (a seat the server's AI
    plays is a fixed rating anchor, not a person: the rule does not apply to it)."""
    first, second = terms.players
    if not terms.rated or first.account is None or second.account is None:
        return terms.rated, None
    if first.kind != HUMAN or second.kind != HUMAN:
        return True, None
    if rated_pairs.limit_reached(conn, first.account, second.account):
        return False, rated_pairs.PAIR_LIMIT
    return True, None
