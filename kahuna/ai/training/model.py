"""The policy/value network in PyTorch: the layers of :class:`kahuna.ai.net.Network`, trainable.

Training minimises, over a batch of positions, the cross-entropy between the search's visit
distribution and the softmax of the policy logits over the legal actions only (illegal logits
are masked to −∞, so the network never has to learn what the rules already say), plus the
binary cross-entropy between the value head's win probability and the game's result. Adam,
a fixed number of passes over the replay buffer, one thread and a fixed seed: the same data
gives the same weights.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from kahuna.ai.features import OBS_SIZE
from kahuna.ai.net import Network
from kahuna.ai.training.selfplay import Positions
from kahuna.rules import NUM_ACTIONS


class PolicyValueNet(nn.Module):
    """Two ReLU hidden layers, a policy head (243 logits) and a value head (one logit)."""

    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.hidden = hidden
        self.l1 = nn.Linear(OBS_SIZE, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.policy = nn.Linear(hidden, NUM_ACTIONS)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits ``[n, 243]`` and value logits ``[n]`` (sigmoid: the mover's win probability)."""
        h = torch.relu(self.l2(torch.relu(self.l1(obs))))
        return self.policy(h), self.value(h).squeeze(-1)

    def export(self, meta: dict[str, object]) -> Network:
        """The numpy network with these weights (``x @ w``: torch's ``weight`` transposed)."""

        def arr(t: torch.Tensor) -> npt.NDArray[np.float32]:
            return np.ascontiguousarray(t.detach().cpu().numpy().astype(np.float32))

        arrays = {
            "w1": arr(self.l1.weight.T),
            "b1": arr(self.l1.bias),
            "w2": arr(self.l2.weight.T),
            "b2": arr(self.l2.bias),
            "wp": arr(self.policy.weight.T),
            "bp": arr(self.policy.bias),
            "wv": arr(self.value.weight.T),
            "bv": arr(self.value.bias),
        }
        return Network(arrays, {**meta, "hidden": self.hidden})


def train(
    model: PolicyValueNet, data: Positions, epochs: int, batch: int, lr: float, seed: int
) -> list[dict[str, float]]:
    """Fit ``model`` to ``data``; the mean policy and value losses of each epoch."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    obs = torch.from_numpy(data.obs)
    legal = torch.from_numpy(data.mask.astype(np.bool_))
    policy = torch.from_numpy(data.policy)
    value = torch.from_numpy(data.value)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    history: list[dict[str, float]] = []
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(value), generator=generator)
        totals = [0.0, 0.0]
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            logits, v = model(obs[idx])
            logits = logits.masked_fill(~legal[idx], -1e9)
            policy_loss = -(policy[idx] * torch.log_softmax(logits, dim=-1)).sum(-1).mean()
            value_loss = nn.functional.binary_cross_entropy_with_logits(v, value[idx])
            optimiser.zero_grad()
            (policy_loss + value_loss).backward()
            optimiser.step()
            totals[0] += float(policy_loss.detach()) * len(idx)
            totals[1] += float(value_loss.detach()) * len(idx)
        history.append({"policy_loss": totals[0] / len(value), "value_loss": totals[1] / len(value)})
    model.eval()
    return history
