"""GRPO for finalstate: group advantages, the clipped token-mean policy loss, and the micro-batched update."""

from .advantages import compute_grpo_outcome_advantage, compute_pass_at_k_advantage, unlikeliness_rewards
from .core_algos import agg_loss, compute_policy_loss, entropy_from_logprobs, kl_penalty_k3
from .reference import BasePolicy
from .trainer import PolicyTrainer, UnusableBatchError

__all__ = [
    "BasePolicy",
    "PolicyTrainer",
    "UnusableBatchError",
    "agg_loss",
    "compute_grpo_outcome_advantage",
    "compute_pass_at_k_advantage",
    "compute_policy_loss",
    "entropy_from_logprobs",
    "kl_penalty_k3",
    "unlikeliness_rewards",
]
