"""What differs between the processes that run games, as small protocols given to the engine when
it is built; ``assembly.py`` picks one implementation of each per mode:

- :class:`Replication`, how a stored change reaches the other processes: :class:`SingleInstance`
  in the embedded server (nobody to tell), ``cluster.replication.RedisReplication`` in a clustered
  instance (``--broker``), ``cluster.replication.Announcer`` in ``kahuna worker`` (it tells the
  instances of its moves and follows no game).
- :class:`Notices`, who hears of the moments worth telling a player who is away (a turn, and the
  lobby's challenges and the tournaments' games): ``notify.notifier.Notifier`` in a server,
  :class:`NoNotices` where nobody knows who is connected (``kahuna worker``).
- :class:`AiTurns`, how AI moves are scheduled: ``games.ai_turns.LocalAiTurns`` (this process's
  pool: embedded, or ``--local-ai``), ``cluster.ai_jobs.QueuedAiTurns`` (a clustered instance queues
  them for workers), ``cluster.ai_jobs.NextQueuedByWorker`` (the worker queues the next move itself).

The engine never asks which mode it runs in. A replication or an AI scheduler that must act on a
game again (apply another instance's action, play the AI's move) is handed the engine with each
call (:class:`Catchup`, :class:`AiMoves`), since the engine is built with them.
"""

from __future__ import annotations

from typing import Any, Protocol

from kahuna.rules import Action
from kahuna.server.db.store import ActionRow
from kahuna.server.games.live import LiveGame


class Catchup(Protocol):
    """What the engine does when another process changed a game it holds: the replication hands
    every such change to the engine, the one writer of a game, and writes none itself."""

    async def refresh(self, game: LiveGame) -> None:
        """Reload ``game`` from the database and send each connection a ``sync`` (lock held)."""
        ...

    def apply_stored(
        self, game: LiveGame, seat: int, token: str, reshuffles: list[Any], clock: dict[str, Any] | None, at: str
    ) -> bool:
        """Another process stored ``seat``'s action at ``game``'s version: apply it here; ``False``
        if it does not fit (lock held)."""
        ...

    def chat_elsewhere(self, game: LiveGame, line: dict[str, Any], shadow: bool) -> bool:
        """Another process stored a chat line; ``False`` if it is not the next one (lock held)."""
        ...

    def hide_line(self, game: LiveGame, line_id: int, hidden: bool) -> None:
        """A moderator hid a chat line (or showed it again) (lock held)."""
        ...

    def takeback_elsewhere(self, game: LiveGame, offer: tuple[int, int] | None, declined_by: int | None) -> None:
        """A take-back was asked for (or declined) through another process (lock held)."""
        ...

    def rematch_offered_elsewhere(self, game: LiveGame, seat: int, new_id: str, digest: str | None) -> None:
        """A rematch was offered through another process (lock held)."""
        ...

    async def players_here(self, game: LiveGame) -> None:
        """Both players are connected, here or elsewhere: a clock waiting for them starts (takes the lock)."""
        ...


class Replication(Protocol):
    """How a change stored here reaches the other processes serving the same games, and theirs here."""

    def follow(self, game: LiveGame, engine: Catchup) -> None:
        """Listen for other processes' changes to ``game`` (it entered memory here)."""
        ...

    def unfollow(self, game_id: str) -> None:
        """Stop listening (the game left memory)."""
        ...

    def action_stored(self, game: LiveGame, row: ActionRow) -> None: ...

    def chat_stored(self, game: LiveGame, seq: int, line: dict[str, Any]) -> None: ...

    def line_hidden(self, game_id: str, line_id: int, hidden: bool) -> None:
        """A moderator hid a chat line (or showed it again): the others' copies of the game follow."""
        ...

    def reload(self, game_id: str) -> None:
        """The game changed outside its engine (a player renamed): the others reload it."""
        ...

    def rematch_offered(self, game: LiveGame) -> None: ...

    def takeback_asked(self, game: LiveGame, declined_by: int | None = None) -> None:
        """A take-back was asked for (``game.takeback_offer``), or declined by ``declined_by``."""
        ...

    def changed(self, game: LiveGame) -> None:
        """Seats, the end, a name or a rematch changed: the others reload the game."""
        ...

    def presence(self, game: LiveGame) -> None:
        """The seats connected here changed."""
        ...

    async def close(self) -> None: ...


class AiMoves(Protocol):
    """How an AI seat's chosen action is played: through the engine, like any seat's."""

    async def play_ai(self, game: LiveGame, seat: int, version: int, action: Action) -> bool:
        """Play ``action`` for ``seat`` if the game is still at ``version``; ``False`` if it moved on."""
        ...


class AiTurns(Protocol):
    """How the moves of AI seats are scheduled: computed here, or queued for a worker."""

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        """Start the AI's turn if an AI seat is to move in ``game`` and nobody is on it yet."""
        ...

    def thinking(self, game: LiveGame) -> bool:
        """Whether the AI's turn in ``game`` is being computed in this process: the game stays in
        memory until it is played (the registry asks before it drops an idle game)."""
        ...

    async def close(self) -> None:
        """Stop: turns under way are dropped (they are scheduled again when the game is loaded)."""
        ...


class Notices(Protocol):
    """Who hears of the moments worth a notice, to tell a player who has no tab open. Each call
    returns at once (the notice is decided in a task of its own); ``turn`` is called with the
    game's lock held."""

    def turn(self, game: LiveGame, acted: int | None) -> None:
        """``game`` has a new action of seat ``acted`` (stored here or elsewhere), or its clock
        started (``None``): maybe the seat to move is away."""
        ...

    def challenge(self, account_id: int, challenge_id: str, challenger: str, expires: float) -> None:
        """``challenger`` challenged the account; the challenge lapses at ``expires``."""
        ...

    def tournament_game(self, account_id: int, game_id: str, seat: int, opponent: str | None, url: str) -> None:
        """A tournament game of the account's starts, on ``seat``; ``url`` opens it."""
        ...


class NoNotices:
    """Nobody is notified (a process that does not know who is connected: ``kahuna worker``)."""

    def turn(self, game: LiveGame, acted: int | None) -> None:
        return

    def challenge(self, account_id: int, challenge_id: str, challenger: str, expires: float) -> None:
        return

    def tournament_game(self, account_id: int, game_id: str, seat: int, opponent: str | None, url: str) -> None:
        return


class SingleInstance:
    """The embedded server's replication: one process serves every game, so nobody is told."""

    def follow(self, game: LiveGame, engine: Catchup) -> None:
        return

    def unfollow(self, game_id: str) -> None:
        return

    def action_stored(self, game: LiveGame, row: ActionRow) -> None:
        return

    def chat_stored(self, game: LiveGame, seq: int, line: dict[str, Any]) -> None:
        return

    def line_hidden(self, game_id: str, line_id: int, hidden: bool) -> None:
        return

    def reload(self, game_id: str) -> None:
        return

    def rematch_offered(self, game: LiveGame) -> None:
        return

    def takeback_asked(self, game: LiveGame, declined_by: int | None = None) -> None:
        return

    def changed(self, game: LiveGame) -> None:
        return

    def presence(self, game: LiveGame) -> None:
        return

    async def close(self) -> None:
        return
