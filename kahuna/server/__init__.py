"""The game server: HTTP API, WebSocket play, AI seats and persistence (``kahuna serve``).

One folder per room, wired by ``app.py`` (docs/architecture.md): ``http`` (routers, the two
WebSockets, guards), ``community`` (lobby, ratings, profiles), ``cluster`` (several instances,
Redis, ``kahuna worker``), ``games`` (the engine, the factory, the end hook, games in memory),
``accounts``, ``db`` (schema, store, writer, migrations) and ``common``. The protocol is documented
in ``docs/protocol.md``. The database holds each game's record (deal, reshuffle orders, actions);
the in-memory :class:`~kahuna.server.games.live.LiveGame` is rebuilt from it by replay, so a
restarted server resumes every unfinished game.
"""
