"""How the HTTP routes get what they depend on: nothing that makes every request pay a thread or
an analysis of the route again.

FastAPI runs a dependency or an endpoint that is a plain function (not ``async def``) in a worker
thread, a hop out of the event loop and back on every request; the override the assembly once set
(the ``Authenticator``, bound with ``app.dependency_overrides``) was such a function, and with the
moderation API's ``admin`` the hops were about a third of what FastAPI's dependency solving cost a
``POST /api/games`` on the event loop. And while an app holds any override, FastAPI builds every
sub-dependency's ``Dependant`` again on every request (about a fifth of a request's samples): the
account dependencies are the ``Authenticator``'s own, handed to each router at assembly, and the
app holds none (docs/scaling.md, *The HTTP side of a request*).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.dependencies.models import Dependant

from kahuna.server.app import create_app
from kahuna.server.common.config import Settings


def _dependants(routes: list[Any]) -> Iterator[tuple[str, Dependant]]:
    """Each route's dependant, the routers an app includes followed down."""
    for route in routes:
        dependant = getattr(route, "dependant", None)
        if dependant is not None:
            yield getattr(route, "path", "?"), dependant
        for inner in (getattr(route, "routes", None), getattr(getattr(route, "original_router", None), "routes", None)):
            if inner:
                yield from _dependants(inner)


def _plain_functions(path: str, dependant: Dependant) -> Iterator[str]:
    call = dependant.call
    if call is not None and not (inspect.iscoroutinefunction(call) or inspect.isasyncgenfunction(call)):
        yield f"{path}: {getattr(call, '__qualname__', call)!r}"
    for sub in dependant.dependencies:
        yield from _plain_functions(path, sub)


def test_no_route_sends_its_requests_through_a_worker_thread(tmp_path: Path) -> None:
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'kahuna.db'}"))
    assert app.dependency_overrides == {}
    found = list(_dependants(app.routes))
    assert len(found) > 100  # every router's routes were reached, not only the app's own
    plain = sorted({name for path, dependant in found for name in _plain_functions(path, dependant)})
    assert plain == []
