"""The base policy that update.loss.klReference "base" keeps the trained policy near: its log-probs on a batch's
tokens, recomputed without gradients at every step (the reference policy of PPO-style RLHF; verl's ref worker).

Two forms: a frozen copy of the base weights beside the trained model (full fine-tuning), or, with LoRA, the
trained model itself with its adapter disabled, which is the base at no extra memory. Either runs in the trained
model's mode (train), as the π_old recompute does, so at a campaign's first step the KL is exactly 0."""

from __future__ import annotations

import torch

from .passes import PassTensors


class BasePolicy:
    def __init__(self, *, frozen: torch.nn.Module | None = None, adapters_of: torch.nn.Module | None = None):
        if (frozen is None) == (adapters_of is None):
            raise ValueError("BasePolicy: give either a frozen base model or the adapter model whose base it is")
        if frozen is not None:
            frozen.requires_grad_(False)
        self.frozen = frozen
        self.adapters_of = adapters_of

    @torch.no_grad()
    def log_probs(self, batch: PassTensors, log_probs_of) -> torch.Tensor:
        """The base policy's log-prob of each position's target; `log_probs_of(model, batch)` is the trainer's own
        forward (trainer.token_log_probs with its ranks and autocast), so both sides compute alike."""
        if self.frozen is not None:
            self.frozen.train()
            return log_probs_of(self.frozen, batch)
        disabled = getattr(self.adapters_of, "disable_adapter", None)
        if disabled is None:
            raise ValueError("BasePolicy: the model has no adapter to disable (not a PEFT model)")
        with disabled():
            return log_probs_of(self.adapters_of, batch)
