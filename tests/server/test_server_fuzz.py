"""Fuzz campaign against a real server: property-based WebSocket frames and HTTP bodies, and
schemathesis against the OpenAPI description. Every input is answered with a clear error (a known
code and a message, never a server error or silence), and a game it could not legally change is
left exactly as it was.

``make test`` runs a short form; the long campaign (over 10,000 inputs) is

    KAHUNA_FUZZ_EXAMPLES=3000 .venv/bin/pytest -q -s tests/server/test_server_fuzz.py

(frames and bodies take ``KAHUNA_FUZZ_EXAMPLES`` examples each, schemathesis a twelfth of it per
operation, at least 5: the API has over a hundred operations, and at a third (40 each) the short
form alone sent some 4,000 requests, the costliest test of the server's in ``make test``; each test
prints and checks how many inputs it sent).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import httpx
import loopback
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core.result import Ok
from server_harness import Server
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

EXAMPLES = int(os.environ.get("KAHUNA_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

WS_ERRORS = {"malformed", "forbidden", "illegal", "stale_version", "not_your_turn", "game_over", "rate_limited"}
HTTP_ERRORS = {"bad_request", "not_found", "method_not_allowed", "invalid", "too_large", "taken", "not_over"}
HTTP_ERRORS |= {"rate_limited", "damaged", "too_slow", "error"}
HTTP_ERRORS |= {"unauthorized", "csrf", "too_many_tokens", "session_required", "insufficient_scope"}  # accounts
HTTP_ERRORS |= {"too_many_seeks", "gone", "own_seek", "forbidden", "too_late"}  # the lobby (docs/community.md)
HTTP_ERRORS |= {"already_joined", "finished", "started", "too_few_players", "not_joined", "full"}  # tournaments
HTTP_ERRORS |= {"too_many_tournaments"}
HTTP_ERRORS |= {"mail_off", "invalid_email", "token_unknown", "token_used", "token_expired"}  # e-mail
HTTP_ERRORS |= {"token_invalid", "unknown_kind", "unknown_channel"}  # notifications
HTTP_ERRORS |= {"own_account", "already_following", "not_following", "blocked", "blocking"}  # follows, blocks
HTTP_ERRORS |= {"already_blocked", "not_blocked", "too_many_follows", "too_many_blocks"}
HTTP_ERRORS |= {"not_entrant", "muted"}  # an event's chat

UNLIMITED = ("messages_burst", "reads_burst", "games_burst", "joins_burst", "replays_burst")


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose rate limits are out of the way (the campaign sends thousands of inputs)."""
    args = tuple(arg for name in UNLIMITED for arg in ("--limit", f"{name}=1000000"))
    running = Server(tmp_path_factory.mktemp("fuzz"), args=args).start()
    yield running
    running.stop()


def _snapshot(server: Server, game_id: str) -> tuple[Any, Any]:
    return server.get(f"/api/games/{game_id}").json(), server.get(f"/api/games/{game_id}/record").json()


# ---------------------------------------------------------------- WebSocket frames

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ANY_FIELD = JSON_VALUES | st.integers(min_value=-(2**70), max_value=2**70) | st.text(alphabet=st.characters())
MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "action", "ping", "chat", "HELLO", ""]) | st.text(max_size=6)},
    optional={"version": ANY_FIELD | st.integers(-2, 3), "action": ANY_FIELD | st.text(max_size=8), "id": ANY_FIELD},
).map(json.dumps)
NESTED = st.integers(1, 5000).map(lambda depth: "[" * depth + "]" * depth)
SURROGATES = st.sampled_from(['"\\ud800"', '{"type":"action","action":"pass","version":0,"id":"\\udfff"}'])
FRAMES = (
    MESSAGES
    | JSON_VALUES.map(json.dumps)
    | st.text(max_size=64)
    | st.binary(max_size=64)
    | NESTED
    | SURROGATES
    | st.text(min_size=4097, max_size=4200)
)


def _replies_until_marker(ws: ClientConnection, marker: str) -> list[dict[str, Any]]:
    """Every reply up to the error that answers the marker message."""
    replies: list[dict[str, Any]] = []
    while True:
        reply = json.loads(ws.recv(timeout=10))
        assert isinstance(reply, dict) and isinstance(reply.get("type"), str), reply
        if reply["type"] == "error" and reply.get("id") == marker:
            return replies
        replies.append(reply)


