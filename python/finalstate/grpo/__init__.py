"""GRPO for finalstate: group advantages and the loss terms, registered by name, and the micro-batched update."""

from .advantages import (
    compute_grpo_outcome_advantage,
    compute_pass_at_k_advantage,
    get_adv_estimator_fn,
    register_adv_est,
    unlikeliness_rewards,
)
from .core_algos import (
    agg_loss,
    compute_loss,
    compute_policy_loss,
    entropy_from_logprobs,
    get_kl_loss_fn,
    get_policy_loss_fn,
    kl_penalty_k3,
    register_kl_loss,
    register_policy_loss,
)
from .reference import BasePolicy
from .trainer import PolicyTrainer, UnusableBatchError

__all__ = [
    "BasePolicy",
    "PolicyTrainer",
    "UnusableBatchError",
    "agg_loss",
    "compute_grpo_outcome_advantage",
    "compute_loss",
    "compute_pass_at_k_advantage",
    "compute_policy_loss",
    "entropy_from_logprobs",
    "get_adv_estimator_fn",
    "get_kl_loss_fn",
    "get_policy_loss_fn",
    "kl_penalty_k3",
    "register_adv_est",
    "register_kl_loss",
    "register_policy_loss",
    "unlikeliness_rewards",
]
