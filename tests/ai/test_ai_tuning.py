"""Tuning ISMCTS specs: the agent a spec names is rebuilt with other weights, SPSA moves only the
weights that change its play, and ``kahuna tune --agent`` writes weights an ismcts spec loads."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from kahuna.ai.agents.greedy import GreedyAgent
from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, Weights, load_weights
from kahuna.ai.agents.ismcts import IsmctsAgent
from kahuna.ai.commands.tune import with_weights
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.ai.training.tuning import ALL_WEIGHTS, GREEDY_WEIGHTS, SpsaConfig, spsa, weighted_agents
from kahuna.cli import main


def test_weighted_agents_keep_the_spec_and_change_the_weights() -> None:
    base, make, names = weighted_agents("ismcts:iterations=30,c=0.5,playout=1,weights=greedy-tuned")
    assert base == load_weights("greedy-tuned") and names == ALL_WEIGHTS and "scale" in names
    other = Weights(scale=2.0)
    agent = make(other)
    assert isinstance(agent, IsmctsAgent)
    assert agent.config.weights == other
    assert (agent.config.iterations, agent.config.exploration, agent.config.playout_turns) == (30, 0.5, 1)
    base, make, names = weighted_agents("greedy:beam=2,depth=1")
    greedy = make(other)
    assert base == DEFAULT_WEIGHTS and names == GREEDY_WEIGHTS and "scale" not in names
    assert isinstance(greedy, GreedyAgent) and (greedy.beam, greedy.depth, greedy.weights) == (2, 1, other)
    for spec in ("random", "ismcts:workers=2"):
        with pytest.raises(SpecError):
            weighted_agents(spec)


@pytest.mark.slow  # seconds: SPSA steps of ISMCTS games, twice
def test_spsa_tunes_an_ismcts_spec_reproducibly() -> None:
    start = replace(DEFAULT_WEIGHTS, card=0.2)
    _, make, names = weighted_agents("ismcts:iterations=15,playout=1")
    config = SpsaConfig(steps=3, deals=2, seed=4, names=names)
    tuned = spsa(config, start, make=make)
    assert tuned == spsa(config, start, make=make)
    assert tuned != start
    greedy_only = spsa(SpsaConfig(steps=3, deals=2, seed=4), replace(start, scale=2.0))
    assert greedy_only.scale == 2.0  # greedy ignores the scale, so SPSA leaves it alone


def test_with_weights_replaces_the_option() -> None:
    path = Path("w.json")
    assert with_weights("greedy", path) == "greedy:weights=w.json"
    assert with_weights("ismcts:iterations=250,weights=x , c=1", path) == "ismcts:iterations=250, c=1,weights=w.json"


def test_tune_cli_tunes_and_checks_an_ismcts_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, log = tmp_path / "tuned.json", tmp_path / "steps.jsonl"
    argv = ["tune", "--agent", "ismcts:iterations=10,playout=1", "--steps", "2", "--deals", "1"]
    argv += ["--out", str(out), "--check-games", "2", "--check-seed", "9", "--log", str(log)]
    assert main(argv) == 0
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["tuning"]["agent"] == "ismcts:iterations=10,playout=1"
    assert [json.loads(line)["step"] for line in log.read_text(encoding="utf-8").splitlines()] == [1, 2]
    agent = make_agent(f"ismcts:iterations=10,weights={out}")
    assert isinstance(agent, IsmctsAgent) and agent.config.weights == Weights.from_json(saved["weights"])
    assert "held-out (arena seed 9, 2 games)" in capsys.readouterr().out
    assert main(["tune", "--agent", "random", "--out", str(out)]) == 2


def test_hard_and_expert_play_with_the_shipped_ismcts_weights() -> None:
    tuned = load_weights("ismcts-tuned")
    assert tuned != DEFAULT_WEIGHTS
    for level, iterations in (("hard", 250), ("expert", 1500)):
        agent = make_agent(level)
        assert isinstance(agent, IsmctsAgent)
        assert (agent.config.iterations, agent.config.weights) == (iterations, tuned)
