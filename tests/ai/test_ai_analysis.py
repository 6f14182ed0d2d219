"""Post-game analysis: the CLI on the worked examples, a clearly best move, and no peeking."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from kahuna.ai.eval.calibration import Sample, reliability
from kahuna.ai.review.analysis import THRESHOLDS, Budget, analyse, classify, decisions, judge
from kahuna.ai.review.hints import hint, reason
from kahuna.ai.review.wingraph import win_graph
from kahuna.cli import main
from kahuna.rules import GameRecord, GameState, parse, view_of
from kahuna.rules.board import LETTERS, LINE_NAMES

EXAMPLES = sorted((Path(__file__).parents[1] / "rules" / "examples").glob("*.record.json"))
CLASSES = {"best", "inaccuracy", "mistake", "blunder"}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name.split(".")[0])
def test_cli_json_has_one_entry_per_action_with_seats_and_forced_steps(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "analyse", str(path), "--budget", "12", "--json", "--seed", "3")
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    record = GameRecord.loads(path.read_text())
    expected: list[tuple[int, bool]] = []
    record.replay(before_each=lambda step, state: expected.append((state.to_move, len(state.legal_actions()) == 1)))
    moves = result["moves"]
    assert [m["step"] for m in moves] == list(range(len(record.actions)))
    assert [m["played"] for m in moves] == record.actions
    assert [m["seat"] for m in moves] == [seat for seat, _ in expected]
    for move, (_, forced) in zip(moves, expected, strict=True):
        assert {"step", "seat", "played", "best", "win_played", "win_best", "class"} <= move.keys()
        if forced:
            assert move["class"] == "forced" and move["iterations"] == 0
            assert move["best"] == move["played"] and move["win_played"] is None
        else:
            assert move["class"] in CLASSES
            assert 0.0 <= move["win_played"] <= 1.0 and 0.0 <= move["win_best"] <= 1.0
            assert move["class"] == classify(max(0.0, move["win_best"] - move["win_played"]))
            assert move["iterations"] >= 12
    summary = result["summary"]
    for seat in ("0", "1"):
        mine = [m for m in moves if m["seat"] == int(seat)]
        assert summary[seat]["actions"] == len(mine)
        assert summary[seat]["forced"] == sum(m["class"] == "forced" for m in mine)
        assert sum(summary[seat][c] for c in CLASSES) + summary[seat]["forced"] == len(mine)


def test_examples_include_forced_steps() -> None:
    # The forced-step branch of the test above must be exercised by at least one example.
    forced = 0
    for path in EXAMPLES:
        record = GameRecord.loads(path.read_text())
        forced += sum(len(legal_actions) == 1 for legal_actions in _legal_counts(record))
    assert forced > 0


def _legal_counts(record: GameRecord) -> list[list[str]]:
    out: list[list[str]] = []
    record.replay(before_each=lambda step, state: out.append([a.token for a in state.legal_actions()]))
    return out


def test_jobs_do_not_change_the_analysis() -> None:
    record = GameRecord.loads(EXAMPLES[0].with_name("standard-no-bridges.record.json").read_text())
    one = [m.to_json() for m in analyse(record, Budget(iterations=15), seed=5, jobs=1)]
    two = [m.to_json() for m in analyse(record, Budget(iterations=15), seed=5, jobs=2)]
    assert one == two


def test_bad_records_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "kahuna-record/1"}')
    code, _, err = run_cli(capsys, "analyse", str(bad))
    assert code == 2 and "bad record" in err
    record = json.loads(EXAMPLES[0].read_text())
    record["actions"] = [*record["actions"][:3], "xAB:AB", *record["actions"][3:]]
    bad.write_text(json.dumps(record))
    code, _, err = run_cli(capsys, "analyse", str(bad))
    assert code == 2 and "step 3" in err
    code, _, err = run_cli(capsys, "analyse", str(EXAMPLES[0]), "--budget", "0")
    assert code == 2


def sweep_position() -> GameState:
    """Black to move holds an I: building IFFI–JOJO claims both islands and sends three White
    bridges home. Every unseen card is an I or a J, so Black knows that, if it does not, White
    can take the line and IFFI itself."""
    bridges = {"HI": 0, "IL": 0, "EJ": 0, "FJ": 0, "EI": 1, "IK": 1, "GJ": 1}
    return GameState.from_json(
        {
            "round": 1,
            "phase": "play",
            "to_move": 0,
            "bridges": {name: bridges.get(name) for name in LINE_NAMES},
            "stones": dict.fromkeys(LETTERS),
            "supply": [{"bridges": 21, "stones": 10}, {"bridges": 22, "stones": 10}],
            "hands": ["AI", "J"],
            "display": "BCDE",
            "deck": "IJ",
            "discard": "ABCDEFFGGHHKKLL",
            "declined": False,
            "final_turns": 0,
            "points": [[0, 0, 0], [0, 0, 0]],
            "result": None,
            "variant": {"no_build_at_enemy_stone": False, "replace_on_remove": False},
            "face_down": ["", ""],
            "known": ["", ""],
            "history": [],
            "deal": None,
            "reshuffles": [],
            "termination": None,
        }
    )


def test_the_sweeping_claim_is_best_and_anything_else_a_mistake() -> None:
    state = sweep_position()
    claim = parse("I>J")
    events = state.copy().apply(claim)
    returned = [e for e in events if e.to_json()["type"] == "bridge_returned"]
    assert len(returned) == 3
    view = view_of(state, 0)
    budget = Budget(iterations=300)
    played = judge(view, claim, budget, seed=1)
    assert played.best == claim
    assert classify(played.loss) == "best"
    for token in ("pass", "dB", "A>D", "d?"):
        other = judge(view, parse(token), budget, seed=1)
        assert other.best == claim, token
        assert classify(other.loss) in ("mistake", "blunder"), (token, other)


def test_classes_follow_the_thresholds() -> None:
    assert classify(0.0) == "best"
    for name, threshold in THRESHOLDS:
        assert classify(threshold) == name
        assert classify(threshold - 1e-9) != name


def test_analysis_sees_only_the_movers_view() -> None:
    """Two games that differ only in cards White never sees get the same analysis of White's
    decisions. In standard-bridges, Black's first starting card and the 18th card of the deal
    (drawn face down by Black) can be exchanged without changing the game for White; the
    analysis of Black's own decisions, whose hand differs, does change."""
    original = GameRecord.loads(EXAMPLES[0].with_name("standard-bridges.record.json").read_text())
    deal = list(original.deal)
    deal[0], deal[17] = deal[17], deal[0]
    cut = original.actions[:40]
    mine = GameRecord(original.deal, cut, list(original.reshuffles))
    theirs = GameRecord("".join(deal), cut, list(original.reshuffles))
    assert mine.replay().to_json(complete=True) != theirs.replay().to_json(complete=True)
    pairs = list(zip(decisions(mine), decisions(theirs), strict=True))
    assert all(a.view == b.view for a, b in pairs if a.seat == 1)
    assert any(a.view != b.view for a, b in pairs if a.seat == 0)
    budget = Budget(iterations=25)
    first = [m.to_json() for m in analyse(mine, budget, seed=9)]
    second = [m.to_json() for m in analyse(theirs, budget, seed=9)]
    white = [i for i, m in enumerate(first) if m["seat"] == 1]
    assert sum(first[i]["class"] != "forced" for i in white) >= 10
    assert [first[i] for i in white] == [second[i] for i in white]
    assert first != second


