"""How every refusal and failure is answered over HTTP: ``{"error": CODE, "message": TEXT}``.

A :class:`~kahuna.server.common.errors.Rejected` keeps its code and status, an invalid body is a
``422 invalid`` naming the first bad field, and an unexpected exception a ``500 server_error``
whose log line names its type only (a message may quote stored data).
"""

from __future__ import annotations

import math

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.http.guard import BodyRefused, loggable_path

_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def add_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(Rejected, rejected_response)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _server_error)


def rejected_response(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Rejected)
    wait = exc.extra.get("retry_after")
    headers = {"Retry-After": str(math.ceil(wait))} if exc.status == 429 and isinstance(wait, int | float) else None
    body = {"error": exc.code, "message": exc.message, **exc.extra}
    return JSONResponse(body, status_code=exc.status, headers=headers)


def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request", "type": ""}
    if first.get("type") == "json_invalid":
        return JSONResponse({"error": "bad_request", "message": "the body is not valid JSON"}, status_code=400)
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return JSONResponse({"error": "invalid", "message": message}, status_code=422)


def _server_error(request: Request, exc: Exception) -> JSONResponse:
    logs.event("server_error", path=loggable_path(request.url.path), error=type(exc).__name__)
    return JSONResponse({"error": "server_error", "message": "the server failed on this request"}, status_code=500)


def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    if isinstance(exc.__cause__, BodyRefused):
        refused = exc.__cause__
        return JSONResponse({"error": refused.code, "message": refused.message}, status_code=refused.status)
    code = _HTTP_CODES.get(exc.status_code, "error")
    return JSONResponse({"error": code, "message": str(exc.detail)}, status_code=exc.status_code)
