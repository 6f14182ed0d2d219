"""The fixed texts of the terminal game: input help and a one-screen summary of the rules."""

from __future__ import annotations

HELP: list[str] = [
    "Build: E J, elai jojo or E>J (an ELAI card, bridge ELAI–JOJO).",
    "Remove: remove EJ with E J. Discard face down: discard K.",
    "End the turn: draw, draw E (the face-up ELAI), pass, end (last turns).",
    "Also: legal (what you can do now), rules, resign, quit (saves the game).",
]

RULES: list[str] = [
    "KAHUNA — the rules in one screen (docs/RULES.md has them all)",
    "",
    "A turn: play cards (any number of actions), then end it by taking a card.",
    " • Build: play a card of island X and put a bridge on a free line of X.",
    " • Remove: play two cards, each showing one of the islands an opposing",
    "   bridge joins; that bridge goes back to its owner.",
    " • Discard a card face down, at any time during your turn.",
    " • End: take a face-up card or the top card of the deck (with 5 cards in",
    "   hand, discard first), or decline to draw — not right after your",
    "   opponent declined.",
    "",
    "Control: when your bridges hold more than half of an island's lines, you",
    "claim it: your stone goes on it and all opposing bridges on its lines go",
    "back. Whoever drops to half or less of an island's lines loses the stone.",
    "",
    "A round ends when the last card is taken. More stones scores 1 point after",
    "round 1 and 2 after round 2; the discards become the new deck. After round",
    "3 each player has one last turn without drawing, then more stones scores",
    "the difference. Most points wins (ties: the final scoring, then bridges).",
    "From round 2 on, a player with no bridge on the board (while the other has",
    "some) loses at once.",
]
