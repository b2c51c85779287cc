"""The GRPO/PPO policy loss on token log-probabilities (names follow verl's core_algos).

Every function takes [batch, tokens] tensors and a 0/1 `response_mask`. Aggregation can be given a global
normaliser so that micro-batches summed together equal one pass over the whole batch.

Three policies may meet in one update (verl's rollout correction, decoupled mode; AReaL's decoupled PPO):
- π_rollout (μ): the behaviour policy, whose log-probs the rollout server returned with each sampled token. With
  asynchronous steps it may be several versions old, and even at version parity it is not the trainer's policy
  (another engine, kernels and precision);
- π_old (π_prox): the weights the update starts from, their log-probs recomputed by the trainer before its first
  optimizer step; without the correction π_old is taken to be π_rollout;
- π_θ: the weights being trained.
The PPO ratio π_θ/π_old is clipped as usual; the correction weighs each token by the truncated importance weight
min(π_old/π_rollout, threshold), a constant of the loss (token-level TIS).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

LOSS_AGG_MODES = ("token-mean", "seq-mean-token-mean")


@dataclass(frozen=True)
class AggNormaliser:
    """What the whole batch divides by: its loss-token count (token-mean) or its sequences with loss tokens."""

    tokens: float
    sequences: float

    @staticmethod
    def of(response_mask: torch.Tensor) -> AggNormaliser:
        return AggNormaliser(
            tokens=float(response_mask.sum()), sequences=float((response_mask.sum(dim=-1) > 0).sum())
        )


def agg_loss(
    loss_mat: torch.Tensor,
    loss_mask: torch.Tensor,
    loss_agg_mode: str,
    normaliser: AggNormaliser | None = None,
    sequence_tokens: torch.Tensor | None = None,
) -> torch.Tensor:
    """Aggregate per-token values to a scalar.

    token-mean: sum over all masked tokens / number of masked tokens (long sequences weigh more).
    seq-mean-token-mean: mean over sequences of each sequence's masked-token mean (every sequence weighs the same).
    With `normaliser` (from the whole batch), the denominators are the batch's, so micro-batch results add up.
    Each row is one sequence, unless `sequence_tokens` gives every position the masked-token count of its whole
    sequence (a packed row holds several; a sequence-parallel rank holds part of one): then each token weighs
    1 / (its sequence's tokens x the sequences), which adds up to the same mean over any split of the positions.
    """
    mask = loss_mask.to(loss_mat.dtype)
    normaliser = normaliser or AggNormaliser.of(loss_mask)
    if loss_agg_mode == "token-mean":
        return (loss_mat * mask).sum() / max(normaliser.tokens, 1.0)
    if loss_agg_mode == "seq-mean-token-mean" and sequence_tokens is not None:
        return (loss_mat * mask / sequence_tokens.clamp(min=1.0)).sum() / max(normaliser.sequences, 1.0)
    if loss_agg_mode == "seq-mean-token-mean":
        per_seq_tokens = mask.sum(dim=-1)
        seq_means = (loss_mat * mask).sum(dim=-1) / per_seq_tokens.clamp(min=1.0)
        return seq_means.sum() / max(normaliser.sequences, 1.0)
    raise ValueError(f"unknown loss_agg_mode {loss_agg_mode!r}; expected one of {LOSS_AGG_MODES}")


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    mask = mask.to(values.dtype)
    return (values * mask).sum() / mask.sum().clamp(min=1.0)


def compute_policy_loss(
    old_log_prob: torch.Tensor,
    log_prob: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    clip_ratio_low: float = 0.2,
    clip_ratio_high: float = 0.2,
    loss_agg_mode: str = "token-mean",
    normaliser: AggNormaliser | None = None,
    rollout_is_weights: torch.Tensor | None = None,
    sequence_tokens: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """PPO clipped surrogate of π_θ against `old_log_prob`: the rollout log-probs, or the recomputed π_old.

    Returns (pg_loss, pg_clipfrac, ppo_kl): the aggregated loss, the share of masked tokens whose clipped term was
    the active (larger) one, and the mean of old - new log-prob (k1 KL estimate) on masked tokens.
    `advantages` is [batch, tokens] (an outcome advantage broadcast over each sequence's tokens). `rollout_is_weights`
    (compute_rollout_is_weights), when given, multiplies each token's clipped term: the off-policy correction.
    `sequence_tokens`: see agg_loss.
    """
    negative_approx_kl = torch.clamp(log_prob - old_log_prob, min=-20.0, max=20.0)
    ratio = torch.exp(negative_approx_kl)
    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1.0 - clip_ratio_low, 1.0 + clip_ratio_high)
    pg_losses = torch.maximum(pg_losses1, pg_losses2)
    if rollout_is_weights is not None:
        pg_losses = pg_losses * rollout_is_weights
    pg_loss = agg_loss(pg_losses, response_mask, loss_agg_mode, normaliser, sequence_tokens)
    pg_clipfrac = masked_mean(torch.gt(pg_losses2, pg_losses1).float(), response_mask)
    ppo_kl = masked_mean(-negative_approx_kl, response_mask)
    return pg_loss, pg_clipfrac, ppo_kl


def compute_rollout_is_weights(
    old_log_prob: torch.Tensor,
    rollout_log_prob: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    rollout_is_threshold: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Token-level truncated importance sampling: w_t = min(π_old(t) / π_rollout(t), rollout_is_threshold).

    Returns (rollout_is_weights, rollout_is_ratio), both detached (the weights are constants of the loss): the
    truncated weights, 0 off the mask, and the ratio before truncation. The log-ratio is bounded to [-20, 20] first,
    so that a token the sampler found near-impossible weighs exp(20) at most before truncation instead of overflowing.
    """
    log_ratio = torch.clamp(old_log_prob - rollout_log_prob, min=-20.0, max=20.0)
    rollout_is_ratio = torch.exp(log_ratio).detach()
    rollout_is_weights = rollout_is_ratio.clamp(max=rollout_is_threshold) * response_mask.to(rollout_is_ratio.dtype)
    return rollout_is_weights, rollout_is_ratio


def kl_penalty_k3(log_prob: torch.Tensor, sampling_log_prob: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimate of KL(sampler || current) from tokens the sampler drew: r - 1 - log r >= 0,
    with r = p_current / p_sampler (Schulman's low-variance unbiased estimator)."""
    log_ratio = torch.clamp(log_prob - sampling_log_prob, min=-20.0, max=20.0)
    return torch.exp(log_ratio) - 1.0 - log_ratio


def entropy_from_logprobs(log_probs: torch.Tensor) -> torch.Tensor:
    """Entropy of each distribution over the last dimension, given its log-probabilities."""
    return -(log_probs.exp() * log_probs).sum(dim=-1)
