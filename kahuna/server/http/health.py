"""``/healthz`` (the process answers) and ``/readyz`` (it can serve games: ``ops/readiness.py``).

A supervisor restarts a process whose ``/healthz`` does not answer; a load balancer or
``deploy/run.sh`` sends players to an instance only once its ``/readyz`` says 200. Neither is
counted against a client's rate limits (they are not under ``/api/``), and ``/readyz`` checks at
most once a second whoever asks (docs/deploy.md).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from kahuna.server.ops.readiness import Readiness


def router(readiness: Readiness) -> APIRouter:
    r = APIRouter(tags=["operations"])

    @r.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """200 while the process's event loop answers."""
        return {"status": "ok"}

    @r.get("/readyz", responses={503: {"description": "a part is not ready; ``checks`` says which"}})
    async def readyz() -> JSONResponse:
        """200 if the database answers at the newest schema, the broker (with ``--broker``) answers
        and the AI pool is up; else 503. ``checks`` gives each part's state."""
        checks = await readiness.check()
        ready = all(state == "ok" for state in checks.values())
        return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)

    return r
