"""Fair play (issue 49, docs/fair-play.md): every rated game between people screened in the
background for play that follows the AI's too closely (``queue``: which games and who screens each;
``screener``: the background loop; ``verdict``: a player's figures and the automatic report).
The judge itself is ``kahuna.ai.review.screening``."""
