"""The base policy that update.loss.klReference "base" keeps the trained policy near: its log-probs on a batch's
tokens, recomputed without gradients at every step (the reference policy of PPO-style RLHF; verl's ref worker).

Two forms: a frozen copy of the base weights beside the trained model (full fine-tuning), or, with LoRA, the
trained model itself with its adapter disabled, which is the base at no extra memory. Either runs in the trained
model's mode (train), as the π_old recompute does, so at a campaign's first step the KL is exactly 0."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


class BasePolicy:
    def __init__(self, *, frozen: torch.nn.Module | None = None, adapters_of: torch.nn.Module | None = None):
        if (frozen is None) == (adapters_of is None):
            raise ValueError("BasePolicy: give either a frozen base model or the adapter model whose base it is")
        if adapters_of is not None and not hasattr(adapters_of, "disable_adapter"):
            raise ValueError("BasePolicy: the model has no adapter to disable (not a PEFT model)")
        if frozen is not None:
            frozen.requires_grad_(False)
        self.frozen = frozen
        self.adapters_of = adapters_of

    @contextlib.contextmanager
    def model(self) -> Iterator[torch.nn.Module]:
        """The module that computes the base policy inside the with-block: the frozen copy, or the adapter model
        with its adapter disabled."""
        if self.frozen is not None:
            self.frozen.train()
            yield self.frozen
            return
        with self.adapters_of.disable_adapter():
            yield self.adapters_of
