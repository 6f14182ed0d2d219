"""The lobby: seeks anyone can accept, quick pairing ("play now"), and challenges to one account.

Every offer is a row of ``seeks`` (``community/seeks.py``), so that all instances see it and accept it at
most once; what the lobby's clients must learn (an offer added, removed, accepted) is published
through the broker (``broker.py``): on ``lobby`` for the public list, on ``seek:<id>`` for the
offer's owner (whose lobby connection adds its secret seat token before passing it on), on
``user:<id>`` for the challenged account.

Quick pairing keeps no queue in memory either: an entry is an unlisted offer (``kind`` ``pool``).
A newcomer is paired at once with the oldest waiting entry of the same terms (clock, variant,
rated) whose rating is close enough; :meth:`Lobby.run` tries again every second, as the allowed
gap widens with waiting time (:func:`allowed_gap`).

**The list is fair** (:func:`fair_order`): at most :data:`LISTED_PER_ADDRESS` seeks of one address
are listed (and announced), every address's first before anyone's second, the newest first within
each round, in pages of :data:`PAGE_SIZE`; so seventy addresses posting three seeks each cannot push
a newcomer's seek off the first page. A seek row that cannot be read is quarantined: left out of
every list, logged once (``seek_quarantined``), answered ``410 damaged``.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection

from kahuna.clock import ClockError, TimeControl
from kahuna.rules import KahunaError, Variant
from kahuna.server.accounts.store import Account
from kahuna.server.cluster.broker import LOBBY, Broker, user_channel
from kahuna.server.common import logs
from kahuna.server.common.draws import first_seat
from kahuna.server.common.errors import Rejected
from kahuna.server.common.periodic import Periodic
from kahuna.server.common.protocol import Accepted, Challenge, Declined, LobbyMessage, SeekAdded, SeekPage, SeekRemoved
from kahuna.server.common.tokens import digest, new_game_id, new_secret
from kahuna.server.community import rating_marks, ratings, relations, seeks
from kahuna.server.community.offers import Offer, Party, Started, casual_reason
from kahuna.server.community.seeks import Seek
from kahuna.server.db import store
from kahuna.server.db.writer import Writer
from kahuna.server.games.factory import GameFactory, Terms, pool_of
from kahuna.server.games.live import AI_PREFIX
from kahuna.server.games.ports import Notices
from kahuna.server.games.seats import seat_links

SEEK_TTL = 30.0
"""Seconds an offer stays open after its owner's last sign of life (a lobby heartbeat or a poll)."""
MAX_OPEN_PER_CLIENT = 3
"""Open offers (seeks, quick-pairing entries, challenges) one account, or one guest address, may have."""
LIST_LIMIT = 200
"""Quick-pairing entries the matcher looks at in one pass (the oldest first)."""
SCAN_LIMIT = 5000
"""Open seeks the list is made from at most (the newest)."""
LISTED_PER_ADDRESS = 2
"""Seeks of one address (guests and accounts alike) listed and announced at once; its others wait,
unlisted, until one of these goes."""
PAGE_SIZE = 50
"""Seeks on one page of the list."""
PAIR_EVERY = 1.0
"""Seconds between two passes of the quick-pairing matcher and of the expiry of lapsed offers."""
GUEST_RATING = 1500
"""The rating a guest (or an untimed entry) is paired as."""


def allowed_gap(waited: float) -> float:
    """The rating difference quick pairing accepts after ``waited`` seconds: ±100 at once, 25 more
    per second of waiting (±350 after 10 s, ±850 after 30 s: by then anybody)."""
    return 100.0 + 25.0 * max(0.0, waited)


def compatible(a: Seek, b: Seek, moment: float) -> bool:
    """Whether two quick-pairing entries may play each other now."""
    if a.owner_client == b.owner_client or not a.same_terms(b):
        return False
    waited = moment - min(a.created, b.created)
    gap = abs((a.rating or GUEST_RATING) - (b.rating or GUEST_RATING))
    return gap <= allowed_gap(waited)


def fair_order(open_seeks: list[Seek]) -> list[Seek]:
    """The listed seeks in the order shown: of each address its :data:`LISTED_PER_ADDRESS` oldest,
    round by round (every address's oldest before anyone's second), newest first within a round."""
    rounds: dict[str, int] = {}
    ranked = []
    for seek in sorted(open_seeks, key=lambda s: s.created):
        rank = rounds[seek.address] = rounds.get(seek.address, -1) + 1
        if rank < LISTED_PER_ADDRESS:
            ranked.append((rank, -seek.created, seek.seek_id, seek))
    return [seek for *_, seek in sorted(ranked, key=lambda r: r[:3])]


