"""Learning the AI's parameters: the heuristic's weights by SPSA (``kahuna tune``) and the
policy/value network by self-play (``kahuna train``; needs the ``train`` extra).

* :mod:`.tuning` — SPSA over the heuristic's weights on game results (no extra needed).
* :mod:`.selfplay` — games that make training positions (numpy only): the searching agents'
  visit counts are the policy targets, the game's result the value target; the replay buffer.
* :mod:`.games` — the games of a generation (self-play and the arena gate) across processes.
* :mod:`.model` — the same network as :mod:`kahuna.ai.agents.net`, in PyTorch, and its export.
* :mod:`.loop` — generations: self-play, training, the arena gate, checkpoints, the Elo log.
* :mod:`.calibrate` — how well the network's values match the results of its games.

Only ``kahuna tune`` and ``kahuna train`` import this package; playing never needs it, nor PyTorch
(only :mod:`.model` and :mod:`.loop` import PyTorch).
"""
