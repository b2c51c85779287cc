"""Outcome advantages of GRPO: each episode's reward compared with the other episodes of its group.

The estimators are registered by name (register_adv_est / get_adv_estimator_fn, as in verl): each takes the
episodes' rewards and group ids, `eps` and `norm_adv_by_std_in_grpo` (LossConfig.epsilon and .norm_adv_by_std_in_grpo), and its own
options, and returns one advantage per episode."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb, sqrt

import torch

from .registry import Registry

AdvantageEstimator = Callable[..., torch.Tensor]
ADV_ESTIMATORS: Registry[AdvantageEstimator] = Registry("advantage estimator")
register_adv_est = ADV_ESTIMATORS.register
get_adv_estimator_fn = ADV_ESTIMATORS.get


def _group_members(rewards: torch.Tensor, group_ids: Sequence[str]) -> list[list[int]]:
    """The indices of each group's episodes, groups in order of first appearance (one reward per group id)."""
    if rewards.dim() != 1 or rewards.shape[0] != len(group_ids):
        raise ValueError(f"rewards has shape {tuple(rewards.shape)} but there are {len(group_ids)} group ids")
    members: dict[str, list[int]] = {}
    for index, group in enumerate(group_ids):
        members.setdefault(group, []).append(index)
    return list(members.values())


@register_adv_est("grpo")
def compute_grpo_outcome_advantage(
    rewards: torch.Tensor, group_ids: Sequence[str], *, eps: float = 1e-6, norm_adv_by_std_in_grpo: bool = True
) -> torch.Tensor:
    """GRPO's outcome-supervision advantage (Shao et al. 2024, "DeepSeekMath", arXiv 2402.03300): per episode
    (r - mean_g) / (std_g + eps), or r - mean_g when `norm_adv_by_std_in_grpo` is off (Dr. GRPO's advantage, Liu et
    al. 2025, "Understanding R1-Zero-Like Training", arXiv 2503.20783, which drops the std's difficulty bias).

    std is the unbiased sample std (torch.std), as in verl; a group of one episode gets advantage 0.
    """
    rewards = rewards.to(torch.float64)
    advantages = torch.zeros_like(rewards)
    for indices in _group_members(rewards, group_ids):
        if len(indices) < 2:
            continue
        idx = torch.tensor(indices)
        group_rewards = rewards[idx]
        centred = group_rewards - group_rewards.mean()
        advantages[idx] = centred / (group_rewards.std() + eps) if norm_adv_by_std_in_grpo else centred
    return advantages.to(torch.float32)


@register_adv_est("pass_at_k")
def compute_pass_at_k_advantage(
    rewards: torch.Tensor, group_ids: Sequence[str], *, k: int, eps: float = 1e-6, norm_adv_by_std_in_grpo: bool = True
) -> torch.Tensor:
    """Per-episode advantage of pass@k training in its analytic form (Chen et al., "Pass@k Training for Adaptively
    Balancing Exploration and Exploitation of Large Reasoning Models", arXiv 2508.10751): the reward of a k-subset of a
    group is whether any of its episodes passed, and an episode's advantage is the mean advantage of the subsets that
    hold it. For a group of N episodes with N_neg failures:

        R = 1 - C(N_neg, k) / C(N, k)                  the group's expected pass@k, sigma = sqrt(R (1 - R))
        A_pass = (1 - R) / (sigma + eps)
        A_fail = (1 - R - C(N_neg - 1, k - 1) / C(N - 1, k - 1)) / (sigma + eps)

    (without dividing by sigma + eps when `norm_adv_by_std_in_grpo` is off). k = 1 is GRPO with the population std. A
    group where every k-subset holds a pass (N_neg < k), or none does, gets advantage 0: pass@k stops pushing a task
    the policy solves often enough, which is how it keeps the rest of the group's probability for other answers.
    Rewards must be 0 or 1. A group left with fewer than k episodes (some were not trainable) has no k-subset: 0."""
    members = _group_members(rewards, group_ids)
    if k < 1:
        raise ValueError(f"pass@k advantage: k is {k}, not a positive count")
    if not bool(((rewards == 0) | (rewards == 1)).all()):
        raise ValueError("pass@k advantage: every reward must be 0 or 1 (the final-state check's)")
    advantages = torch.zeros(rewards.shape[0], dtype=torch.float64)
    for indices in members:
        n = len(indices)
        if n < max(2, k):
            continue
        passed = [float(rewards[i]) == 1.0 for i in indices]
        failures = passed.count(False)
        expected = 1.0 - comb(failures, k) / comb(n, k)
        if expected in (0.0, 1.0):
            continue
        scale = (sqrt(expected * (1.0 - expected)) + eps) if norm_adv_by_std_in_grpo else 1.0
        fail_share = comb(failures - 1, k - 1) / comb(n - 1, k - 1) if failures >= 1 else 0.0
        for i, ok in zip(indices, passed):
            advantages[i] = ((1.0 - expected) if ok else (1.0 - expected - fail_share)) / scale
    return advantages.to(torch.float32)


def unlikeliness_rewards(rewards: torch.Tensor, group_ids: Sequence[str], log_likelihoods: torch.Tensor, *, beta: float) -> torch.Tensor:
    """The rewards of the unlikeliness reward (He, Fried and Welleck, "Rewarding the Unlikely: Lifting GRPO Beyond
    Distribution Sharpening", arXiv 2506.02355, their beta_rank): in a group of G episodes that both passed and failed,
    the episodes are ranked by `log_likelihoods` (rank 0 the most likely; ties by position), and a pass (reward 1) of
    rank r gets

        1 - beta (G - r) / G

    so that, after the group's normalisation, the most likely pass is pushed least and a rare pass most. GRPO favours
    the pass the policy already prefers (its rank bias); this reverses that within the group. Other rewards, and
    groups whose rewards are all equal (no informative comparison), are left as they are."""
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"unlikeliness reward: beta is {beta}, outside [0, 1]")
    if log_likelihoods.shape != rewards.shape:
        raise ValueError(f"unlikeliness reward: {tuple(log_likelihoods.shape)} likelihoods for {tuple(rewards.shape)} rewards")
    shaped = rewards.to(torch.float64).clone()
    for indices in _group_members(rewards, group_ids):
        group_rewards = [float(rewards[i]) for i in indices]
        if min(group_rewards) == max(group_rewards):
            continue
        size = len(indices)
        by_likelihood = sorted(indices, key=lambda i: (-float(log_likelihoods[i]), i))
        for rank, i in enumerate(by_likelihood):
            if float(rewards[i]) == 1.0:
                shaped[i] = 1.0 - beta * (size - rank) / size
    return shaped
