"""The arena's plumbing: a few quick games, JSON tallies, records that replay, forfeits, workers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kahuna.ai import AgentError
from kahuna.ai.base import Agent, RandomAgent
from kahuna.ai.eval.arena import GameOutcome, GameTask, PairingTally
from kahuna.ai.eval.match import GameResult, play_game
from kahuna.ai.eval.stats import elo_difference, elo_ladder, paired_interval, percentile
from kahuna.ai.registry import FACTORIES
from kahuna.cli import main
from kahuna.clock import TimeControl
from kahuna.rules import Action, GameRecord, GameState, PlayerView


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
    assert sum(agents["greedy"][k] for k in ("wins", "losses", "draws")) == 4
    assert summary["deals"] == 2
    low, high = agents["greedy"]["interval95"]
    assert [round(1 - high, 4), round(1 - low, 4)] == agents["random"]["interval95"]
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
    assert isinstance(agents["crashy"], dict)
    assert {k: agents["crashy"][k] for k in ("wins", "losses", "draws")} == {"wins": 0, "losses": 4, "draws": 0}
    assert out.count("forfeits: bot stopped answering") == 4


class BuggyOnThirdMove:
    """An agent with a bug: its third move divides by zero, and closing it fails too."""

    name = "buggy"

    def __init__(self) -> None:
        self.moves = 0

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        self.moves += 1
        _ = 1 // (3 - self.moves)  # the bug: at the third move
        return RandomAgent().choose(view, rng)

    def close(self) -> None:
        raise OSError("disk gone")


def buggy(options: str) -> Agent:
    return BuggyOnThirdMove()


BUILT = {"count": 0}


def builds_once(options: str) -> Agent:
    """Builds for the arena's check of the specs, then fails: an agent that breaks in the worker."""
    BUILT["count"] += 1
    if BUILT["count"] > 1:
        raise ImportError("no module named 'gone'")
    return RandomAgent()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_any_agent_exception_costs_that_game_only(
    jobs: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(FACTORIES, "buggy", f"{__name__}:buggy")
    assert main(["arena", "random", "buggy", "--games", "4", "--json", "--jobs", jobs]) == 0
    out = capsys.readouterr().out
    agents = last_json(out)["agents"]
    assert isinstance(agents, dict) and isinstance(agents["random"], dict)
    assert agents["random"]["wins"] == 4
    assert out.count("(White forfeits: crashed: ZeroDivisionError: integer division or modulo by zero)") == 2
    assert out.count("(Black forfeits: crashed: ZeroDivisionError") == 2
    assert out.count("note, game ") == 4 and "buggy failed to close: OSError: disk gone" in out


def test_an_agent_that_cannot_be_built_forfeits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(FACTORIES, "flaky", f"{__name__}:builds_once")
    monkeypatch.setitem(BUILT, "count", 0)
    assert main(["arena", "flaky", "random", "--games", "2", "--json"]) == 0
    out = capsys.readouterr().out
    agents = last_json(out)["agents"]
    assert isinstance(agents, dict) and isinstance(agents["random"], dict) and agents["random"]["wins"] == 2
    assert out.count("forfeits: could not be built: ImportError: no module named 'gone'") == 2


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


def test_paired_interval() -> None:
    # Every deal split 1-1: no spread between deals, so the Wilson interval of 100 independent games.
    low, high = paired_interval([0.5] * 50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    # 100 % over 5 deals: Wilson over the 10 games, sound at the edge.
    low, high = paired_interval([1.0] * 5, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.7225, abs=1e-4)
    # Each deal won twice by one agent or the other: the two games of a deal say one thing, so the
    # interval is that of 50 independent units (Wilson over 50), not of 100 games.
    low, high = paired_interval([1.0] * 25 + [0.0] * 25, 100)
    assert low == pytest.approx(0.3664, abs=1e-4) and high == pytest.approx(0.6336, abs=1e-4)
    # In between: some deals split, more won twice by one side: 61.25 effective games.
    mixed = paired_interval([1.0] * 20 + [0.5] * 10 + [0.0] * 20, 100)
    assert mixed[0] == pytest.approx(0.3785, abs=1e-4) and mixed[1] == pytest.approx(0.6215, abs=1e-4)
    assert paired_interval([], 0) == (0.0, 1.0)


def test_the_tally_pairs_the_two_games_of_a_deal() -> None:
    tally = PairingTally(("a", "b"))
    for deal in range(20):
        for swapped in (False, True):
            task = GameTask(0, 2 * deal + swapped, ("a", "b"), 0, deal, swapped, False)
            first_seat = 1 if swapped else 0
            winner = first_seat if deal % 2 == 0 else 1 - first_seat  # a wins both games of even deals
            tally.add(GameOutcome(task, GameResult(winner, "points", 1)))
    assert (tally.wins, tally.losses, tally.games, len(tally.deal_scores)) == (20, 20, 40, 20)
    assert tally.interval() == paired_interval([1.0, 0.0] * 10, 40)
    assert tally.interval()[1] - tally.interval()[0] > 0.3  # 20 units: wider than 40 games would give


def test_statistics() -> None:
    assert round(elo_difference(0.75)) == 191
    assert elo_difference(1.0) == 800 and elo_difference(0.0) == -800
    ladder = elo_ladder(3, {(0, 1): (10, 30, 0), (0, 2): (2, 38, 0), (1, 2): (10, 30, 0)})
    assert ladder[0] == 0 and ladder[0] < ladder[1] < ladder[2]
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0 and percentile([1.0] * 99 + [9.0], 0.99) == 1.0


class _Slow:
    """A random player that takes ``seconds`` of ``clock`` per choice."""

    def __init__(self, seconds: float, clock: _Clock) -> None:
        self.name = "slow"
        self.seconds = seconds
        self.clock = clock
        self.inner = RandomAgent()

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        self.clock.now += self.seconds
        return self.inner.choose(view, rng)


class _Clock:
    """A clock that moves only when a player thinks (the quick and random players take no time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_on_a_clock_a_slow_seat_loses_on_time_unless_it_plays_quickly_when_short() -> None:
    """One second each, 20 ms of the game's clock per choice (no real time passes): about 3 s of
    thinking a game. Without a quick fallback the slow seat runs out; with one (as the arena, the
    server and the terminal give every level) it switches in time and the game ends on the board."""
    clock = TimeControl(initial=1, increment=0)
    now = _Clock()
    slow, quick = _Slow(0.02, now), RandomAgent()
    state = GameState.new(random.Random(4))
    result = play_game(
        (slow, quick), state, (random.Random(1), random.Random(2)), clock=clock, quick=(slow, quick), now=now
    )
    assert (result.winner, result.reason) == (1, "timeout")
    record = GameRecord.of(state)
    assert record.termination is not None and record.termination.to_json() == {"reason": "timeout", "seat": 0}
    now = _Clock()
    slow = _Slow(0.02, now)
    state = GameState.new(random.Random(4))
    result = play_game(
        (slow, quick), state, (random.Random(1), random.Random(2)), clock=clock, quick=(quick, quick), now=now
    )
    assert result.reason != "timeout" and state.termination is None


def test_the_arena_lists_timeouts_and_refuses_bad_clocks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "random", "easy", "--games", "2", "--clock", "1+0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["timeouts"] == 0
    assert main(["arena", "random", "easy", "--games", "2", "--clock", "0+1"]) == 2
    assert "--clock: initial time must be" in capsys.readouterr().err
