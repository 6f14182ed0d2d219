"""``kahuna serve --metrics-listen``: a scrape during play, on its own address, with counters that move."""

from __future__ import annotations

import random
from pathlib import Path

import loopback
from prometheus_client.parser import text_string_to_metric_families
from server_harness import Player, Server, free_port, play_random, run, wait_for


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the scrape, by name and labels."""
    response = loopback.get(url, timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_a_scrape_during_play_sees_the_counters_move(tmp_path: Path) -> None:
    port = free_port()
    metrics_url = f"http://127.0.0.1:{port}/metrics"
    server = Server(
        tmp_path, args=("--metrics-listen", f"127.0.0.1:{port}", "--limit", "games_burst=2", "--ai-workers", "1")
    )
    try:
        server.start()
        before = scrape(metrics_url)
        assert before[("kahuna_actions_total", ())] == 0
        game = server.create(opponent="hotseat", seat="first")
        during: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}

        async def play() -> None:
            seats = {s: await Player.join(server, game["game_id"], game["tokens"][s]) for s in (0, 1)}
            await play_random(seats, [], random.Random(5), 12)
            during.update(scrape(metrics_url))  # both sockets still open
            for seat in seats.values():
                await seat.conn.close()

        run(play())
        assert during[("kahuna_actions_total", ())] == 12
        assert during[("kahuna_websockets", (("kind", "game"),))] == 2
        assert during[("kahuna_games_held", ())] >= 1
        assert during[("kahuna_commit_seconds_count", ())] > before[("kahuna_commit_seconds_count", ())]
        assert during[("kahuna_http_requests_total", (("route", "/api/games"), ("status", "201")))] == 1
        assert during[("process_resident_memory_bytes", ())] > 0
        assert ("process_cpu_seconds_total", ()) in during

        server.create(opponent="ai", level="random", seat="second", name="Alice")  # the AI moves first
        assert server.post("/api/games", {"opponent": "hotseat", "seat": "first"}).status_code == 429
        # The AI's wait is observed when its search returns, before its action is stored: wait for both.
        wait_for(
            lambda: scrape(metrics_url).get(("kahuna_ai_wait_seconds_count", (("lane", "count"),)), 0) >= 1,
            "the AI's move to be counted",
        )
        wait_for(lambda: scrape(metrics_url)[("kahuna_actions_total", ())] >= 13, "the AI's action to be stored")
        after = scrape(metrics_url)
        assert after[("kahuna_rate_limited_total", (("budget", "games"),))] == 1
        assert after[("kahuna_http_requests_total", (("route", "unrouted"), ("status", "429")))] == 1
        wait_for(lambda: scrape(metrics_url)[("kahuna_websockets", (("kind", "game"),))] == 0, "the sockets to close")
        assert server.get("/metrics").status_code == 404  # never on the public address
    finally:
        server.stop()


def test_a_wrong_metrics_address_is_refused_before_serving(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "kahuna", "serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 'k.db'}",
         "--metrics-listen", "9100"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "kahuna serve: --metrics-listen: '9100' is not HOST:PORT (e.g. 127.0.0.1:9100)" in done.stderr
    assert not (tmp_path / "k.db").exists()  # refused before the database was opened
