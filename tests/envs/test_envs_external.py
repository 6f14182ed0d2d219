"""External bots through the bot protocol, in the arena."""

from __future__ import annotations

import random
import shlex
import sys
from pathlib import Path

import pytest

from kahuna.ai.agents.external import ExternalAgent, parse_command
from kahuna.ai.base import AgentError
from kahuna.ai.eval.arena import GameTask, play_task, run_tasks
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.rules import GameRecord, GameState, view_of

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
PYTHON = shlex.quote(sys.executable)


def python_bot(code: str) -> str:
    """The ``cmd:`` spec of a bot given as Python source."""
    return f"cmd:timeout=5 {PYTHON} -c {shlex.quote(code)}"


def task(specs: tuple[str, str], game: int = 0) -> GameTask:
    return GameTask(pairing=0, game=game, specs=specs, seed=3, deal=game // 2, swapped=bool(game % 2), keep_record=True)


def test_a_full_arena_game_with_the_example_bot() -> None:
    outcome = play_task(task((f"cmd:{PYTHON} {shlex.quote(str(EXAMPLE_BOT))}", "random")))
    result = outcome.result
    assert result.forfeit is None and result.reason != "forfeit"
    assert result.record is not None
    final = GameRecord.loads(result.record).replay()
    assert final.is_over and len(final.history) == result.actions


def test_a_crashing_bot_forfeits_with_its_last_words_and_the_arena_carries_on() -> None:
    crash = python_bot("import sys; sys.stdin.readline(); sys.stdin.readline(); sys.exit('bot fell over')")
    outcomes = list(run_tasks([task((crash, "random"), game=0), task((crash, "random"), game=1)], jobs=1))
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert outcome.result.reason == "forfeit"
        assert outcome.result.winner == 1 - outcome.first_seat
        assert outcome.result.forfeit is not None
        assert "exited (status 1)" in outcome.result.forfeit and "bot fell over" in outcome.result.forfeit


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("import time; time.sleep(30)", "gave no answer within 0.5 s"),
        ("import sys\nfor line in sys.stdin: print('build a bridge', flush=True)", "answered 'build a bridge'"),
        (
            'import sys\nfor line in sys.stdin: print(\'{"action": "end"}\', flush=True)',
            "answered '{.*end.*}', which is not",
        ),
    ],
)
def test_silent_or_nonsense_bots_raise_agent_error(code: str, message: str) -> None:
    agent = make_agent(python_bot(code).replace("timeout=5", "timeout=0.5"))
    state = GameState.new(random.Random(1))
    with pytest.raises(AgentError, match=message):
        agent.choose(view_of(state, state.to_move), random.Random(0))
    assert isinstance(agent, ExternalAgent) and agent._process is None  # killed


def test_a_missing_program_is_a_clear_error() -> None:
    agent = make_agent("cmd:no-such-kahuna-bot --fast")
    with pytest.raises(AgentError, match="cannot start bot 'no-such-kahuna-bot --fast'"):
        agent.choose(view_of(GameState.new(random.Random(2)), 0), random.Random(0))


def test_close_ends_the_bot() -> None:
    agent = make_agent(f"cmd:{PYTHON} {shlex.quote(str(EXAMPLE_BOT))}")
    assert isinstance(agent, ExternalAgent)
    state = GameState.new(random.Random(4))
    agent.choose(view_of(state, 0), random.Random(0))
    process = agent._process
    assert process is not None and process.poll() is None
    agent.close()
    assert process.poll() == 0  # the example bot leaves its loop on "end"


@pytest.mark.parametrize("text", ["", "timeout=0 bot", "timeout=soon bot", '"unclosed'])
def test_bad_commands_are_spec_errors(text: str) -> None:
    with pytest.raises(SpecError):
        make_agent("cmd:" + text)


def test_parse_command_reads_the_timeout() -> None:
    assert parse_command("timeout=2.5 python3 bot.py --level 3") == (["python3", "bot.py", "--level", "3"], 2.5)
    assert parse_command("./bot") == (["./bot"], 10.0)
