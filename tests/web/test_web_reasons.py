"""The browser explains refusals only by translating the referee's reason codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kahuna.rules.reasons import MESSAGES

JS = Path(__file__).resolve().parents[2] / "kahuna" / "web" / "js"


@pytest.mark.parametrize("language", ["en", "de", "nl", "da", "es"])
def test_every_reason_code_has_a_sentence_in_every_language(language: str) -> None:
    text = (JS / "lang" / f"{language}.js").read_text(encoding="utf-8")
    keys = set(re.findall(r'^\s*"why\.(\w+)":', text, flags=re.MULTILINE))
    missing = sorted(set(MESSAGES) - keys)
    assert not missing, f"{language}.js has no sentence for {missing}"


def test_no_rule_is_copied_into_the_browser() -> None:
    """The hand limit and the variants are the referee's: no script decides with them."""
    for script in JS.glob("*.js"):
        text = script.read_text(encoding="utf-8")
        assert "HAND_LIMIT" not in text, script.name
        assert not re.search(r"variant\.(no_build_at_enemy_stone|replace_on_remove)\s*&&", text), script.name
