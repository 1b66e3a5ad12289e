"""The policy-value net in torch, layer for layer the numpy net of
:mod:`hexgames.ai.network` (the same parameter names and shapes), and the conversions
between the two."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from hexgames.ai.network import Architecture, PolicyValueNetwork


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.conv2(F.relu(self.conv1(x))))


class TorchPolicyValueNet(nn.Module):
    """``forward(observations) -> (values (B,), logits (B, num_actions))``."""

    def __init__(self, arch: Architecture) -> None:
        super().__init__()
        self.arch = arch
        c = arch.channels
        self.stem = nn.Conv2d(arch.planes, c, 3, padding=1)
        self.blocks = nn.ModuleList([_Block(c) for _ in range(arch.blocks)])
        self.policy_conv = nn.Conv2d(c, arch.policy_channels, 1)
        self.policy_fc = nn.Linear(arch.policy_channels * arch.width * arch.width,
                                   arch.num_actions)
        self.value_fc1 = nn.Linear(c, arch.value_hidden)
        self.value_fc2 = nn.Linear(arch.value_hidden, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = F.relu(self.stem(x))
        for block in self.blocks:
            x = block(x)
        logits = self.policy_fc(F.relu(self.policy_conv(x)).flatten(1))
        hidden = F.relu(self.value_fc1(x.mean(dim=(2, 3))))
        values = torch.tanh(self.value_fc2(hidden))[:, 0]
        return values, logits


def to_numpy(net: TorchPolicyValueNet, game: str = "",
             options: dict[str, Any] | None = None) -> PolicyValueNetwork:
    """The numpy net with ``net``'s current weights."""
    params = {name: value.detach().cpu().numpy().astype(np.float32)
              for name, value in net.state_dict().items()}
    return PolicyValueNetwork(net.arch, params, game=game, options=options)


def from_numpy(network: PolicyValueNetwork) -> TorchPolicyValueNet:
    """A torch net with ``network``'s weights."""
    net = TorchPolicyValueNet(network.arch)
    net.load_state_dict({name: torch.from_numpy(np.array(value))
                         for name, value in network.params.items()})
    return net


def dense_targets(legal: torch.Tensor, probs: torch.Tensor, num_actions: int
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """Dense ``(masks, policies)`` ``(B, num_actions)`` of sparse targets (``legal`` ids
    padded with -1, ``probs`` with 0; :class:`hexgames.training.actors.Samples`)."""
    rows = legal.shape[0]
    index = torch.where(legal < 0, torch.full_like(legal, num_actions), legal)
    masks = torch.zeros(rows, num_actions + 1, dtype=torch.bool, device=legal.device)
    masks.scatter_(1, index, True)
    policies = torch.zeros(rows, num_actions + 1, dtype=probs.dtype, device=probs.device)
    policies.scatter_(1, index, probs)  # the padding lands in the extra column
    return masks[:, :num_actions], policies[:, :num_actions]


def loss(net: TorchPolicyValueNet, observations: torch.Tensor, masks: torch.Tensor,
         policies: torch.Tensor, values: torch.Tensor
         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(total, value, policy)`` losses of a batch: the value's squared error and the
    cross-entropy of the policy targets against the net's policy over the legal ids
    (illegal logits masked out); weight decay is the optimizer's."""
    predicted, logits = net(observations)
    logits = logits.masked_fill(~masks, -1e9)
    value_loss = F.mse_loss(predicted, values)
    policy_loss = -(policies * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    return value_loss + policy_loss, value_loss, policy_loss