def seek_channel(seek_id: str) -> str:
    """What the owner of one offer learns: that it was accepted (game and seat; never the token)."""
    return f"seek:{seek_id}"


class Lobby:
    def __init__(
        self,
        writer: Writer,
        factory: GameFactory,
        broker: Broker,
        clock_min_seconds: int,
        notices: Notices,
    ) -> None:
        self.writer = writer
        self.factory = factory
        self.broker = broker
        self.clock_min_seconds = clock_min_seconds
        self.notices = notices
        """Who notifies the challenged account (``notify/notifier.py``: its devices and mailbox)."""
        self._loop = Periodic(self.pass_once, PAIR_EVERY, "lobby_error")
        self.damaged: set[str] = set()
        """Ids of offers whose rows cannot be read (quarantined: logged once, left out of lists)."""

    # ----------------------------------------------------------------- life cycle

    def start(self) -> None:
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def pass_once(self) -> None:
        """Expire lapsed offers and pair waiting players (every :data:`PAIR_EVERY` seconds)."""
        await self.expire()
        await self.pair_waiting()

    async def expire(self) -> None:
        """Expire the offers whose owners went silent (a read each second; a write only if any)."""
        moment = time.time()
        candidates = await self.writer.read(lambda conn: seeks.lapsing(conn, moment))
        if not candidates:
            return
        for seek_id in await self.transact(lambda conn: seeks.lapsed(conn, moment, candidates)):
            await self._removed(seek_id, "expired")

    # ----------------------------------------------------------------- offers

    async def _terms(self, offer: Offer, account: Account | None) -> TimeControl | None:
        """Check what an offer asks for; its time control."""
        try:
            Variant.from_names(offer.variant)
        except KahunaError as exc:
            raise Rejected("invalid", str(exc), 422) from None
        try:
            control = TimeControl.from_json(offer.clock, self.clock_min_seconds)
        except ClockError as exc:
            raise Rejected("invalid", f"clock: {exc}", 422) from None
        await rating_marks.refuse_unrated(self.writer, offer.rated, account)
        if offer.rated and control is None:
            raise Rejected("invalid", "a rated game needs a clock", 422)
        return control

    async def create(
        self,
        offer: Offer,
        account: Account | None,
        address: str,
        target: Account | None = None,
        browser: str | None = None,
    ) -> dict[str, Any]:
        """Open an offer; ``{"seek_id", "token"}`` (the token is the owner's seat token in the game
        to come) and, when quick pairing found an opponent at once, the seat links as well."""
        control = await self._terms(offer, account)
        if target is not None:
            await relations.refuse_blocked(self.writer, relations.Someone.of(account), target.id)
        client = f"account:{account.id}" if account is not None else f"address:{address}"
        token = new_secret()
        moment = time.time()
        seek = Seek(
            seek_id=new_game_id(),
            kind=offer.kind,
            status=seeks.OPEN,
            owner_account=None if account is None else account.id,
            owner_name=offer.name if account is None else account.username,
            owner_client=client,
            owner_address=address,
            owner_browser=None if browser is None else digest(browser),
            target_account=None if target is None else target.id,
            clock=offer.clock,
            variant=tuple(sorted(offer.variant)),
            rated=offer.rated,
            rating=None,
            token=digest(token),
            created=moment,
            alive_until=moment + SEEK_TTL,
            game_id=None,
            seat=None,
        )
        pool = pool_of(control)

        damaged: set[str] = set()

        def write(conn: Connection) -> tuple[Seek, bool, str | None] | None:
            if seeks.count_open(conn, client, moment) >= MAX_OPEN_PER_CLIENT:
                return None
            listed = len(seeks.open_at_address(conn, seek.kind, address, moment, damaged)) < LISTED_PER_ADDRESS
            rated = replace(seek, rating=ratings.rating_for_seek(conn, seek.owner_account, pool))
            seeks.insert(conn, rated)
            return rated, listed, casual_reason(conn, rated, seek.target_account)

        written = await self.transact(write)
        self._quarantine(damaged)
        if written is None:
            raise Rejected("too_many_seeks", f"at most {MAX_OPEN_PER_CLIENT} open offers at once: cancel one", 429)
        stored, listed, reason = written
        logs.event("seek_created", seek_id=seek.seek_id, offer=seek.kind, rated=seek.rated, listed=listed)
        out: dict[str, Any] = {"seek_id": seek.seek_id, "token": token}
        if seek.kind == "seek":
            if listed:  # else announced when one of its address's listed seeks goes
                await self._publish(LOBBY, SeekAdded(type="seek_added", seek=stored.public()))
        elif seek.kind == "challenge" and target is not None:
            out["casual_reason"] = reason  # both learn it before the game starts: the challenger here,
            challenge = {**stored.public(), "casual_reason": reason}  # the challenged with the challenge
            await self._publish(user_channel(target.id), Challenge(type="challenge", challenge=challenge))
            self.notices.challenge(target.id, seek.seek_id, seek.owner_name, seek.alive_until)
        else:
            paired = await self._pair_newcomer(stored)
            if paired is not None:
                started, seat = paired
                out.update({**seat_links(started.game_id, seat, token), **started.counts()})
        return out

    async def status(self, seek_id: str, token: str | None) -> dict[str, Any]:
        """An offer as anyone sees it; with its owner's token, the owner's seat once accepted (and
        the offer is kept alive: polling is a sign of life)."""
        seek = await self._load(seek_id)
        out = seek.public()
        if token is None or not secrets.compare_digest(digest(token), seek.token):
            return out
        if seek.status == seeks.OPEN:
            until = time.time() + SEEK_TTL
            await self.transact(lambda conn: seeks.keep_alive(conn, seek_id, until))
        elif seek.status == seeks.ACCEPTED and seek.game_id is not None and seek.seat is not None:
            game_id = seek.game_id
            counts = await self.writer.read(lambda conn: store.how_it_counts(conn, game_id))
            out.update(seat_links(game_id, seek.seat, token))
            if counts is not None:
                out.update({"rated": counts[0], "casual_reason": counts[1]})
        return out

    async def keep_alive(self, owned: dict[str, str]) -> None:
        """A lobby connection's heartbeat for the offers it owns (id → token)."""
        until = time.time() + SEEK_TTL

        def write(conn: Connection) -> None:
            for seek_id in owned:
                seeks.keep_alive(conn, seek_id, until)

        await self.transact(write)

    async def owns(self, seek_id: str, token: str) -> Seek:
        seek = await self._load(seek_id)
        if not secrets.compare_digest(digest(token), seek.token):
            raise Rejected("forbidden", "this token is not the owner's of this offer", 403)
        return seek

    async def cancel(self, seek_id: str, token: str | None, account: Account | None = None) -> None:
        """The owner withdraws an offer (by its token, or as the account that made it)."""
        seek = await self._load(seek_id)
        by_token = token is not None and secrets.compare_digest(digest(token), seek.token)
        by_account = account is not None and seek.owner_account == account.id
        if not (by_token or by_account):
            raise Rejected("forbidden", "only the owner of an offer can cancel it", 403)
        if await self.transact(lambda conn: seeks.close(conn, seek_id, seeks.CANCELLED)):
            await self._removed(seek_id, "cancelled")

    async def withdraw_all(self, account_id: int) -> None:
        """Cancel an account's open offers (it was deleted) and tell the lobby they are gone."""
        for seek_id in await self.transact(lambda conn: seeks.withdraw_all(conn, account_id)):
            await self._removed(seek_id, "cancelled")

    async def decline(self, seek_id: str, account: Account) -> None:
        seek = await self._load(seek_id)
        if seek.kind != "challenge" or seek.target_account != account.id:
            raise Rejected("forbidden", "only the challenged account can decline a challenge", 403)
        if not await self.transact(lambda conn: seeks.close(conn, seek_id, seeks.DECLINED)):
            raise Rejected("gone", "this challenge is no longer open", 409)
        await self._publish(seek_channel(seek_id), Declined(type="declined", seek_id=seek_id))

    async def open_seeks(self, page: int = 1) -> SeekPage:
        """One page of the list (:func:`fair_order`): ``{"seeks", "page", "pages", "total"}``."""
        moment, damaged = time.time(), set[str]()
        found = await self.writer.read(lambda conn: seeks.open_seeks(conn, "seek", moment, SCAN_LIMIT, damaged, True))
        self._quarantine(damaged)
        listed = fair_order(found)
        start = (page - 1) * PAGE_SIZE
        shown = [seek.public() for seek in listed[start : start + PAGE_SIZE]]
        return SeekPage(seeks=shown, page=page, pages=max(1, -(-len(listed) // PAGE_SIZE)), total=len(listed))

    async def challenges(self, account: Account) -> list[dict[str, Any]]:
        """The open challenges to ``account`` (none from an account either blocks), each with the
        reason it would start casual, if any."""
        moment, damaged = time.time(), set[str]()

        def read(conn: Connection) -> list[dict[str, Any]]:
            found = seeks.challenges_for(conn, account.id, moment, damaged)
            return [
                {**seek.public(), "casual_reason": casual_reason(conn, seek, account.id)}
                for seek in found
                if seek.owner_account is None or not relations.blocked_either(conn, seek.owner_account, account.id)
            ]

        shown = await self.writer.read(read)
        self._quarantine(damaged)
        return shown

    async def _waiting(self) -> list[Seek]:
        """The quick-pairing entries waiting, oldest first."""
        moment, damaged = time.time(), set[str]()
        found = await self.writer.read(lambda conn: seeks.open_seeks(conn, "pool", moment, LIST_LIMIT, damaged))
        self._quarantine(damaged)
        return found

    def _quarantine(self, damaged: set[str]) -> None:
        """Log each damaged offer the first time it is met (the rows stay as they are, for repair)."""
        for seek_id in damaged - self.damaged:
            logs.event("seek_quarantined", seek_id=seek_id)
        self.damaged |= damaged

    # ----------------------------------------------------------------- accepting

    async def accept(
        self, seek_id: str, account: Account | None, name: str, browser: str | None = None
    ) -> dict[str, Any]:
        """Take the other seat of an open seek or of a challenge to this account; the seat links.

        Nobody accepts their own offer: an account its own, and no browser the guest offer it made
        (``browser``: its ``browser`` cookie; two browsers behind one address are two people)."""
        seek = await self._load(seek_id)
        if seek.kind == "pool":
            raise Rejected("not_found", f"no seek {seek_id!r}", 404)
        if seek.kind == "challenge" and (account is None or seek.target_account != account.id):
            raise Rejected("forbidden", "only the challenged account can accept a challenge", 403)
        if seek.status != seeks.OPEN or seek.alive_until <= time.time():
            raise Rejected("gone", "this offer is no longer open", 409)
        await rating_marks.refuse_unrated(self.writer, seek.rated, account)
        own_account = account is not None and seek.owner_account == account.id
        own_guest_offer = (
            browser is not None
            and seek.owner_browser is not None
            and secrets.compare_digest(digest(browser), seek.owner_browser)
        )
        if own_account or own_guest_offer:
            raise Rejected("own_seek", "you cannot accept your own offer", 409)
        if seek.owner_account is not None:
            await relations.refuse_blocked(self.writer, relations.Someone.of(account, browser), seek.owner_account)
        token = new_secret()
        party = Party(
            name if account is None else account.username, None if account is None else account.id, digest(token)
        )
        started = await self.start_game(seek, self._owner(seek), party)
        if started is None:
            raise Rejected("gone", "this offer is no longer open", 409)
        return {**seat_links(started.game_id, started.seats[1], token), **started.counts()}

    def _owner(self, seek: Seek) -> Party:
        return Party(seek.owner_name, seek.owner_account, seek.token, seek.seek_id)

    async def _pair_newcomer(self, newcomer: Seek) -> tuple[Started, int] | None:
        """Pair a new quick-pairing entry with the oldest compatible one: its game and seat."""
        moment = time.time()
        for other in await self._waiting():
            if other.seek_id == newcomer.seek_id or not compatible(other, newcomer, moment):
                continue
            if not await relations.pair_blocked(self.writer, other.blocker(), newcomer.blocker()):
                started = await self.start_game(other, self._owner(other), self._owner(newcomer))
                if started is not None:
                    return started, started.seats[1]
        return None

    async def pair_waiting(self) -> int:
        """Pair the waiting entries whose allowed gap has grown wide enough; the games started."""
        moment = time.time()
        waiting = await self._waiting()
        taken: set[str] = set()
        started = 0
        for index, first in enumerate(waiting):
            if first.seek_id in taken:
                continue
            for second in waiting[index + 1 :]:
                if second.seek_id not in taken and compatible(first, second, moment):
                    if await relations.pair_blocked(self.writer, first.blocker(), second.blocker()):
                        continue
                    if await self.start_game(first, self._owner(first), self._owner(second)) is not None:
                        taken.update((first.seek_id, second.seek_id))
                        started += 1
                    break
        return started

    async def start_game(self, terms: Seek, first: Party, second: Party) -> Started | None:
        """Start the game of an offer between two parties, seats drawn at random; claims the
        parties' offers in the same transaction (``None`` if one was taken meanwhile). Returns the
        game id, the seats of ``first`` and ``second`` and how the game counts (a rated offer may
        start casual: ``games/rated_pairs.py``)."""
        seat_of_first = first_seat()
        order = (first, second) if seat_of_first == 0 else (second, first)
        claims = [(party.seek_id, seat) for seat, party in enumerate(order) if party.seek_id is not None]
        moment = time.time()

        def claim(conn: Connection, game_id: str) -> bool:
            return seeks.claim(conn, [c[0] for c in claims], game_id, [c[1] for c in claims], moment)

        game_terms = Terms(
            (order[0].player, order[1].player),
            Variant.from_names(terms.variant),
            TimeControl.from_json(terms.clock, self.clock_min_seconds),
            rated=terms.rated,
            paired=True,
        )
        game = await self.factory.start(game_terms, claim)
        if game is None:
            return None
        game_id = game.game_id
        started = Started(game_id, (seat_of_first, 1 - seat_of_first), game.rated, game.casual_reason)
        logs.event("lobby_game", game_id=game_id, seek_id=terms.seek_id, offer=terms.kind, rated=game.rated)
        for seek_id, seat in claims:
            accepted = Accepted(type="accepted", seek_id=seek_id, game_id=game_id, seat=seat, rated=started.rated,
                                casual_reason=started.casual_reason)  # fmt: skip
            await self._publish(seek_channel(seek_id), accepted)
            if terms.kind == "seek":
                await self._publish(LOBBY, SeekRemoved(type="seek_removed", seek_id=seek_id, reason="accepted"))
                await self._promote(terms)
        return started

    async def play_bot_level(self, offer: Offer, account: Account | None, bot: Account, level: str) -> dict[str, Any]:
        """A challenge to an AI level's bot account: accepted at once, the AI plays its seat."""
        await self._terms(offer, account)
        token = new_secret()
        moment = time.time()
        terms = Seek(
            seek_id="",
            kind="challenge",
            status=seeks.OPEN,
            owner_account=None if account is None else account.id,
            owner_name=offer.name if account is None else account.username,
            owner_client="",
            owner_address=None,
            owner_browser=None,
            target_account=bot.id,
            clock=offer.clock,
            variant=offer.variant,
            rated=offer.rated,
            rating=None,
            token=digest(token),
            created=moment,
            alive_until=moment,
            game_id=None,
            seat=None,
        )
        player = Party(terms.owner_name, terms.owner_account, terms.token)
        ai = Party(bot.username, bot.id, None, kind=AI_PREFIX + level)
        started = await self.start_game(terms, player, ai)
        assert started is not None  # nothing to claim: it cannot be taken
        return {**seat_links(started.game_id, started.seats[0], token), **started.counts()}

    # ----------------------------------------------------------------- helpers

    async def _load(self, seek_id: str) -> Seek:
        """The offer; ``Rejected`` 404 if there is none, 410 ``damaged`` if its row cannot be read."""
        try:
            seek = await self.writer.read(lambda conn: seeks.load(conn, seek_id))
        except seeks.Damaged:
            self._quarantine({seek_id})
            raise Rejected("damaged", f"offer {seek_id!r} cannot be read: its stored row is damaged", 410) from None
        if seek is None:
            raise Rejected("not_found", f"no seek {seek_id!r}", 404)
        return seek

    async def transact(self, fn: Any) -> Any:
        """Run ``fn(conn)`` in the writer's transaction and return what it returned."""
        return await self.writer.transact(fn)

    async def _removed(self, seek_id: str, reason: str) -> None:
        removed = SeekRemoved(type="seek_removed", seek_id=seek_id, reason=reason)
        await self._publish(LOBBY, removed)
        await self._publish(seek_channel(seek_id), removed)
        with contextlib.suppress(Rejected):
            await self._promote(await self._load(seek_id))

    async def _promote(self, gone: Seek) -> None:
        """A seek of ``gone``'s address that waited unlisted behind it is listed now: announce it."""
        if gone.kind != "seek":
            return
        moment, damaged = time.time(), set[str]()
        held = await self.writer.read(lambda conn: seeks.open_at_address(conn, "seek", gone.address, moment, damaged))
        self._quarantine(damaged)
        if len(held) >= LISTED_PER_ADDRESS and held[LISTED_PER_ADDRESS - 1].created > gone.created:
            await self._publish(LOBBY, SeekAdded(type="seek_added", seek=held[LISTED_PER_ADDRESS - 1].public()))

    async def _publish(self, channel: str, message: LobbyMessage) -> None:
        await self.broker.publish(channel, json.dumps(message, ensure_ascii=False))
