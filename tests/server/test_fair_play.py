"""Fair play (issue 49, docs/fair-play.md): a rated game between two accounts on a real server is
screened in the background into each player's figures, and with a threshold low enough (a test's
``--limit fair_play_match``) into automatic ``cheating`` reports that a moderator sees, with the
figures, on the report and on the player, and the players never do; a game is screened once,
whoever claims it (the claims on a database of its own, two screeners and a killed one)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import loopback
import pytest
from server_harness import Server, wait_for
from sqlalchemy import func, insert, select
from test_lobby import Stop, resign, turns_ended
from test_moderation import moderator
from test_social import rated_seats

from kahuna.ai.registry import make_agent
from kahuna.bench.lobby import new_account
from kahuna.bot.client import play_seat
from kahuna.rules import PlayerView
from kahuna.server.db.schema import accounts, fair_play_figures, fair_play_games, games, reports
from kahuna.server.db.store import open_engine
from kahuna.server.fairplay import queue, verdict
from kahuna.server.fairplay.figures import Thresholds


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = ("fair_play_match=0.01", "fair_play_min_games=1", "fair_play_iterations=40", "logins_burst=100")
    running = Server(tmp_path_factory.mktemp("fairplay"), args=tuple(p for a in limits for p in ("--limit", a))).start()
    yield running
    running.stop()


TURNS = 8
"""Turns played before a seat resigns: enough real choices for figures, a few seconds of play."""


def master_until(turns: int, seed: int) -> Any:
    """A chooser that plays ``master``'s moves (most of them the judge's first choice) until
    ``turns`` turns have ended, then stops."""
    agent, rng = make_agent("master"), random.Random(seed)

    def choose(view: dict[str, Any], _legal: list[str]) -> str:
        if turns_ended(view["history"]) >= turns:
            raise Stop
        return agent.choose(PlayerView.from_json(view), rng).token

    return choose


def automatic(mod: Any) -> dict[str, dict[str, Any]]:
    """The open reports the screening filed, by the player reported."""
    found = mod.get("/api/mod/reports").json()["reports"]
    return {r["username"]: r for r in found if r["reporter"] == "kahuna"}


def test_a_rated_game_between_two_people_is_screened_into_reports_that_only_moderators_see(server: Server) -> None:
    names = ["fp-ann", "fp-bob"]

    async def rated_game() -> tuple[list[dict[str, str]], str]:
        headers = [await new_account(server.url, name) for name in names]
        seats = await rated_seats(server.url, headers)
        plays = [
            asyncio.create_task(play_seat(server.url, s["game_id"], s["token"], master_until(TURNS, i)))
            for i, s in enumerate(seats)
        ]
        done, _ = await asyncio.wait(plays, return_when=asyncio.FIRST_EXCEPTION)
        assert all(isinstance(task.exception(), Stop) for task in done)
        await resign(server.url, seats[0]["game_id"], seats[0]["token"])
        for task in plays:
            task.cancel()
        return headers, seats[0]["game_id"]

    headers, game_id = asyncio.run(rated_game())
    mod = moderator(server, "fp-mod")
    wait_for(lambda: set(automatic(mod)) == set(names), "both players reported by the screening")
    for report in automatic(mod).values():
        assert report["reason"] == "cheating" and report["context"]["flagged_at_games"] == 1
        figures = report["context"]["fair_play"]
        assert (figures["games"], figures["threshold"]) == (1, 0.01)
        assert figures["choices"] > 0 and 0 <= figures["matched"] <= figures["choices"]
        low, high = figures["interval"]
        assert 0.01 <= low <= figures["match_rate"] <= high
        (game,) = figures["by_game"]
        assert game["game_id"] == game_id and game["actions"] >= game["choices"]
        assert report["target"]["fair_play"]["games"] == 1  # on the player too
        assert str(figures["matched"]) in report["note"]
    shown = mod.get("/api/mod/players/fp-ann/fair-play").json()  # any player's, for a moderator
    assert shown["games"] == 1 and shown["by_game"][0]["game_id"] == game_id
    assert mod.get("/api/mod/players/nobody-here/fair-play").status_code == 404
    for header, name in zip(headers, names, strict=True):  # the players see nothing of it
        assert loopback.get(f"{server.url}/api/mod/players/{name}/fair-play", headers=header).status_code == 404
        mine = loopback.get(f"{server.url}/api/me/reports", headers=header).json()["reports"]
        assert mine == []
        assert loopback.get(f"{server.url}/api/me/sanctions", headers=header).json()["sanctions"] == []
        for path in ("/api/me", f"/api/users/{name}"):
            assert "fair" not in loopback.get(f"{server.url}{path}", headers=header).text
    engine = open_engine(server.db)
    with engine.connect() as conn:  # screened once: one row done, one figure row per player
        assert conn.execute(select(fair_play_games.c.status)).scalars().all() == ["done"]
        assert conn.execute(select(func.count()).select_from(fair_play_figures)).scalar() == 2
    engine.dispose()
    assert '"event":"fair_play_screened"' in server.log()


def test_a_game_is_screened_once_whoever_claims_it_and_a_killed_screeners_claim_lapses(tmp_path: Path) -> None:
    claims_and_reports(f"sqlite:///{tmp_path / 'claims.db'}")


def claims_and_reports(url: str) -> None:
    """Two screeners, a killed one and its late return on the queue of ``url``'s database, then
    the automatic report filed, updated and not filed (``test_pg_fair_play.py`` on PostgreSQL)."""
    engine = open_engine(url)
    found = {"choices": 30, "matched": 20, "loss": 0.3}
    with engine.begin() as conn:
        for game_id in ("g1", "g2"):
            row = {"created": "", "updated": "", "variant": "{}", "deal": "", "kind0": "human", "kind1": "human"}
            conn.execute(insert(games).values(id=game_id, status="over", **row))
            conn.execute(insert(fair_play_games).values(game_id=game_id, status="pending", queued=1.0))
        person: dict[str, Any] = {"username": "x", "username_key": "x", "created": "", "is_bot": False}
        player = int(conn.execute(insert(accounts).values(**person).returning(accounts.c.id)).scalar_one())
        figures = {player: (0, found, 0.0)}
        assert queue.claim(conn, "a", 100.0) == "g1"
        assert queue.claim(conn, "b", 100.0) == "g2"  # g1 is held: the next one
        assert queue.claim(conn, "c", 100.0) is None
        assert queue.finish(conn, "g2", "b", figures, 101.0)
        assert not queue.finish(conn, "g2", "b", figures, 102.0)  # done already
        # "a" is killed: its claim lapses and "c" takes g1 over; "a" coming back stores nothing
        late = 100.0 + queue.LEASE_SECONDS + 1
        assert queue.claim(conn, "c", late) == "g1"
        assert not queue.finish(conn, "g1", "a", figures, late)
        assert queue.finish(conn, "g1", "c", figures, late)
        assert queue.claim(conn, "a", late + 1) is None
        stored = conn.execute(select(fair_play_figures.c.game_id, fair_play_figures.c.figures)).all()
        assert sorted(game for game, _ in stored) == ["g1", "g2"]
        assert all(json.loads(text) == found for _, text in stored)
        assert queue.backlog(conn) == 0
        # two games over the threshold: one report, updated, that says when it was first filed
        assert verdict.review(conn, [player], Thresholds(match=0.2, z=1.0, min_games=3)) == []  # two games: too few
        strict = Thresholds(window=40, match=0.2, z=1.0, min_games=2)
        (first,) = verdict.review(conn, [player], strict)
        assert verdict.review(conn, [player], strict) == [first]
        context = json.loads(conn.execute(select(reports.c.context)).scalar_one())
        assert context["flagged_at_games"] == 2 and context["fair_play"]["games"] == 2
        assert verdict.review(conn, [player], Thresholds(match=0.9)) == []  # under it: nothing filed
    engine.dispose()
