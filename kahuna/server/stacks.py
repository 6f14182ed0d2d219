"""The serving stacks the app can be run under: uvicorn as ``kahuna serve`` runs it, and the
others it was measured against (issue 54; docs/scaling.md, *Another serving stack*).

uvicorn, Starlette, the ``websockets`` implementation and uvloop are three quarters of the event
loop's time under ``kahuna bench server``, so another stack behind the same ASGI app is a way to
lower what an action cannot cost less than; measured, neither of these lowered both the floor's
and the server's CPU per action, and neither was adopted. The choice is a hidden option of
``kahuna serve`` and of the floor (``--stack``, or ``$KAHUNA_SERVER_STACK`` so that a test
suite's servers can be started under another one), for measuring only: ``uvicorn`` is the
server's stack, with the limits of ``http/conns.py`` and the drain of ``http/draining.py``.

- ``uvicorn-legacy``: uvicorn with ``websockets``' legacy protocol (uvicorn's ``--ws websockets``,
  deprecated) in place of its sans-I/O one, which is what ``--ws auto`` picks and ``kahuna serve``
  has always run; the rest as the server's. uvicorn's third, ``wsproto``, is pure Python and not
  installed.
- ``granian``: granian (Rust HTTP and WebSocket I/O, the app on uvloop in one worker process
  forked from this one; ``pip install 'kahuna[granian]'``). uvicorn's protocol classes are not
  there, so neither are the connection limits (``max_connections``, ``max_connections_per_ip``;
  ``header_timeout`` is granian's own header read timeout), the WebSocket frame size limit, the
  protocol pings, nor the drain: on SIGTERM the sockets are cut, not closed with 1001.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import socket
from typing import Any

import uvicorn

from kahuna.server.common.config import Limits
from kahuna.server.http.conns import protocol_class, server
from kahuna.server.http.draining import Drain

UVICORN_WS = {"uvicorn": "websockets-sansio", "uvicorn-legacy": "websockets"}
"""uvicorn's WebSocket implementation under each uvicorn stack: the server's is the one uvicorn's
``auto`` picks when ``websockets`` is installed (named, so that no other is ever picked)."""

STACKS = (*UVICORN_WS, "granian")

ENV = "KAHUNA_SERVER_STACK"

WS_MAX_SIZE = 1024 * 1024
"""Frames up to this size get a protocol error; bigger ones close the connection (code 1009)."""

LISTEN_BACKLOG = 65_535
"""Connections the kernel completes and holds for the server while its event loop is busy (the
kernel takes at most ``net.core.somaxconn`` of them: 4,096 on the development machine). uvicorn's
default, 2,048, was too few for a reconnecting crowd: behind nginx, the 4,000 sockets of 2,000
games opened at once overflowed it, the kernel dropped the connections past it, and nginx answered
them 504 after its 2 s ``proxy_connect_timeout`` (docs/scaling.md)."""


def add_stack_option(p: argparse.ArgumentParser) -> None:
    """The hidden ``--stack`` option (for measuring only, so not in ``--help``)."""
    p.add_argument("--stack", choices=STACKS, default=os.environ.get(ENV, "uvicorn"), help=argparse.SUPPRESS)


def run(stack: str, app: Any, sock: socket.socket, limits: Limits, drain: Drain | None = None) -> None:
    """Serve ``app`` on the listening ``sock`` under ``stack`` until told to stop."""
    if stack == "granian":
        _run_granian(app, sock, limits)
        return
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        http=protocol_class(limits),
        ws=UVICORN_WS[stack],
        ws_max_size=WS_MAX_SIZE,
        ws_per_message_deflate=False,  # small JSON messages: compressing them costs more CPU than it saves
        lifespan="on",
        timeout_graceful_shutdown=3,
        backlog=LISTEN_BACKLOG,
    )
    server(config, drain).run(sockets=[sock])


def _run_granian(app: Any, sock: socket.socket, limits: Limits) -> None:
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.server import Server

    # granian starts its worker with the process's default start method, and pickles the app for
    # any but "fork" (the test suite's servers come from a fork server, whose default is another)
    multiprocessing.set_start_method("fork", force=True)
    host, port = sock.getsockname()[:2]
    sock.close()  # granian binds its own socket, on the same address
    granian = Server(
        "kahuna",
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        loop=Loops.uvloop,
        http=HTTPModes.http1,
        websockets=True,
        backlog=LISTEN_BACKLOG,
        http1_settings=HTTP1Settings(header_read_timeout=min(60_000, max(1, int(limits.header_timeout * 1000)))),
        log_enabled=False,
    )
    granian.serve(target_loader=lambda: app, wrap_loader=False)  # the worker is forked: the app is not pickled
