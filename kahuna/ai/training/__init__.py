"""Training the policy/value network by self-play (``kahuna train``; needs the ``train`` extra).

* :mod:`.selfplay` — games that make training positions (numpy only): the searching agents'
  visit counts are the policy targets, the game's result the value target; the replay buffer.
* :mod:`.model` — the same network as :mod:`kahuna.ai.net`, in PyTorch, and its export.
* :mod:`.loop` — generations: self-play, training, the arena gate, checkpoints, the Elo log.

Only ``kahuna train`` imports this package; playing never needs PyTorch.
"""
