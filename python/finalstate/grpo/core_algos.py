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

A pass's loss (compute_loss) is a policy loss and a KL term, each registered by the loss-config value that selects
it (as verl registers its policy losses): register_policy_loss / get_policy_loss_fn by offPolicyCorrection,
register_kl_loss / get_kl_loss_fn by klReference; and an entropy bonus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import torch

from ..config import LossConfig
from .registry import Registry

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


class LossInputs(Protocol):
    """What the loss reads of a pass (passes.PassTensors), each [batch, tokens]."""

    old_log_prob: torch.Tensor  # the ratio's reference
    rollout_log_prob: torch.Tensor
    advantages: torch.Tensor
    response_mask: torch.Tensor
    sequence_tokens: torch.Tensor
    ref_log_prob: torch.Tensor | None  # the base policy's, with klReference "base"


# (inputs, log_prob, config, normaliser) -> (pg_loss, pg_clipfrac, ppo_kl), as compute_policy_loss returns them
PolicyLoss = Callable[[LossInputs, torch.Tensor, LossConfig, AggNormaliser], tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
# (inputs, log_prob) -> the per-token KL estimate
KlLoss = Callable[[LossInputs, torch.Tensor], torch.Tensor]
POLICY_LOSSES: Registry[PolicyLoss] = Registry("loss offPolicyCorrection")
register_policy_loss = POLICY_LOSSES.register
get_policy_loss_fn = POLICY_LOSSES.get
KL_LOSSES: Registry[KlLoss] = Registry("loss klReference")
register_kl_loss = KL_LOSSES.register
get_kl_loss_fn = KL_LOSSES.get


def agg_loss(
    loss_mat: torch.Tensor,
    loss_mask: torch.Tensor,
    loss_agg_mode: str,
    normaliser: AggNormaliser | None = None,
    sequence_tokens: torch.Tensor | None = None,
) -> torch.Tensor:
    """Aggregate per-token values to a scalar.

    token-mean: sum over all masked tokens / number of masked tokens (long sequences weigh more): DAPO's token-level
    policy-gradient loss (Yu et al. 2025, arXiv 2503.14476).
    seq-mean-token-mean: mean over sequences of each sequence's masked-token mean (every sequence weighs the same):
    GRPO's objective as written (Shao et al. 2024, arXiv 2402.03300).
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


def _clipped_surrogate(
    inputs: LossInputs,
    log_prob: torch.Tensor,
    config: LossConfig,
    normaliser: AggNormaliser,
    rollout_is_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return compute_policy_loss(
        inputs.old_log_prob,
        log_prob,
        inputs.advantages,
        inputs.response_mask,
        clip_ratio_low=config.clip_ratio_low,
        clip_ratio_high=config.clip_ratio_high,
        loss_agg_mode=config.loss_agg_mode,
        normaliser=normaliser,
        rollout_is_weights=rollout_is_weights,
        sequence_tokens=inputs.sequence_tokens,
    )


@register_policy_loss("none")
def compute_policy_loss_vanilla(
    inputs: LossInputs, log_prob: torch.Tensor, config: LossConfig, normaliser: AggNormaliser
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """PPO's clipped surrogate (Schulman et al. 2017, arXiv 1707.06347) as GRPO uses it (Shao et al. 2024, arXiv
    2402.03300), the ratio against the rollout log-probs; clipHigh above clipLow is DAPO's clip-higher (Yu et al.
    2025, arXiv 2503.14476)."""
    return _clipped_surrogate(inputs, log_prob, config, normaliser)


@register_policy_loss("tis")
def compute_policy_loss_tis(
    inputs: LossInputs, log_prob: torch.Tensor, config: LossConfig, normaliser: AggNormaliser
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Decoupled PPO (Hilton et al. 2021, "Batch size-invariance for policy optimization", arXiv 2110.00641; AReaL,
    Fu et al. 2025, arXiv 2505.24298): the clipped ratio against the recomputed π_old, each token weighed by the
    truncated importance weight min(π_old / π_rollout, isCap) (token-level TIS: Yao et al. 2025, "Your Efficient RL
    Framework Secretly Brings You Off-Policy RL Training"; verl's rollout_is "token")."""
    weights, _ = compute_rollout_is_weights(
        inputs.old_log_prob, inputs.rollout_log_prob, inputs.response_mask, rollout_is_threshold=config.rollout_is_threshold
    )
    return _clipped_surrogate(inputs, log_prob, config, normaliser, weights)


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
    with r = p_current / p_sampler: the low-variance unbiased k3 of Schulman 2020, "Approximating KL Divergence"."""
    log_ratio = torch.clamp(log_prob - sampling_log_prob, min=-20.0, max=20.0)
    return torch.exp(log_ratio) - 1.0 - log_ratio


@register_kl_loss("ratio")
def kl_to_ratio_reference(inputs: LossInputs, log_prob: torch.Tensor) -> torch.Tensor:
    """The k3 estimate of KL(π_old || π_θ) on the tokens π_old drew, π_old the ratio's reference (the rollout policy,
    or with offPolicyCorrection "tis" the starting weights): a trust region around the step's start."""
    return kl_penalty_k3(log_prob, inputs.old_log_prob)


@register_kl_loss("base")
def kl_to_base_policy(inputs: LossInputs, log_prob: torch.Tensor) -> torch.Tensor:
    """The KL penalty to the reference policy of GRPO (Shao et al. 2024, arXiv 2402.03300, its equation 4) and of
    PPO-style RLHF: the k3 estimate of KL(π_θ || π_base) on the tokens π_θ's sampler drew, r = π_base / π_θ (verl's
    low_var_kl, without its clamp of the estimate to [-10, 10])."""
    return kl_penalty_k3(inputs.ref_log_prob, log_prob)


def compute_loss(
    inputs: LossInputs, log_prob: torch.Tensor, entropy: torch.Tensor, config: LossConfig, normaliser: AggNormaliser
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A pass's loss: the policy loss of offPolicyCorrection, plus klCoef x the KL term to klReference, minus
    entropyCoef x the entropy (verl's actor.entropy_coeff), both aggregated as the policy loss. Returns (loss,
    pg_clipfrac, kl): kl per token, what approxKl reports."""
    pg_loss, clipfrac, _ = get_policy_loss_fn(config.rollout_is)(inputs, log_prob, config, normaliser)
    # With klCoef 0 the KL is only reported, against the ratio's reference: the base policy's log-probs are not computed.
    kl = get_kl_loss_fn(config.kl_reference if config.kl_loss_coef > 0 else "ratio")(inputs, log_prob)

    def aggregated(values: torch.Tensor) -> torch.Tensor:
        return agg_loss(values, inputs.response_mask, config.loss_agg_mode, normaliser, inputs.sequence_tokens)

    loss = pg_loss
    if config.kl_loss_coef > 0:
        loss = loss + config.kl_loss_coef * aggregated(kl)
    if config.entropy_coeff > 0:
        loss = loss - config.entropy_coeff * aggregated(entropy)
    return loss, clipfrac, kl


def entropy_from_logprobs(log_probs: torch.Tensor) -> torch.Tensor:
    """Entropy of each distribution over the last dimension, given its log-probabilities."""
    return -(log_probs.exp() * log_probs).sum(dim=-1)
