"""The policy/value network in PyTorch: the layers of :class:`kahuna.ai.agents.net.Network`, trainable.

Training minimises, over a batch of positions, the cross-entropy between the search's visit
distribution and the softmax of the policy logits over the legal actions only (illegal logits
are masked to −∞, so the network never has to learn what the rules already say), plus the
binary cross-entropy between the value head's win probability and the game's result. Adam,
a fixed number of passes over the replay buffer keeping the pass that is best on held-out games
(early stopping), one thread and a fixed seed: the same data gives the same weights.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from kahuna.ai.agents.features import OBS_SIZE
from kahuna.ai.agents.net import Network
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
    model: PolicyValueNet,
    data: Positions,
    epochs: int,
    batch: int,
    lr: float,
    seed: int,
    validation: Positions | None = None,
    value_weight: float = 1.0,
) -> list[dict[str, float]]:
    """Fit ``model`` to ``data``; the mean losses of each epoch.

    With ``validation`` (positions of other games), each epoch is also scored there and the
    model ends with the weights of the epoch with the lowest validation loss: a game gives a
    hundred positions with one result, so the value head memorises the games of the buffer within
    a few passes (measured: held-out value loss rising from the second epoch on), and early
    stopping is what keeps it useful on new positions. ``value_weight`` scales the value loss in
    the training loss and in the validation score that picks the epoch: below 1 the value head
    memorises more slowly, so the policy (which does not overfit that way) gets more passes.
    """
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    obs = torch.from_numpy(data.obs)
    legal = torch.from_numpy(data.mask.astype(np.bool_))
    policy = torch.from_numpy(data.policy)
    value = torch.from_numpy(data.value)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    history: list[dict[str, float]] = []
    best: tuple[float, dict[str, torch.Tensor]] | None = None
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(value), generator=generator)
        totals = [0.0, 0.0]
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            policy_loss, value_loss = _losses(model, obs[idx], legal[idx], policy[idx], value[idx])
            optimiser.zero_grad()
            (policy_loss + value_weight * value_loss).backward()
            optimiser.step()
            totals[0] += float(policy_loss.detach()) * len(idx)
            totals[1] += float(value_loss.detach()) * len(idx)
        entry = {"policy_loss": totals[0] / len(value), "value_loss": totals[1] / len(value)}
        if validation is not None and len(validation):
            model.eval()
            with torch.no_grad():
                vp, vv = _losses(
                    model,
                    torch.from_numpy(validation.obs),
                    torch.from_numpy(validation.mask.astype(np.bool_)),
                    torch.from_numpy(validation.policy),
                    torch.from_numpy(validation.value),
                )
            entry.update(val_policy_loss=float(vp), val_value_loss=float(vv))
            score = float(vp) + value_weight * float(vv)
            if best is None or score < best[0]:
                best = (score, {k: v.clone() for k, v in model.state_dict().items()})
        history.append(entry)
    if best is not None:
        model.load_state_dict(best[1])
    model.eval()
    return history


def _losses(
    model: PolicyValueNet, obs: torch.Tensor, legal: torch.Tensor, policy: torch.Tensor, value: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Policy cross-entropy over the legal actions and value binary cross-entropy, batch means."""
    logits, v = model(obs)
    logits = logits.masked_fill(~legal, -1e9)
    policy_loss = -(policy * torch.log_softmax(logits, dim=-1)).sum(-1).mean()
    value_loss = nn.functional.binary_cross_entropy_with_logits(v, value)
    return policy_loss, value_loss
