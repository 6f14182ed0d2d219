"""Ids and secrets are pasted after command-line options, so none may begin with "-"."""

from __future__ import annotations

import argparse
import secrets
from collections.abc import Iterator

import pytest

from kahuna.bot import cli as bot_cli
from kahuna.server.common import tokens


def test_an_id_or_secret_that_would_begin_with_a_dash_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    draws: Iterator[str] = iter(["-1K7yXRfPk92", "--xx", "A1K7yXRfPk9", "-q", "Zq"])
    asked: list[int] = []

    def token_urlsafe(nbytes: int) -> str:
        asked.append(nbytes)
        return next(draws)

    monkeypatch.setattr(secrets, "token_urlsafe", token_urlsafe)
    assert tokens.new_game_id() == "A1K7yXRfPk9"
    assert tokens.new_secret() == "Zq"
    assert asked == [9, 9, 9, 24, 24]


def test_real_ids_and_secrets_never_begin_with_a_dash() -> None:
    # One draw in 64 of token_urlsafe begins with "-": 3,000 draws without the redraw all pass
    # with a probability of about 1e-21.
    drawn = [tokens.new_game_id() for _ in range(2000)] + [tokens.new_secret() for _ in range(1000)]
    assert not [token for token in drawn if token.startswith("-")]
    assert {len(token) for token in drawn[:2000]} == {12}
    assert {len(token) for token in drawn[2000:]} == {32}


def test_the_bot_command_takes_an_old_id_that_begins_with_a_dash_written_with_equals() -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["bot", "--server", "http://127.0.0.1:1", "--token", "t", "--agent", "random",
                              "--tournament=-1K7yXRfPk92"])  # fmt: skip
    assert args.tournament == "-1K7yXRfPk92"
