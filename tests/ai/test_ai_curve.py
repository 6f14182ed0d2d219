"""The strength curve: Elo differences chained between neighbours, intervals that widen, the plot."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import strength_curve

from kahuna.ai.eval.curve import Step, chain, svg, table


def test_the_chain_adds_elo_and_variances() -> None:
    even = Step(games=20, wins=10, losses=10, draws=0, low=0.3, high=0.7)
    ahead = Step(games=20, wins=15, losses=5, draws=0, low=0.55, high=0.9)
    points = chain(["a", "b", "c"], [1, 10, 100], 20, 0, 1, steps=[even, ahead])
    assert [p.elo for p in points][:2] == [0.0, 0.0]
    assert points[2].elo == pytest.approx(400 * math.log10(3))
    # The interval of c holds both steps' uncertainty: wider than either alone.
    assert points[2].high - points[2].low > points[1].high - points[1].low
    assert points[2].high - points[2].low > 2 * 1.959964 * ahead.elo_se
    assert points[1].low < 0 < points[1].high


def test_a_real_chain_plays_its_matches() -> None:
    points = chain(["random", "greedy:depth=0,beam=1"], [1, 2], 2, 3, 1)
    assert points[1].step is not None and points[1].step.games == 2
    assert points[0].turn_seconds >= 0 and points[1].turn_seconds >= 0


def test_table_and_plot() -> None:
    steps = [Step(20, 12, 8, 0, 0.4, 0.75), Step(20, 13, 7, 0, 0.45, 0.8)]
    points = chain(["a", "b", "c"], [500, 1500, 5000], 20, 0, 1, steps=steps)
    text = table(points, "iterations")
    assert text.count("\n") == 4 and "12–8–0" in text and "| 5000 |" in text
    root = ET.fromstring(svg(points, "iterations", "curve <test>"))
    assert root.tag.endswith("svg")
    assert len([e for e in root.iter() if e.tag.endswith("circle")]) == 3


def test_the_command_redraws_from_a_saved_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "run.json"
    steps = [vars(Step(20, 12, 8, 0, 0.4, 0.75))]
    saved.write_text('{"steps": ' + str(steps).replace("'", '"') + "}\n")
    plot = tmp_path / "curve.svg"
    code = strength_curve.main(
        ["--spec", "net:iterations={x}", "--x", "500", "1500", "--steps", str(saved), "--svg", str(plot)]
    )
    assert code == 0
    assert "12–8–0" in capsys.readouterr().out
    assert plot.read_text().startswith("<svg")
