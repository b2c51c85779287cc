"""Outcome advantages of GRPO: each episode's reward compared with the other episodes of its group."""

from __future__ import annotations

from collections.abc import Sequence

import torch


def compute_grpo_outcome_advantage(
    rewards: torch.Tensor, group_ids: Sequence[str], *, eps: float = 1e-6, norm_adv_by_std_in_grpo: bool = True
) -> torch.Tensor:
    """Per-episode advantage (r - mean_g) / (std_g + eps), or r - mean_g when `norm_adv_by_std_in_grpo` is off.

    std is the unbiased sample std (torch.std), as in verl; a group of one episode gets advantage 0.
    """
    if rewards.dim() != 1 or rewards.shape[0] != len(group_ids):
        raise ValueError(f"rewards has shape {tuple(rewards.shape)} but there are {len(group_ids)} group ids")
    rewards = rewards.to(torch.float64)
    advantages = torch.zeros_like(rewards)
    members: dict[str, list[int]] = {}
    for index, group in enumerate(group_ids):
        members.setdefault(group, []).append(index)
    for indices in members.values():
        if len(indices) < 2:
            continue
        idx = torch.tensor(indices)
        group_rewards = rewards[idx]
        centred = group_rewards - group_rewards.mean()
        advantages[idx] = centred / (group_rewards.std() + eps) if norm_adv_by_std_in_grpo else centred
    return advantages.to(torch.float32)
