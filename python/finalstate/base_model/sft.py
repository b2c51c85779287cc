"""Supervised fine-tuning: AdamW, linear warm-up then cosine decay, seeded batches.

The optimised loss is a weighted token mean: weight 1 on assistant tokens, `context_weight` on every other token of
the conversation (system prompt, user turns, tool responses). With weight 0 only the assistant's tokens are trained.
A weight above 0 adds next-token prediction over the whole transcript, as in pretraining: ids recur in it (a tool
response echoes the id the user gave), so every step shows the model many more copies, at no extra compute.
The loss reported per step is always the assistant tokens' mean, so runs with different weights compare.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class SftConfig:
    steps: int = 1500
    batch_size: int = 16
    lr: float = 3e-3
    min_lr_ratio: float = 0.1
    warmup_steps: int = 100
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    context_weight: float = 0.0


@dataclass
class TokenizedExample:
    input_ids: list[int]
    loss_mask: list[int]  # 1 where the token is trained on (predicted from the tokens before it)


def learning_rate(step: int, config: SftConfig) -> float:
    if step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
    return config.lr * (config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def _collate(examples: list[TokenizedExample], pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    width = max(len(e.input_ids) for e in examples)
    ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(examples), width), dtype=torch.long)
    mask = torch.zeros((len(examples), width), dtype=torch.float32)
    for row, example in enumerate(examples):
        n = len(example.input_ids)
        ids[row, :n] = torch.tensor(example.input_ids)
        attention[row, :n] = 1
        mask[row, :n] = torch.tensor(example.loss_mask, dtype=torch.float32)
    return ids, attention, mask


def sft_loss(
    logits: torch.Tensor, ids: torch.Tensor, attention: torch.Tensor, mask: torch.Tensor, context_weight: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(the loss to optimise, the assistant tokens' mean cross-entropy); position t predicts token t+1, pads count 0."""
    token_loss = torch.nn.functional.cross_entropy(logits[:, :-1].float().transpose(1, 2), ids[:, 1:], reduction="none")
    target_mask = mask[:, 1:]
    assistant_loss = (token_loss * target_mask).sum() / target_mask.sum().clamp(min=1.0)
    if not context_weight:
        return assistant_loss, assistant_loss
    weights = target_mask + context_weight * (attention[:, 1:] - target_mask)
    return (token_loss * weights).sum() / weights.sum(), assistant_loss


def train_sft(
    model: torch.nn.Module,
    examples: list[TokenizedExample],
    config: SftConfig,
    *,
    pad_id: int,
    seed: int,
    on_step: Callable[[int, float], None] | None = None,
) -> list[float]:
    """Train in place; return the assistant-token mean cross-entropy of every step."""
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    model.train()
    order: list[int] = []
    losses = []
    for step in range(config.steps):
        if len(order) < config.batch_size:  # a fresh shuffle of the whole set, appended: every example once per epoch
            order += torch.randperm(len(examples), generator=generator).tolist()
        chosen, order = order[: config.batch_size], order[config.batch_size :]
        ids, attention, mask = _collate([examples[i] for i in chosen], pad_id)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, config)
        logits = model(input_ids=ids, attention_mask=attention, use_cache=False).logits
        loss, assistant_loss = sft_loss(logits, ids, attention, mask, config.context_weight)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        losses.append(float(assistant_loss.detach()))
        if on_step:
            on_step(step, losses[-1])
    model.eval()
    return losses
