"""The HTTP API against a real server: creating, joining, listing, records, validation errors."""

from __future__ import annotations

import loopback
from server_harness import Server

from kahuna.ai.levels import LEVELS


def test_create_ai_game_gives_a_seat_link_and_no_invite(server: Server) -> None:
    created = server.create(opponent="ai", level="random", seat="second", name="Alice")
    assert created["seat"] == 1
    assert len(created["token"]) >= 32  # 24 random bytes
    assert created["seat_url"] == f"/play/{created['game_id']}#{created['token']}"
    assert created["spectator_url"] == f"/watch/{created['game_id']}"
    assert created["invite_url"] is None and created["tokens"] is None
    summary = server.get(f"/api/games/{created['game_id']}").json()
    assert summary["players"] == ["Kahuna AI (random)", "Alice"]
    assert summary["kinds"] == ["ai:random", "human"]
    assert summary["status"] == "playing"


def test_invite_is_used_once_and_starts_the_game(server: Server) -> None:
    created = server.create(opponent="human", seat="first", name="Alice", variant=["replace_on_remove"])
    game_id = created["game_id"]
    summary = server.get(f"/api/games/{game_id}").json()
    assert summary["status"] == "waiting" and summary["players"] == ["Alice", None]
    assert summary["variant"] == {"no_build_at_enemy_stone": False, "replace_on_remove": True}
    invite = created["invite_url"].removeprefix("/join/")
    joined = server.post(f"/api/join/{invite}", {"name": "Bob"})
    assert joined.status_code == 200
    assert joined.json()["seat"] == 1 and joined.json()["game_id"] == game_id
    assert joined.json()["token"] != created["token"]
    again = server.post(f"/api/join/{invite}", {"name": "Eve"})
    assert again.status_code == 409 and again.json()["error"] == "taken"
    assert server.get(f"/api/games/{game_id}").json()["status"] == "playing"
    assert server.post("/api/join/not-an-invite", {"name": "Eve"}).status_code == 404


def test_hotseat_gives_both_tokens(server: Server) -> None:
    created = server.create(opponent="hotseat", seat="random")
    tokens = created["tokens"]
    assert len(tokens) == 2 and tokens[created["seat"]] == created["token"]
    mine = server.post("/api/my-games", {"tokens": [*tokens, "unknown-token"]}).json()
    assert sorted(g["seat"] for g in mine) == [0, 1]
    assert {g["game_id"] for g in mine} == {created["game_id"]}
    assert all(g["token"] == tokens[g["seat"]] for g in mine)


def test_unfinished_game_has_only_a_public_record(server: Server) -> None:
    created = server.create(opponent="ai", level="random", seat="second")
    record = server.get(f"/api/games/{created['game_id']}/record").json()
    assert record["format"] == "kahuna-public-record/1"
    assert "deal" not in record and "reshuffles" not in record
    assert record["version"] == len(record["actions"])
    early = server.get(f"/api/games/{created['game_id']}/replay")
    assert early.status_code == 409 and early.json()["error"] == "not_over"


def test_bad_requests_get_json_errors(server: Server) -> None:
    bad_level = server.post("/api/games", {"opponent": "ai", "level": "supergrandmaster"})
    assert bad_level.status_code == 422 and bad_level.json()["error"] == "invalid"
    assert "level" in bad_level.json()["message"]
    bad_variant = server.post("/api/games", {"opponent": "ai", "variant": ["no_such_rule"]})
    assert bad_variant.status_code == 422
    long_name = server.post("/api/games", {"opponent": "ai", "name": "x" * 41})
    assert long_name.status_code == 422
    not_json = loopback.post(server.url + "/api/games", content=b"{oops", headers={"content-type": "application/json"})
    assert not_json.status_code == 400 and not_json.json()["error"] == "bad_request"
    huge = loopback.post(
        server.url + "/api/my-games", content=b" " * 70_000, headers={"content-type": "application/json"}
    )
    assert huge.status_code == 413 and huge.json()["error"] == "too_large"
    missing = server.get("/api/games/nope")
    assert missing.status_code == 404 and missing.json() == {"error": "not_found", "message": "no game 'nope'"}
    assert server.get("/api/nothing-here").json()["error"] == "not_found"


def test_openapi_is_served_without_third_party_pages(server: Server) -> None:
    assert server.get("/docs").status_code == 404  # Swagger UI loaded scripts from a CDN onto this origin
    paths = server.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/join/{invite}", "/api/my-games", "/api/games/{game_id}/record"} <= set(paths)


def test_the_levels_offered_come_from_the_ai_package(server: Server) -> None:
    assert server.get("/api/levels").json() == {"levels": ["random", *LEVELS]}