def test_fuzzed_frames_get_clear_errors_and_leave_the_game_alone(fuzzed: Server) -> None:
    created = fuzzed.create(opponent="hotseat", seat="first")
    game_id, token = created["game_id"], created["tokens"][0]
    before = _snapshot(fuzzed, game_id)
    sent = 0
    acks = 0
    with ws_connect(f"{fuzzed.ws_url}/ws/{game_id}", max_size=None) as ws:
        ws.send(json.dumps({"type": "hello", "version": None, "token": token}))

        @FUZZ
        @given(frame=FRAMES)
        def check(frame: str | bytes) -> None:
            nonlocal sent, acks
            sent += 1
            ws.send(frame)
            marker = f"mark-{sent}"
            ws.send(json.dumps({"type": "action", "action": "pass", "version": -1, "id": marker}))
            replies = _replies_until_marker(ws, marker)
            errors = [r for r in replies if r["type"] == "error"]
            for error in errors:
                assert error["code"] in WS_ERRORS and isinstance(error["message"], str) and error["message"]
            acks += sum(r["type"] == "ack" for r in replies)
            try:
                data = json.loads(frame)
                plain = isinstance(data, dict) and data.get("type") in ("hello", "ping", "action")
            except (ValueError, RecursionError):
                plain = False
            if not plain:
                assert [e["code"] for e in errors] == ["malformed"], (frame, replies)

        check()
    print(f"fuzz: {sent} WebSocket frames")
    assert sent >= EXAMPLES
    summary, record = _snapshot(fuzzed, game_id)
    assert summary["version"] == acks
    if acks == 0:
        assert (summary, record) == before


# ---------------------------------------------------------------- HTTP bodies

BODIES = (
    JSON_VALUES.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=256)
    | st.fixed_dictionaries(
        {},
        optional={
            "opponent": ANY_FIELD | st.sampled_from(["ai", "human", "hotseat"]),
            "level": ANY_FIELD | st.sampled_from(["easy", "expert", "random"]),
            "variant": ANY_FIELD,
            "seat": ANY_FIELD | st.sampled_from(["first", "second"]),
            "name": ANY_FIELD | st.text(alphabet=st.characters(), max_size=50),
            "tokens": ANY_FIELD,
        },
    ).map(lambda d: json.dumps(d).encode())
)
ENDPOINTS = st.sampled_from(["/api/games", "/api/join/not-an-invite", "/api/my-games"])
CONTENT_TYPES = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", ""])


def _clear(answer: httpx.Response) -> None:
    """A success, or an error with a known code and a message; never a server error."""
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        body = answer.json()
        assert body["error"] in HTTP_ERRORS and isinstance(body["message"], str) and body["message"], body


def test_fuzzed_http_bodies_get_clear_errors(fuzzed: Server) -> None:
    created = fuzzed.create(opponent="hotseat", seat="first")
    before = _snapshot(fuzzed, created["game_id"])
    sent = 0
    with httpx.Client(verify=loopback.NO_CA, base_url=fuzzed.url, timeout=10) as http:

        @FUZZ
        @given(path=ENDPOINTS, body=BODIES, content_type=CONTENT_TYPES)
        def check(path: str, body: bytes, content_type: str) -> None:
            nonlocal sent
            sent += 1
            _clear(http.post(path, content=body, headers={"content-type": content_type} if content_type else {}))

        check()
    print(f"fuzz: {sent} HTTP bodies")
    assert sent >= EXAMPLES
    assert _snapshot(fuzzed, created["game_id"]) == before


# ---------------------------------------------------------------- schemathesis


def test_schemathesis_against_the_openapi_description(fuzzed: Server) -> None:
    created = fuzzed.create(opponent="hotseat", seat="first")
    before = _snapshot(fuzzed, created["game_id"])
    schema = schemathesis.openapi.from_url(f"{fuzzed.url}/openapi.json")
    results = list(schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results), results  # every operation's schema is valid
    operations = [result.ok() for result in results if isinstance(result, Ok)]
    assert len(operations) >= 6
    sent = 0
    for operation in operations:

        @settings(FUZZ, max_examples=max(5, EXAMPLES // 12))
        @given(case=operation.as_strategy())
        def check(case: Any) -> None:
            nonlocal sent
            sent += 1
            answer = case.call(base_url=fuzzed.url, timeout=10)
            assert answer.status_code < 500, (case.path, answer.text)
            if answer.status_code >= 400:
                error = answer.json()
                assert error["error"] in HTTP_ERRORS and error["message"], error

        check()
    print(f"fuzz: {sent} schemathesis cases over {len(operations)} operations")
    assert sent >= len(operations) * 5
    assert _snapshot(fuzzed, created["game_id"]) == before
