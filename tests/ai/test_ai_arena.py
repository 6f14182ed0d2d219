"""The arena's plumbing: a few quick games, JSON tallies, records that replay, forfeits, workers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kahuna.ai import AgentError
from kahuna.ai.base import Agent, RandomAgent
from kahuna.ai.registry import FACTORIES
from kahuna.ai.stats import elo_difference, elo_ladder, percentile, wilson_interval
from kahuna.cli import main
from kahuna.rules import Action, GameRecord, PlayerView


def last_json(text: str) -> dict[str, object]:
    result = json.loads(text.strip().splitlines()[-1])
    assert isinstance(result, dict)
    return result


def test_two_agents_json_and_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games"
    code = main(["arena", "greedy", "random", "--games", "4", "--seed", "3", "--json", "--records", str(records)])
    out = capsys.readouterr().out
    assert code == 0
    summary = last_json(out)
    assert summary["games"] == 4
    agents = summary["agents"]
    assert isinstance(agents, dict) and set(agents) == {"greedy", "random"}
    assert agents["greedy"]["wins"] == agents["random"]["losses"]
    assert sum(agents["greedy"].values()) == 4
    assert "95% interval" in out and "time per turn" in out
    files = sorted(records.iterdir())
    assert len(files) == 4
    for path in files:
        record = GameRecord.loads(path.read_text(encoding="utf-8"))
        final = record.replay()
        assert final.outcome is not None
        assert final.outcome.to_json() == {k: record.meta["result"][k] for k in ("winner", "reason")}
    first, second = (GameRecord.loads(p.read_text(encoding="utf-8")) for p in files[:2])
    assert first.deal == second.deal and first.players is not None and second.players is not None
    assert first.players == second.players[::-1]


def test_variant_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "greedy", "random", "--games", "2", "--variant", "replace_on_remove", "--records", str(tmp_path)]
    assert main(argv) == 0
    for path in sorted(tmp_path.iterdir()):
        record = GameRecord.loads(path.read_text(encoding="utf-8"))
        assert record.variant.names == ["replace_on_remove"]
        assert record.replay().outcome is not None


def test_round_robin_has_a_pairing_per_pair_and_a_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "random", "greedy", "random", "--games", "2", "--json", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    summary = last_json(out)
    pairings = summary["pairings"]
    assert isinstance(pairings, list) and len(pairings) == 3
    assert set(pairings[1]["agents"]) == {"random", "random#2"}
    assert "Elo ladder" in out


def test_same_seed_same_results(capsys: pytest.CaptureFixture[str]) -> None:
    main(["arena", "easy", "random", "--games", "4", "--seed", "9", "--json"])
    first = last_json(capsys.readouterr().out)
    main(["arena", "easy", "random", "--games", "4", "--seed", "9", "--json", "--jobs", "2"])
    assert last_json(capsys.readouterr().out) == first


class CrashesOnThirdMove:
    """Plays randomly, then gives up: a bot that times out or crashes."""

    name = "crashy"

    def __init__(self) -> None:
        self.moves = 0

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        self.moves += 1
        if self.moves == 3:
            raise AgentError("bot stopped answering")
        return RandomAgent().choose(view, rng)


def crashy(options: str) -> Agent:
    return CrashesOnThirdMove()


def test_an_agent_error_loses_that_game_and_the_arena_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(FACTORIES, "crashy", f"{__name__}:crashy")
    assert main(["arena", "crashy", "random", "--games", "4", "--json"]) == 0
    out = capsys.readouterr().out
    agents = last_json(out)["agents"]
    assert isinstance(agents, dict)
    assert agents["crashy"] == {"wins": 0, "losses": 4, "draws": 0}
    assert out.count("forfeits: bot stopped answering") == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arena", "greedy"], "at least two"),
        (["arena", "greedy", "nobody"], "unknown agent"),
        (["arena", "greedy", "random", "--games", "0"], "--games"),
        (["arena", "ismcts:iterations=x", "random"], "needs a value of type int"),
        (["arena", "greedy", "random", "--variant", "bogus"], "unknown variant"),
    ],
)
def test_user_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_statistics() -> None:
    low, high = wilson_interval(0.5, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert wilson_interval(1.0, 10)[1] == pytest.approx(1.0) and wilson_interval(1.0, 10)[0] > 0.65
    assert round(elo_difference(0.75)) == 191
    assert elo_difference(1.0) == 800 and elo_difference(0.0) == -800
    ladder = elo_ladder(3, {(0, 1): (10, 30, 0), (0, 2): (2, 38, 0), (1, 2): (10, 30, 0)})
    assert ladder[0] == 0 and ladder[0] < ladder[1] < ladder[2]
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0 and percentile([1.0] * 99 + [9.0], 0.99) == 1.0
