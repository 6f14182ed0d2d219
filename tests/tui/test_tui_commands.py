"""Typed text to actions: tokens, friendly words, ambiguity, refusals that say what would work."""

from __future__ import annotations

from kahuna.rules import GameState, Variant
from kahuna.tui.commands import grouped, interpret

# Hands: Black ABE (seat 0), White EJK; display CDF; the deck follows.
DEAL = "ABEEJKCDFGGHHIIJKLLABCDF"


def position(*tokens: str) -> GameState:
    state = GameState.from_deal(DEAL)
    for token in tokens:
        state.apply(token)
    return state


def played(state: GameState, text: str) -> str | None:
    parsed = interpret(text, state.legal_actions(), state.why_illegal)
    return None if parsed.action is None else parsed.action.token


def error(state: GameState, text: str) -> str:
    parsed = interpret(text, state.legal_actions(), state.why_illegal)
    assert parsed.action is None and parsed.command is None, text
    return parsed.error or ""


def test_friendly_forms_and_tokens_give_the_action() -> None:
    state = position()
    for text, token in [
        ("E J", "E>J"),
        ("elai jojo", "E>J"),
        ("ELAI JOJO", "E>J"),
        ("E>J", "E>J"),
        ("e>j", "E>J"),
        ("build E J", "E>J"),
        ("draw", "d?"),
        ("draw deck", "d?"),
        ("d?", "d?"),
        ("draw D", "dD"),
        ("draw duda", "dD"),
        ("take c", "dC"),
        ("dF", "dF"),
        ("pass", "pass"),
        ("discard A", "-A"),
        ("-b", "-B"),
    ]:
        assert played(state, text) == token, text


def test_a_removal_in_words_and_as_a_token() -> None:
    state = position("E>J", "pass")  # Black's bridge on EJ; White holds E, J, K
    assert played(state, "remove EJ with E J") == "xEJ:EJ"
    assert played(state, "remove E J with elai jojo") == "xEJ:EJ"
    assert played(state, "remove EJ") == "xEJ:EJ"  # the only pair White holds
    assert played(state, "xej:ej") == "xEJ:EJ"
    assert "you hold only one E card (the removal needs 2)" in error(state, "remove EJ with E E")


def test_ambiguous_input_lists_the_candidates() -> None:
    state = position()
    assert error(state, "AB") == "which one? A>B or B>A — type it as shown"
    assert error(state, "E").startswith("which one? E>B or E>D or E>F")


def test_illegal_and_unclear_input_says_why_and_what_works() -> None:
    state = position()
    assert error(state, "K C") == "K>C: you hold no K card. Possible builds: " + " ".join(
        a.token for a in state.legal_actions() if ">" in a.token
    )
    assert error(state, "end").startswith("end: 'end' is only for the two last turns after round 3. Possible ways")
    assert error(state, "draw G") == "dG: no G card in the display. Possible ways to end the turn: d? dC dD dF pass"
    assert error(state, "remove AB with A B").startswith("xAB:AB: line AB has no bridge to remove. No removals now")
    assert error(state, "A L") == "there is no line between ALOA and LALE"
    assert error(state, "hello there").startswith("'hello there' is not understood: try E J (build)")
    assert error(state, "").startswith("type an action or a command")
    assert error(position("pass"), "pass").startswith("pass: you may not decline: your opponent declined last turn")


def test_commands_and_the_grouped_legal_list() -> None:
    state = position()
    for text, command in [("help", "help"), ("?", "help"), ("LEGAL", "legal"), ("rules", "rules"), ("quit", "quit")]:
        assert interpret(text, state.legal_actions(), state.why_illegal).command == command
    lines = grouped(state.legal_actions())
    assert [line.split(":")[0] for line in lines] == ["Build", "Discard", "End turn"]
    assert lines[-1] == "End turn: d? dC dD dF pass"


def test_variant_replacement_and_lowercase_tokens_that_could_be_lines() -> None:
    state = GameState.from_deal(DEAL, Variant(replace_on_remove=True))
    state.apply("E>J")
    state.apply("pass")
    assert played(state, "remove EJ with EJ +") == "xEJ:EJ+"
    assert played(state, "remove EJ with E J and replace") == "xEJ:EJ+"
    assert played(state, "remove EJ") == "xEJ:EJ"  # without "+", no replacement
    fresh = position()
    assert played(fresh, "dd") == "dD"  # DD is no line: the display's DUDA
    assert played(fresh, "de") == "E>D"  # DE is a line: a build (Black holds no D), not the display
    assert played(fresh, "dE") is None