def test_calibration_over_a_directory_of_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records"
    records.mkdir()
    for path in EXAMPLES[:3]:
        (records / path.name).write_text(path.read_text())
    (records / "broken.json").write_text("{}")
    svg = tmp_path / "reliability.svg"
    argv = ["analyse", "--calibrate", str(records), "--positions", "3", "--budget", "10", "--svg", str(svg), "--json"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "skipped broken.json" in err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["games"] == 3
    table = result["win_before"]
    assert table["positions"] == 9
    assert sum(row["n"] for row in table["bins"]) == 9
    for row in table["bins"]:
        assert row["bin"][0] <= row["estimate"] <= row["bin"][1]
        assert row["interval95"][0] <= row["observed"] <= row["interval95"][1]
    root = ElementTree.fromstring(svg.read_text())
    assert len(root.findall("{http://www.w3.org/2000/svg}circle")) == len(table["bins"])


def test_reliability_of_known_estimates() -> None:
    def sample(p: float, won: float) -> Sample:
        return Sample("g", 0, p, p, won)

    # Estimates of 0.25 won one time in four and of 0.85 never: the second bin is 0.85 off.
    samples = [sample(0.25, float(i == 0)) for i in range(4)] + [sample(0.85, 0.0) for _ in range(4)]
    table = reliability(samples)
    assert [row["n"] for row in table["bins"]] == [4, 4]
    assert [row["observed"] for row in table["bins"]] == [0.25, 0.0]
    assert table["ece"] == pytest.approx((0 + 4 * 0.85) / 8)
    assert table["brier"] == pytest.approx((0.75**2 + 3 * 0.25**2 + 4 * 0.85**2) / 8)


def test_hint_names_the_sweeping_claim_and_says_why() -> None:
    view = view_of(sweep_position(), 0)
    given = hint(view, seed=4)
    assert given.action == parse("I>J")
    assert given.why == "I>J: claims IFFI and JOJO and sends three White bridges home"
    assert given.to_json()["reasons"] == [{"code": "claims", "islands": ["I", "J"]}, {"code": "sends_home", "count": 3}]
    with pytest.raises(ValueError, match="seat to move"):
        hint(view_of(sweep_position(), None), seed=4)


def test_hint_is_the_same_whatever_the_hidden_cards() -> None:
    # White holds the J in one world and an I in the other; Black's view is the same.
    state = sweep_position()
    data = state.to_json(complete=True)
    data["hands"] = ["AI", "I"]
    data["deck"] = "JJ"
    other = GameState.from_json(data)
    assert view_of(other, 0) == view_of(state, 0)
    for seed in (1, 2):
        assert hint(view_of(other, 0), seed) == hint(view_of(state, 0), seed)


def test_reasons_word_draws_and_removals_without_sampled_cards() -> None:
    record = GameRecord.loads(EXAMPLES[0].with_name("standard-points.record.json").read_text())
    state = record.start()
    seen: set[str] = set()
    for token in record.actions:
        action = parse(token)
        seat = state.to_move
        why = reason(action, state.copy().apply(action), seat)
        assert why.startswith(f"{token}: ")
        if token == "d?":
            assert why == "d?: draws from the deck"
        seen.add(why.split(": ", 1)[1].split(" ")[0])
        state.apply(action)
    assert {"builds", "draws", "takes"} <= seen


def test_win_graph_has_a_point_per_turn_and_sees_no_hand() -> None:
    original = GameRecord.loads(EXAMPLES[0].with_name("standard-bridges.record.json").read_text())
    deal = list(original.deal)
    deal[0], deal[17] = deal[17], deal[0]  # Black's card for one White never sees (see above)
    other = GameRecord("".join(deal), list(original.actions), list(original.reshuffles))
    budget = Budget(iterations=10)
    graph = win_graph(original, budget, seed=2)
    turns = sum(parse(t).ends_turn for t in original.actions)
    assert [p.turn for p in graph] == list(range(len(graph)))
    assert turns <= len(graph) - 1 <= turns + 1  # a point per turn (the last may end with the game), then the result
    assert all(0.0 <= p.black <= 1.0 for p in graph)
    final = original.replay().outcome
    assert final is not None and graph[-1].black == (0.5 if final.winner is None else float(final.winner == 0))
    assert graph == win_graph(other, budget, seed=2)


@pytest.mark.slow  # seconds: a whole game's graph and analysis through the command
def test_cli_graph_and_exclusive_budgets(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES[0].with_name("standard-no-bridges.record.json"))
    code, out, err = run_cli(capsys, "analyse", path, "--budget", "5", "--graph", "--json")
    assert code == 0, err
    graph = json.loads(out.strip().splitlines()[-1])["graph"]
    assert "Black's chance by turn:" in out
    assert [p["turn"] for p in graph] == list(range(len(graph)))
    assert graph[-1]["step"] == len(GameRecord.loads(Path(path).read_text()).actions)
    with pytest.raises(SystemExit):
        main(["analyse", path, "--budget", "5", "--seconds", "1"])
    code, out, err = run_cli(capsys, "analyse", path, "--seconds", "0.002", "--json")
    assert code == 0, err
    assert all(m["iterations"] >= 1 for m in json.loads(out.strip().splitlines()[-1])["moves"])
