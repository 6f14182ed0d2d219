"""The game server: HTTP API, WebSocket play, AI seats and persistence (``kahuna serve``).

The protocol is documented in ``docs/protocol.md``. The database holds each game's record (deal,
reshuffle orders, actions); the in-memory :class:`~kahuna.server.games.live.LiveGame` is rebuilt from it
by replay, so a restarted server resumes every unfinished game.
"""
