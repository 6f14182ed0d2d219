"""What a seat's holder is given: its links, and in a rematch its new seat link.

A rematch's seat token is derived from the old game's seat token (:func:`rematch_token`), so only
its holder can obtain it, whenever it comes back, on any instance and after a restart; the server
stores neither token, only digests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from kahuna.server.common.tokens import digest, new_secret
from kahuna.server.games import messages
from kahuna.server.games.live import Client, LiveGame


def seat_links(game_id: str, seat: int, token: str) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seat": seat,
        "token": token,
        "seat_url": f"/play/{game_id}#{token}",
        "spectator_url": f"/watch/{game_id}",
    }


def rematch_token(old_token: str, new_game_id: str) -> str:
    """A player's seat token in the rematch, derived from their seat token of the old game: only
    its holder can obtain it (by presenting the old token), whenever they come back, even after a
    restart, and the server stores neither token, only digests."""
    mac = hmac.new(old_token.encode(), b"kahuna-rematch:" + new_game_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")


def rematch_fragment(client: Client, new_game_id: str) -> str | None:
    """The fragment of the client's seat link in the rematch: its new token, or ``seat:N`` for a
    seat played as its account's (the new seat is the account's too: ``carry_seats_over``)."""
    if client.token is not None:
        return rematch_token(client.token, new_game_id)
    if client.by_account and client.seat is not None:
        return f"seat:{1 - client.seat}"
    return None


def rematch_digest(client: Client, new_game_id: str) -> str | None:
    """The digest of the client's seat token in the rematch. An account's seat played without a
    token gets the digest of a random token nobody keeps: the seat is its account's alone."""
    if client.token is not None:
        return digest(rematch_token(client.token, new_game_id))
    if client.by_account:
        return digest(new_secret())
    return None


def send_rematch(game: LiveGame, client: Client) -> None:
    """The agreed rematch of ``game`` to one connection: old seat ``s`` plays seat ``1 - s``."""
    assert game.rematch is not None
    seat = None if client.seat is None else 1 - client.seat
    client.send(messages.rematch(game.rematch, seat, rematch_fragment(client, game.rematch)))
